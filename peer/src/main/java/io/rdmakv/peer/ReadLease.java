package io.rdmakv.peer;

import io.rdmakv.common.protocol.HeartbeatMessage;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A session's read lease on a node of a replicated cluster: the client trusts what one-sided READs of that
 * node return only until {@link HeartbeatMessage#READ_LEASE_INTERVALS} heartbeat intervals after it sent the
 * HELLO or HEARTBEAT the node answered last. A node answers only while it can confirm it is current, and the
 * cluster promotes a successor only after every lease a gone primary could have granted has ended; so a READ
 * checked under the lease after it completed never returns what a deposed node holds once a successor
 * serves. One volatile read and no allocation per check ({@link #heldAt}); renewed by the session's echo
 * reader.
 */
public final class ReadLease
{
    /** A lease that never ends: a node that cannot be deposed (no replication). */
    public static final ReadLease UNENFORCED = new ReadLease(0, false, 0);
    private static final int RING = 16;

    private final long leaseNanos;
    private final boolean enforced;
    private final AtomicLongArray sentAt = new AtomicLongArray(RING);
    private volatile long lastSent;
    private volatile long untilNanos;

    /**
     * @param leaseNanos  how long an answer holds, from the sending of what it answers
     * @param enforced    false: {@link #heldAt} always holds
     * @param helloSentAt when the HELLO the node answered with HELLO_OK was sent (the first grant)
     */
    public ReadLease(final long leaseNanos, final boolean enforced, final long helloSentAt)
    {
        this.leaseNanos = leaseNanos;
        this.enforced = enforced;
        this.untilNanos = helloSentAt + leaseNanos;
    }

    /** Whether READs that completed at {@code nowNanos} may be trusted. */
    public boolean heldAt(final long nowNanos)
    {
        return !enforced || nowNanos - untilNanos < 0;
    }

    /** HEARTBEAT {@code id} is being sent at {@code nowNanos} (the janitor's thread, before the send). */
    public void sending(final long id, final long nowNanos)
    {
        sentAt.set((int)(id & (RING - 1)), nowNanos);
        lastSent = id;
    }

    /** The node answered HEARTBEAT {@code id} (the echo reader's thread): the lease runs from its sending. */
    public void answered(final long id)
    {
        final long last = lastSent;
        if (id <= 0 || id > last || last - id >= RING)
        {
            return; // not one of ours, or too old to know when it was sent
        }
        final long until = sentAt.get((int)(id & (RING - 1))) + leaseNanos;
        synchronized (this)
        {
            if (until - untilNanos > 0)
            {
                untilNanos = until;
            }
        }
    }
}
