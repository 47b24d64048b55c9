package io.rdmakv.server.control;

import io.rdmakv.common.layout.RegionGeometry;
import io.rdmakv.common.protocol.AllocFailedMessage;
import io.rdmakv.common.protocol.AllocMessage;
import io.rdmakv.common.protocol.AllocOkMessage;
import io.rdmakv.common.protocol.ByeMessage;
import io.rdmakv.common.protocol.ControlCodec;
import io.rdmakv.common.protocol.ControlMessage;
import io.rdmakv.common.protocol.ErrorMessage;
import io.rdmakv.common.protocol.FreeMessage;
import io.rdmakv.common.protocol.MalformedMessageException;
import io.rdmakv.common.protocol.ReasonCode;
import io.rdmakv.common.protocol.ShutdownMessage;
import io.rdmakv.common.protocol.StatsMessage;
import io.rdmakv.common.protocol.StatsOkMessage;
import io.rdmakv.server.space.DataAreaAllocator;
import io.rdmakv.server.space.Extent;
import io.rdmakv.server.space.IndexScanner;
import io.rdmakv.server.space.LiveBlockCheck;
import io.rdmakv.verbs.CompletionQueue;
import io.rdmakv.verbs.WcOpcode;
import io.rdmakv.verbs.WorkCompletion;
import io.rdmakv.verbs.WorkCompletions;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;

import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The one thread that serves the control plane of every session: ALLOC, FREE, STATS and BYE over
 * SEND/RECV, departures (BYE, a closed bootstrap connection, a failed queue pair) and the grace
 * period of freed space. It never handles a GET or a PUT: those never reach the server's CPU.
 * It owns the {@link DataAreaAllocator}; nothing else touches it.
 */
public final class ControlAgent implements Runnable
{
    private static final System.Logger LOG = System.getLogger(ControlAgent.class.getName());

    private final CompletionQueue cq;
    private final DataAreaAllocator allocator;
    private final IndexScanner scanner;
    private final LiveBlockCheck liveBlocks;
    private final RegionGeometry geometry;
    private final int bufferLength;
    private final Map<Integer, ServerSession> byQpNum = new ConcurrentHashMap<>();
    private final Queue<Runnable> commands = new ConcurrentLinkedQueue<>();
    private final WorkCompletions completions = WorkCompletions.allocate(64);
    private final ServerCounters counters = new ServerCounters();
    private final IdleStrategy idle = new BackoffIdleStrategy(100, 10, 1_000, 200_000);
    private final CountDownLatch stopped = new CountDownLatch(1);
    private volatile boolean running = true;
    private volatile long freeBytes;
    private volatile long graceBytes;
    private volatile long graceRanges;
    private volatile long grantedExtents;
    private long lastExpiry;

    public ControlAgent(final CompletionQueue cq, final DataAreaAllocator allocator, final IndexScanner scanner,
        final LiveBlockCheck liveBlocks, final RegionGeometry geometry, final int bufferLength)
    {
        this.cq = cq;
        this.allocator = allocator;
        this.scanner = scanner;
        this.liveBlocks = liveBlocks;
        this.geometry = geometry;
        this.bufferLength = bufferLength;
        publishSpace();
    }

    public ServerCounters counters()
    {
        return counters;
    }

    public int sessionCount()
    {
        return byQpNum.size();
    }

    public long freeBytes()
    {
        return freeBytes;
    }

    public long graceBytes()
    {
        return graceBytes;
    }

    public long graceRanges()
    {
        return graceRanges;
    }

    public long grantedExtents()
    {
        return grantedExtents;
    }

    /** Makes a connected session known; its RECVs are already posted. Safe from any thread. */
    public void register(final ServerSession session)
    {
        byQpNum.put(session.qp().qpNum(), session);
        commands.add(() -> counters.sessionsOpened++);
    }

    /** Asks the agent to tear a session down (its bootstrap connection closed). Safe from any thread. */
    public void departed(final ServerSession session)
    {
        commands.add(() -> depart(session, "its bootstrap connection closed"));
    }

    /** Runs {@code task} on the agent's thread. */
    public void execute(final Runnable task)
    {
        commands.add(task);
    }

    @Override
    public void run()
    {
        try
        {
            while (running)
            {
                try
                {
                    idle.idle(doWork());
                }
                catch (final RuntimeException e)
                {
                    // One bad request or session must not stop the control plane of every client.
                    counters.agentErrors++;
                    LOG.log(System.Logger.Level.ERROR, "control agent: " + e, e);
                }
            }
        }
        finally
        {
            stopped.countDown();
        }
    }

    /** One duty cycle; returns the amount of work done (0 lets the idle strategy back off). */
    int doWork()
    {
        int work = 0;
        final int n = cq.poll(completions);
        for (int i = 0; i < n; i++)
        {
            onCompletion(completions.at(i));
        }
        work += n;
        Runnable command;
        while ((command = commands.poll()) != null)
        {
            command.run();
            work++;
        }
        final long now = System.nanoTime();
        if (now - lastExpiry > TimeUnit.MILLISECONDS.toNanos(5))
        {
            lastExpiry = now;
            allocator.expireGrace(now);
            publishSpace();
        }
        return work;
    }

    private void onCompletion(final WorkCompletion wc)
    {
        final ServerSession session = byQpNum.get(wc.qpNum());
        if (session == null)
        {
            return;
        }
        if (!wc.isSuccess())
        {
            counters.completionError(wc.status());
            depart(session, "its queue pair failed (" + wc.statusEnum() + ")");
            return;
        }
        if (wc.opcode() != WcOpcode.RECV)
        {
            return;
        }
        final int buffer = (int)wc.wrId();
        ControlMessage message = null;
        try
        {
            message = ControlCodec.decode(session.buffers(), session.bufferOffset(buffer), wc.byteLen());
        }
        catch (final MalformedMessageException e)
        {
            counters.malformedMessages++;
            LOG.log(System.Logger.Level.WARNING, session + " sent a malformed control message: " + e.getMessage());
            reply(session, new ErrorMessage(0, ReasonCode.MALFORMED_MESSAGE.code(), e.getMessage()));
        }
        if (!session.postReceive(buffer))
        {
            depart(session, "its queue pair refused a receive buffer");
            return;
        }
        if (message != null)
        {
            handle(session, message);
        }
    }

    private void handle(final ServerSession session, final ControlMessage message)
    {
        switch (message)
        {
            case AllocMessage alloc -> allocate(session, alloc);
            case FreeMessage free -> free(free);
            case StatsMessage stats -> stats(session, stats);
            case ByeMessage bye ->
            {
                counters.byeRequests++;
                depart(session, "it said BYE");
            }
            default ->
            {
                counters.malformedMessages++;
                reply(session, new ErrorMessage(message.requestId(), ReasonCode.UNEXPECTED_MESSAGE.code(),
                    message.type() + " is not a request a client may send on the control plane"));
            }
        }
    }

    private void allocate(final ServerSession session, final AllocMessage alloc)
    {
        counters.allocRequests++;
        final long min = alloc.requestedBytes();
        if (min <= 0 || min > allocator.capacity())
        {
            counters.allocFailures++;
            reply(session, new AllocFailedMessage(alloc.requestId(), ReasonCode.REQUEST_TOO_LARGE.code(),
                "ALLOC of " + min + " bytes: a grant is 1.." + allocator.capacity() + " bytes"));
            return;
        }
        final Extent extent =
            allocator.grant(min, Math.max(min, geometry.chunkSize()), System.nanoTime(), session.id());
        if (extent == null)
        {
            counters.allocFailures++;
            reply(session, new AllocFailedMessage(alloc.requestId(), ReasonCode.OUT_OF_MEMORY.code(),
                "data area full: no free range of " + min + " bytes (" + allocator.freeBytes() +
                " bytes free, " + allocator.graceBytes() + " waiting out the grace period)"));
            return;
        }
        publishSpace();
        reply(session, new AllocOkMessage(alloc.requestId(), extent.offset(), extent.length()));
    }

    private void free(final FreeMessage free)
    {
        counters.freeRequests++;
        final long now = System.nanoTime();
        for (int i = 0; i < free.count(); i++)
        {
            if (allocator.isReleasable(free.offset(i), free.length(i)) &&
                !liveBlocks.containsLiveBlock(free.offset(i), free.length(i)) &&
                allocator.release(free.offset(i), free.length(i), now))
            {
                counters.freedBlocks++;
            }
            else
            {
                counters.refusedFrees++;
            }
        }
    }

    private void stats(final ServerSession session, final StatsMessage stats)
    {
        counters.statsRequests++;
        final long total = allocator.capacity();
        final long free = allocator.freeBytes();
        reply(session, new StatsOkMessage(stats.requestId(), total, total - free - allocator.graceBytes(), free,
            scanner.usedSlots(), geometry.slotCount(), byQpNum.size(), allocator.grantedExtents()));
    }

    private void reply(final ServerSession session, final ControlMessage message)
    {
        final int length = ControlCodec.encode(message, session.buffers(),
            session.bufferOffset(ServerSession.REPLY_BUFFER));
        if (!session.send(ServerSession.REPLY_BUFFER, length))
        {
            depart(session, "a reply could not be posted");
        }
    }

    /** Tears a session down and reclaims what it held that nothing references. Agent thread only. */
    private void depart(final ServerSession session, final String why)
    {
        if (session.departed())
        {
            return;
        }
        session.markDeparted();
        byQpNum.remove(session.qp().qpNum(), session);
        session.qp().modifyToError();
        session.close();
        final IndexScanner.Departure found = scanner.scanDeparture(allocator.grantsOf(session.id()), session.id());
        final long reclaimed = allocator.reclaim(session.id(), found.liveBlocks(), System.nanoTime());
        counters.sessionsClosed++;
        counters.reclaimedBytes += reclaimed;
        counters.locksReleased += found.locksReleased();
        publishSpace();
        LOG.log(System.Logger.Level.DEBUG, session + " departed because " + why + "; reclaimed " + reclaimed +
            " bytes, released " + found.locksReleased() + " insert lock(s)");
    }

    private void publishSpace()
    {
        freeBytes = allocator.freeBytes();
        graceBytes = allocator.graceBytes();
        graceRanges = allocator.graceRanges();
        grantedExtents = allocator.grantedExtents();
    }

    /** Tells every client the node is going away (SHUTDOWN). Agent thread only. */
    public void announceShutdown()
    {
        for (final ServerSession session : byQpNum.values())
        {
            final int length = ControlCodec.encode(new ShutdownMessage(0), session.buffers(),
                session.bufferOffset(ServerSession.NOTICE_BUFFER));
            session.send(ServerSession.NOTICE_BUFFER, length);
        }
    }

    /** Closes every session still open. Agent thread only, after the agent stopped serving. */
    public void closeAll()
    {
        for (final ServerSession session : byQpNum.values())
        {
            depart(session, "the node is shutting down");
        }
    }

    /** Stops the loop and waits for it to end. */
    public void stop(final long timeoutNanos) throws InterruptedException
    {
        running = false;
        stopped.await(timeoutNanos, TimeUnit.NANOSECONDS);
    }

    public void closeResources()
    {
        completions.close();
    }
}
