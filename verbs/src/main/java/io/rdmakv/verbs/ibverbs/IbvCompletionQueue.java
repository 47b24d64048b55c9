package io.rdmakv.verbs.ibverbs;

import io.rdmakv.verbs.CompletionQueue;
import io.rdmakv.verbs.Context;
import io.rdmakv.verbs.ibverbs.bindings.CallState;
import io.rdmakv.verbs.ibverbs.bindings.InlineVerbs;
import io.rdmakv.verbs.ibverbs.bindings.LibC;
import io.rdmakv.verbs.ibverbs.bindings.LibIbverbsCq;
import io.rdmakv.verbs.ibverbs.layout.IbvCompChannel;
import io.rdmakv.verbs.ibverbs.layout.IbvContextStruct;
import io.rdmakv.verbs.ibverbs.layout.IbvCq;
import io.rdmakv.verbs.ibverbs.layout.Pollfd;
import io.rdmakv.verbs.ibverbs.layout.Timespec;
import io.rdmakv.verbs.resource.Errno;
import io.rdmakv.verbs.resource.VerbsException;
import io.rdmakv.verbs.resource.VerbsResource;
import io.rdmakv.verbs.WorkCompletions;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * A completion queue ({@code struct ibv_cq *}) with its own completion channel.
 *
 * <p>{@link #poll} calls the provider's {@code poll_cq} directly on the caller's {@code ibv_wc} array:
 * no allocation, no errno capture. {@link #await} first polls; if nothing is there it arms the queue
 * ({@code req_notify_cq}), polls again (closing the race with a completion that arrived before the
 * arming), then waits in {@code ppoll} on the channel's fd for at most the time left, takes the event
 * with {@code ibv_get_cq_event}, acknowledges it at once and polls again. It allocates nothing either
 * (its buffers belong to the queue) and, like {@code ibv_get_cq_event}, expects one waiting thread at a
 * time per queue; concurrent {@code await} calls on one queue are serialised. {@link #poll} itself may be
 * called from any thread (the provider's {@code poll_cq} locks), but polling a queue while it is being
 * closed is the caller's bug.
 *
 * <p>{@link #wakeup} ends a wait through an {@code eventfd} of the queue's own, polled together with the
 * channel's fd. A waiter marks itself waiting, then checks for a pending wake-up before it sleeps; a
 * waker marks the wake-up pending, then signals the eventfd only if it finds a waiter (else it costs a
 * volatile read): each writes its own volatile before it reads the other's, so one of them always sees
 * the other and no wake-up is lost.
 */
public final class IbvCompletionQueue extends VerbsResource implements CompletionQueue
{
    private final IbvContext context;
    private final Arena arena;
    private final MemorySegment channel;
    private final int channelFd;
    private final MemorySegment cq;
    private final MemorySegment pollCqFn;
    private final MemorySegment reqNotifyCqFn;
    private final int capacity;
    private final MemorySegment waitState;
    private final MemorySegment waitPollfd;
    private final MemorySegment waitTimespec;
    private final MemorySegment eventCq;
    private final MemorySegment eventContext;
    /** Serialises {@link #await} (and keeps {@link #close} from destroying the queue under a waiter). */
    private final Object waitLock = new Object();
    private boolean armed;
    /** The eventfd {@link #wakeup} signals, polled with the channel's fd; open while {@link #wakeFdOpen}. */
    private final int wakeFd;
    /** The 8-byte 1 a wake-up adds to the eventfd's counter (shared by every waker, never changed). */
    private final MemorySegment wakeOne;
    /** Where a waiter reads the eventfd's counter into (waiter only). */
    private final MemorySegment wakeDrained;
    /** Guards {@link #wakeFd} against a waker signalling it while {@link #release} closes it. */
    private final Object wakeLock = new Object();
    private boolean wakeFdOpen;
    /** Set while a thread is inside {@link #await}'s wait loop: a waker then signals the eventfd. */
    private volatile boolean waiting;
    /** Set by {@link #wakeup} until a waiter consumes it. */
    private volatile boolean wakePending;

    IbvCompletionQueue(final IbvContext context, final int requestedCapacity)
    {
        super("ibv_destroy_cq", context);
        this.context = context;
        this.arena = Arena.ofShared();
        MemorySegment createdChannel = MemorySegment.NULL;
        MemorySegment createdCq = MemorySegment.NULL;
        int createdWakeFd = -1;
        try
        {
            waitState = CallState.allocate(arena);
            waitPollfd = arena.allocate(Pollfd.LAYOUT, 2);
            wakeOne = arena.allocate(JAVA_LONG);
            wakeOne.set(JAVA_LONG, 0, 1L);
            wakeDrained = arena.allocate(JAVA_LONG);
            waitTimespec = arena.allocate(Timespec.LAYOUT);
            eventCq = arena.allocate(ADDRESS);
            eventContext = arena.allocate(ADDRESS);
            createdChannel = LibIbverbsCq.ibvCreateCompChannel(waitState, context.segment());
            if (createdChannel.address() == 0)
            {
                throw new VerbsException("ibv_create_comp_channel", CallState.errno(waitState),
                    "device " + context.deviceName());
            }
            channel = createdChannel.reinterpret(IbvCompChannel.SIZE);
            channelFd = channel.get(JAVA_INT, IbvCompChannel.FD);
            createdCq = LibIbverbsCq.ibvCreateCq(
                waitState, context.segment(), requestedCapacity, MemorySegment.NULL, channel, 0);
            if (createdCq.address() == 0)
            {
                final int maxCqe = context.maxCqe();
                throw new VerbsException("ibv_create_cq", CallState.errno(waitState), "completion queue of " +
                    requestedCapacity + " entries on device " + context.deviceName() +
                    (requestedCapacity > maxCqe ? ", which allows at most " + maxCqe + " (max_cqe)" : ""));
            }
            cq = createdCq.reinterpret(IbvCq.SIZE);
            capacity = cq.get(JAVA_INT, IbvCq.CQE);
            pollCqFn = InlineVerbs.resolve(cq, IbvContextStruct.OPS_POLL_CQ, "ibv_poll_cq");
            reqNotifyCqFn = InlineVerbs.resolve(cq, IbvContextStruct.OPS_REQ_NOTIFY_CQ, "ibv_req_notify_cq");
            createdWakeFd = LibC.eventfd(waitState);
            if (createdWakeFd < 0)
            {
                throw new VerbsException("eventfd", CallState.errno(waitState),
                    "the wake-up descriptor of a completion queue on device " + context.deviceName());
            }
            wakeFd = createdWakeFd;
            wakeFdOpen = true;
        }
        catch (final RuntimeException e)
        {
            try (Arena call = Arena.ofConfined())
            {
                final MemorySegment state = CallState.allocate(call);
                if (createdCq.address() != 0)
                {
                    LibIbverbsCq.ibvDestroyCq(state, createdCq);
                }
                if (createdChannel.address() != 0)
                {
                    LibIbverbsCq.ibvDestroyCompChannel(state, createdChannel);
                }
            }
            if (createdWakeFd >= 0)
            {
                LibC.close(createdWakeFd);
            }
            arena.close();
            throw e;
        }
    }

    MemorySegment segment()
    {
        return cq;
    }

    @Override
    public Context context()
    {
        return context;
    }

    /** The number of entries the device actually gave the queue (at least what was asked for). */
    @Override
    public int capacity()
    {
        return capacity;
    }

    @Override
    public int poll(final WorkCompletions completions)
    {
        if (isClosed())
        {
            return -Errno.EINVAL;
        }
        return InlineVerbs.pollCq(pollCqFn, cq, completions.capacity(), completions.segment());
    }

    @Override
    public int await(final WorkCompletions completions, final long timeoutNanos)
    {
        int n = poll(completions);
        if (n != 0 || timeoutNanos <= 0)
        {
            return n;
        }
        final long deadline = System.nanoTime() + timeoutNanos;
        synchronized (waitLock)
        {
            waiting = true;
            try
            {
                return awaitArmed(completions, deadline);
            }
            finally
            {
                waiting = false;
            }
        }
    }

    /** The wait loop of {@link #await}: arm, poll, sleep on the channel and the wake-up eventfd. Under the lock. */
    private int awaitArmed(final WorkCompletions completions, final long deadline)
    {
        while (true)
        {
            if (isClosed())
            {
                return -Errno.EINVAL;
            }
            if (!armed)
            {
                final int rc = InlineVerbs.reqNotifyCq(reqNotifyCqFn, cq, 0);
                if (rc != 0)
                {
                    return rc > 0 ? -rc : rc;
                }
                armed = true;
            }
            final int n = poll(completions);
            if (n != 0)
            {
                return n;
            }
            final long left = deadline - System.nanoTime();
            if (left <= 0)
            {
                return 0;
            }
            if (wakePending)
            {
                consumeWakeup();
                return 0;
            }
            final int ready = LibC.awaitEither(channelFd, wakeFd, left, waitPollfd, waitTimespec, waitState);
            if (ready < 0)
            {
                return ready;
            }
            if ((ready & LibC.READY_B) != 0)
            {
                // the channel's event, if one came too, stays there for the next wait (the queue stays armed)
                consumeWakeup();
                return 0;
            }
            if ((ready & LibC.READY_A) != 0)
            {
                if (LibIbverbsCq.ibvGetCqEvent(waitState, channel, eventCq, eventContext) != 0)
                {
                    return -CallState.errno(waitState);
                }
                LibIbverbsCq.ibvAckCqEvents(cq, 1);
                armed = false;
            }
        }
    }

    /**
     * Ends a concurrent {@link #await} or the next one (see {@link CompletionQueue#wakeup}): one volatile
     * write and read, plus a {@code write(2)} on the eventfd while a thread waits. Any thread; allocates nothing.
     */
    @Override
    public void wakeup()
    {
        wakePending = true;
        if (waiting)
        {
            synchronized (wakeLock)
            {
                if (wakeFdOpen)
                {
                    LibC.eventfdSignal(wakeFd, wakeOne);
                }
            }
        }
    }

    /** A waiter takes the pending wake-up: clears the flag and the eventfd's counter (waiter only, under the lock). */
    private void consumeWakeup()
    {
        wakePending = false;
        LibC.eventfdDrain(wakeFd, wakeDrained);
    }

    /** Registers a queue pair that uses this queue: the queue refuses to close until it closed. */
    void added(final IbvQueuePair qp)
    {
        adopt(qp);
    }

    @Override
    protected String resourceName()
    {
        return "completion queue of " + context.deviceName();
    }

    @Override
    protected String openChildrenMessage()
    {
        return "completion queue of " + context.deviceName() + " is still used by " +
            openChildren(IbvQueuePair.class) + " queue pair(s); close them first";
    }

    /**
     * Destroys the queue and its channel (every event was acknowledged when it was taken). Holds the
     * wait lock, so that no {@link #await} is inside the channel while it goes.
     */
    @Override
    public void close()
    {
        synchronized (waitLock)
        {
            super.close();
        }
    }

    /**
     * {@code ibv_destroy_cq}, then {@code ibv_destroy_comp_channel}; the first failure's errno. Then the
     * wake-up eventfd is closed, once no waker is inside it.
     */
    @Override
    protected int release()
    {
        final int rc = LibIbverbsCq.ibvDestroyCq(waitState, cq);
        int errno = rc == 0 ? 0 : CallState.errnoOf(rc, waitState);
        final int rc2 = LibIbverbsCq.ibvDestroyCompChannel(waitState, channel);
        if (errno == 0 && rc2 != 0)
        {
            errno = CallState.errnoOf(rc2, waitState);
        }
        synchronized (wakeLock)
        {
            wakeFdOpen = false;
            LibC.close(wakeFd);
        }
        arena.close();
        return errno;
    }
}
