package io.rdmakv.peer;

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
 * Posting and waiting for one session's queue pair. {@link #ring} posts a prebuilt chain of work requests
 * with one doorbell and waits, as its {@link SessionWaiter} says (spin, then block, by default), until its
 * last, signaled, request completes: one round trip. Receive completions met on the way (control replies,
 * server notices) are remembered for {@link #awaitReceive}; they land in the session's {@link ControlArea}.
 * Any error completion or a timeout breaks the session for good. Owned by one thread at a time.
 */
public final class SessionIo implements AutoCloseable
{
    private static final long RECV_WR_ID_BASE = 1L << 62;
    private static final System.Logger LOG = System.getLogger(SessionIo.class.getName());

    private final QueuePair qp;
    private final CompletionQueue cq;
    private final MemoryRegion local;
    private final IoCounters counters;
    private final int controlOffset;
    private final ReceiveWorkRequests receives = ReceiveWorkRequests.allocate(ControlArea.RECV_BUFFERS, 1);
    private final WorkCompletions completions = WorkCompletions.allocate(16);
    private final int[] arrivedBuffer = new int[ControlArea.RECV_BUFFERS];
    private final int[] arrivedLength = new int[ControlArea.RECV_BUFFERS];
    private int arrivedCount;
    private int lastReceiveLength;
    private long nextWrId = 1;
    /**
     * The newest signaled send request known complete: an RC send queue completes in posting order, so every chain
     * posted up to it has completed too.
     */
    private long completedThrough;
    private final long timeoutNanos;
    private int failure;
    private String failedWaitingFor = "";
    private SendWorkRequest posted;
    private final SessionWaiter waiter;
    /** What the failure report says about the session besides the completion (its owner's words). */
    private java.util.function.Supplier<String> described = () -> "";
    /** Set when the owner closes the session: a failure from then on is expected and logged at DEBUG only. */
    private boolean closing;

    /**
     * @param local         the session's registered memory
     * @param controlOffset where its {@link ControlArea} starts in {@code local}
     */
    public SessionIo(final QueuePair qp, final CompletionQueue cq, final MemoryRegion local, final int controlOffset,
        final IoCounters counters, final long timeoutNanos, final WaitStrategy waitStrategy)
    {
        this.waiter = new SessionWaiter(waitStrategy);
        this.qp = qp;
        this.cq = cq;
        this.local = local;
        this.controlOffset = controlOffset;
        this.counters = counters;
        this.timeoutNanos = timeoutNanos;
    }

    /**
     * What the log line of this session's failure says about it besides what failed (which node, the queue pair's
     * connection history): called once, on the first failure only.
     */
    public void describedBy(final java.util.function.Supplier<String> description)
    {
        this.described = description;
    }

    /**
     * The owner is closing the session (it says BYE next): a failure from now on is the end it asked for (a node
     * moves the queue pair to ERR on BYE, which on iWARP ends the connection and flushes this side's receives,
     * possibly while the BYE's own completion is awaited), logged at DEBUG only.
     */
    public void closing()
    {
        closing = true;
    }

    /** Posts every receive buffer; called once while the queue pair is being connected. */
    public void postAllReceives()
    {
        for (int i = 0; i < ControlArea.RECV_BUFFERS; i++)
        {
            if (!repostReceive(i))
            {
                throw new IllegalStateException("cannot post receive buffer " + i);
            }
        }
    }

    public boolean repostReceive(final int buffer)
    {
        receives.at(buffer).wrId(RECV_WR_ID_BASE + buffer)
            .buffer(local.address() + controlOffset + ControlArea.recv(buffer), ControlArea.CONTROL_LENGTH, local.lkey())
            .next(null);
        return qp.postReceive(receives.at(buffer)) == 0;
    }

    public long localAddress(final int offset)
    {
        return local.address() + offset;
    }

    public int lkey()
    {
        return local.lkey();
    }

    /** Where the control area starts in the session's memory. */
    public int controlOffset()
    {
        return controlOffset;
    }

    /** The failure that broke the session (a negative {@link Status}), or 0 while it works. */
    public int failure()
    {
        return failure;
    }

    /** The last round trip was another operation's (a replica chain's): it is counted there. */
    public void roundTripChargedElsewhere()
    {
        counters.roundTrips(-1);
    }

    /**
     * Rings the doorbell for the prebuilt chain {@code first .. last} (linked, only {@code last} signaled):
     * one post, then waits for {@code last}'s completion. Returns {@link Status#OK} or a failure.
     */
    public int ring(final SendWorkRequest first, final SendWorkRequest last)
    {
        final long ticket = post(first, last);
        return ticket < 0 ? (int)ticket : awaitPosted(ticket);
    }

    /**
     * Rings the doorbell for the prebuilt chain {@code first .. last} (linked, only {@code last} signaled) without
     * waiting: several chains may be in flight at once, as many work requests in all as the send queue holds (the
     * caller counts them). Returns the chain's ticket for {@link #awaitPosted} (positive), or a failure (a negative
     * {@link Status}). The work requests may be refilled as soon as this returns: a post copies them.
     */
    public long post(final SendWorkRequest first, final SendWorkRequest last)
    {
        if (failure != 0)
        {
            return failure;
        }
        final long wrId = nextWrId++;
        last.wrId(wrId);
        counters.roundTrips(1);
        posted = first;
        final int rc = qp.postSend(first);
        if (rc != 0)
        {
            return failPosting(rc);
        }
        return wrId;
    }

    /**
     * Waits until the chain {@link #post} returned {@code ticket} for has completed (at once when a chain posted
     * after it has: completions come in posting order). Returns {@link Status#OK} or a failure.
     */
    public int awaitPosted(final long ticket)
    {
        if (completedThrough >= ticket)
        {
            return Status.OK;
        }
        if (failure != 0)
        {
            return failure;
        }
        return awaitSend(ticket);
    }

    /** Posts one prebuilt unsignaled request without waiting (it completes before the next signaled one). */
    public int postUnsignaled(final SendWorkRequest wr)
    {
        if (failure != 0)
        {
            return failure;
        }
        final int rc = qp.postSend(wr);
        return rc == 0 ? Status.OK : failPosting(rc);
    }

    /** How this session waits (its strategy and round-trip estimate). */
    public SessionWaiter waiter()
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
                return failPolling(n);
            }
            for (int i = 0; i < n; i++)
            {
                final int rc = accept(completions.at(i));
                if (rc != Status.OK)
                {
                    return rc;
                }
            }
            if (completedThrough >= wrId)
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

    /** What the session was waiting for when it timed out (the posted chain's opcodes), or empty. */
    public String failedWaitingFor()
    {
        return failedWaitingFor;
    }

    /**
     * Waits for a control message. Returns the receive buffer's index (read the message at {@link
     * ControlArea#recv} of the control area, then {@link #repostReceive} it), or a negative {@link Status}.
     */
    public int awaitReceive(final long timeout)
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
                return failPolling(n);
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
    public int lastReceiveLength()
    {
        return lastReceiveLength;
    }

    /** True when a control message is waiting (polls once without blocking). */
    public boolean receivePending()
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
            return failCompleted(wc);
        }
        if (wc.opcode() == WcOpcode.RECV)
        {
            arrivedBuffer[arrivedCount] = (int)(wc.wrId() - RECV_WR_ID_BASE);
            arrivedLength[arrivedCount] = wc.byteLen();
            arrivedCount++;
        }
        else if (wc.wrId() > completedThrough)
        {
            completedThrough = wc.wrId();
        }
        return Status.OK;
    }

    /**
     * An error completion breaks the session: REMOTE_ERROR when the responder refused the request, else
     * CONNECTION_LOST. The first failure is logged with the completion (status, opcode, vendor_err, queue pair,
     * wr_id), the chain last posted and the owner's description.
     */
    private int failCompleted(final WorkCompletion wc)
    {
        final int status = wc.status() == WcStatus.REM_ACCESS_ERR.code() ||
            wc.status() == WcStatus.REM_INV_REQ_ERR.code() ? Status.REMOTE_ERROR : Status.CONNECTION_LOST;
        if (failure == 0)
        {
            report(Status.name(status) + ": work completion " + WcStatus.of(wc.status()) + " (status " +
                wc.status() + "), opcode " + WcOpcode.name(wc.opcode()) + " (" + wc.opcode() + "), vendor_err 0x" +
                Integer.toHexString(wc.vendorErr()) + ", qp_num " + wc.qpNum() + ", wr_id " +
                (wc.wrId() >= RECV_WR_ID_BASE ? "receive buffer " + (wc.wrId() - RECV_WR_ID_BASE) : wc.wrId()));
        }
        return fail(status);
    }

    private int failPosting(final int rc)
    {
        if (failure == 0)
        {
            report(Status.name(Status.CONNECTION_LOST) + ": ibv_post_send returned " + rc);
        }
        return fail(Status.CONNECTION_LOST);
    }

    private int failPolling(final int n)
    {
        if (failure == 0)
        {
            report(Status.name(Status.CONNECTION_LOST) + ": polling the completion queue returned " + n);
        }
        return fail(Status.CONNECTION_LOST);
    }

    /** The failure's log line (allocates: the failure path only; nothing when the level is off). */
    private void report(final String what)
    {
        final System.Logger.Level level = closing ? System.Logger.Level.DEBUG : System.Logger.Level.WARNING;
        if (!LOG.isLoggable(level))
        {
            return;
        }
        String about;
        try
        {
            about = described.get();
        }
        catch (final RuntimeException e)
        {
            about = "(" + e + ")";
        }
        LOG.log(level, "session on " + qp + " broke" + (closing ? " while closing" : "") + ", " + what +
            "; last posted " + describePosted() + (about.isEmpty() ? "" : "; " + about));
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
