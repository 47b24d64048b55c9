package io.rdmakv.client.internal;

import io.rdmakv.client.WaitStrategy;
import io.rdmakv.verbs.CompletionQueue;
import io.rdmakv.verbs.MemoryRegion;
import io.rdmakv.verbs.Opcode;
import io.rdmakv.verbs.QueuePair;
import io.rdmakv.verbs.ReceiveWorkRequests;
import io.rdmakv.verbs.SendWorkRequest;
import io.rdmakv.verbs.WcOpcode;
import io.rdmakv.verbs.WcStatus;
import io.rdmakv.verbs.WorkCompletion;
import io.rdmakv.verbs.WorkCompletions;

/**
 * Posting and waiting for one lane's queue pair. {@link #ring} posts a prebuilt chain of work
 * requests (see {@link LaneRequests}) with one doorbell and waits, as its {@link LaneWaiter} says (spin,
 * then block, by default), until its last, signaled, request completes: one round trip.
 * Receive completions met on the way (control replies, server notices) are remembered for
 * {@link #awaitReceive}. Any error completion or a timeout breaks the lane for good.
 */
final class LaneIo implements AutoCloseable
{
    private static final long RECV_WR_ID_BASE = 1L << 62;

    private final QueuePair qp;
    private final CompletionQueue cq;
    private final MemoryRegion local;
    private final LaneCounters counters;
    private final ReceiveWorkRequests receives = ReceiveWorkRequests.allocate(LaneBuffers.RECV_BUFFERS, 1);
    private final WorkCompletions completions = WorkCompletions.allocate(16);
    private final int[] arrivedBuffer = new int[LaneBuffers.RECV_BUFFERS];
    private final int[] arrivedLength = new int[LaneBuffers.RECV_BUFFERS];
    private int arrivedCount;
    private int lastReceiveLength;
    private long nextWrId = 1;
    private final long timeoutNanos;
    private int failure;
    private String failedWaitingFor = "";
    private SendWorkRequest posted;
    private final LaneWaiter waiter;

    LaneIo(final QueuePair qp, final CompletionQueue cq, final MemoryRegion local, final LaneCounters counters,
        final long timeoutNanos)
    {
        this(qp, cq, local, counters, timeoutNanos, WaitStrategy.ADAPTIVE);
    }

    LaneIo(final QueuePair qp, final CompletionQueue cq, final MemoryRegion local, final LaneCounters counters,
        final long timeoutNanos, final WaitStrategy waitStrategy)
    {
        this.waiter = new LaneWaiter(waitStrategy);
        this.qp = qp;
        this.cq = cq;
        this.local = local;
        this.counters = counters;
        this.timeoutNanos = timeoutNanos;
    }

    /** Posts every receive buffer; called once while the queue pair is being connected. */
    void postAllReceives()
    {
        for (int i = 0; i < LaneBuffers.RECV_BUFFERS; i++)
        {
            if (!repostReceive(i))
            {
                throw new IllegalStateException("cannot post receive buffer " + i);
            }
        }
    }

    boolean repostReceive(final int buffer)
    {
        receives.at(buffer).wrId(RECV_WR_ID_BASE + buffer)
            .buffer(local.address() + LaneBuffers.controlRecv(buffer), LaneBuffers.CONTROL_LENGTH, local.lkey())
            .next(null);
        return qp.postReceive(receives.at(buffer)) == 0;
    }

    long localAddress(final int offset)
    {
        return local.address() + offset;
    }

    int lkey()
    {
        return local.lkey();
    }

    /** The failure that broke the lane (a negative {@link Status}), or 0 while it works. */
    int failure()
    {
        return failure;
    }

    /**
     * Rings the doorbell for the prebuilt chain {@code first .. last} (linked, only {@code last} signaled):
     * one post, then waits for {@code last}'s completion. Returns {@link Status#OK} or a failure.
     */
    /** The last round trip was another lane's operation's (a replica chain's): it is counted there. */
    void roundTripChargedElsewhere()
    {
        counters.add(ClientCounter.ROUND_TRIPS, -1);
    }

    int ring(final SendWorkRequest first, final SendWorkRequest last)
    {
        if (failure != 0)
        {
            return failure;
        }
        final long wrId = nextWrId++;
        last.wrId(wrId);
        counters.increment(ClientCounter.ROUND_TRIPS);
        posted = first;
        if (qp.postSend(first) != 0)
        {
            return fail(Status.CONNECTION_LOST);
        }
        return awaitSend(wrId);
    }

    /** Posts one prebuilt unsignaled request without waiting (it completes before the next signaled one). */
    int postUnsignaled(final SendWorkRequest wr)
    {
        if (failure != 0)
        {
            return failure;
        }
        return qp.postSend(wr) == 0 ? Status.OK : fail(Status.CONNECTION_LOST);
    }

    /** How this lane waits (its strategy and round-trip estimate). */
    LaneWaiter waiter()
    {
        return waiter;
    }

    private int awaitSend(final long wrId)
    {
        final long postedAt = System.nanoTime();
        final long deadline = postedAt + timeoutNanos;
        while (true)
        {
            final int n = waiter.await(cq, completions, postedAt, deadline);
            if (n < 0)
            {
                return fail(Status.CONNECTION_LOST);
            }
            boolean done = false;
            for (int i = 0; i < n; i++)
            {
                final WorkCompletion wc = completions.at(i);
                final int rc = accept(wc);
                if (rc != Status.OK)
                {
                    return rc;
                }
                done |= wc.wrId() == wrId;
            }
            if (done)
            {
                waiter.roundTrip(System.nanoTime() - postedAt);
                return Status.OK;
            }
            if (n == 0 && System.nanoTime() - deadline >= 0)
            {
                failedWaitingFor = describePosted();
                return fail(Status.TIMEOUT);
            }
        }
    }

    /** The opcodes of the chain last posted, for the message of a timeout (control path: allocates). */
    private String describePosted()
    {
        final StringBuilder sb = new StringBuilder();
        SendWorkRequest wr = posted;
        while (wr != null)
        {
            sb.append(sb.isEmpty() ? "" : " + ").append(Opcode.name(wr.opcode()));
            final long next = wr.nextAddress();
            wr = next == 0 ? null : wr.owner().byAddress(next);
        }
        return sb.toString();
    }

    /** What the lane was waiting for when it timed out (the posted chain's opcodes), or empty. */
    String failedWaitingFor()
    {
        return failedWaitingFor;
    }

    /**
     * Waits for a control message. Returns the receive buffer's index (read the message at
     * {@link LaneBuffers#controlRecv}, then {@link #repostReceive} it), or a negative {@link Status}.
     */
    int awaitReceive(final long timeout)
    {
        final long since = System.nanoTime();
        final long deadline = since + timeout;
        while (arrivedCount == 0)
        {
            if (failure != 0)
            {
                return failure;
            }
            final int n = waiter.await(cq, completions, since, deadline);
            if (n < 0)
            {
                return fail(Status.CONNECTION_LOST);
            }
            for (int i = 0; i < n; i++)
            {
                final int rc = accept(completions.at(i));
                if (rc != Status.OK)
                {
                    return rc;
                }
            }
            if (n == 0 && System.nanoTime() - deadline >= 0)
            {
                failedWaitingFor = "a control reply";
                return fail(Status.TIMEOUT);
            }
        }
        final int buffer = arrivedBuffer[0];
        lastReceiveLength = arrivedLength[0];
        arrivedCount--;
        System.arraycopy(arrivedBuffer, 1, arrivedBuffer, 0, arrivedCount);
        System.arraycopy(arrivedLength, 1, arrivedLength, 0, arrivedCount);
        return buffer;
    }

    /** Bytes in the receive buffer {@link #awaitReceive} returned last. */
    int lastReceiveLength()
    {
        return lastReceiveLength;
    }

    /** True when a control message is waiting (polls once without blocking). */
    boolean receivePending()
    {
        if (arrivedCount == 0 && failure == 0)
        {
            final int n = cq.poll(completions);
            for (int i = 0; i < n; i++)
            {
                accept(completions.at(i));
            }
        }
        return arrivedCount > 0;
    }

    private int accept(final WorkCompletion wc)
    {
        if (wc.status() != 0)
        {
            return fail(wc.status() == WcStatus.REM_ACCESS_ERR.code() || wc.status() == WcStatus.REM_INV_REQ_ERR.code() ?
                Status.REMOTE_ERROR : Status.CONNECTION_LOST);
        }
        if (wc.opcode() == WcOpcode.RECV)
        {
            arrivedBuffer[arrivedCount] = (int)(wc.wrId() - RECV_WR_ID_BASE);
            arrivedLength[arrivedCount] = wc.byteLen();
            arrivedCount++;
        }
        return Status.OK;
    }

    private int fail(final int status)
    {
        if (failure == 0)
        {
            failure = status;
        }
        return failure;
    }

    @Override
    public void close()
    {
        receives.close();
        completions.close();
    }
}
