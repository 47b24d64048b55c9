package io.rdmakv.peer;

import io.rdmakv.verbs.SendFlags;
import io.rdmakv.verbs.SendWorkRequests;

/**
 * Chains of RDMA READs of any part of a node's region into memory the caller registered itself, posted on a
 * {@link NodeSession}'s queue pair with one doorbell each: for a node that copies a replica from its primary
 * (the server's {@code RegionCopier}), which reads the index in large chunks and many blocks at once. A chain may also carry compare-and-swaps of index words ({@link
 * #compareAndSwap}: a primary putting its backups' slots back, the server's {@code BackupSweep}) and WRITEs
 * ({@link #write}: the server's {@code BackupScrub}). Remote
 * addresses and rkeys come from the session's {@link NodeSession#hello() HELLO_OK}. Control path: one caller
 * thread, which must hold the session alone (nothing else posts on it meanwhile); the work requests are
 * allocated once.
 */
public final class RemoteReads implements AutoCloseable
{
    private final SessionIo io;
    private final SendWorkRequests wrs;
    private final int inFlightLimit;
    private int count;

    private RemoteReads(final SessionIo io, final int capacity, final int inFlightLimit)
    {
        this.io = io;
        this.inFlightLimit = inFlightLimit;
        wrs = SendWorkRequests.allocate(capacity, 1);
    }

    /**
     * READs on {@code session}'s queue pair, at most {@code capacity} per doorbell (at most {@link
     * #maxCapacity()}: the send queue's depth).
     */
    public static RemoteReads on(final NodeSession session, final int capacity)
    {
        if (capacity < 1 || capacity > maxCapacity())
        {
            throw new IllegalArgumentException("a chain of " + capacity + " READs: 1.." + maxCapacity());
        }
        return new RemoteReads(session.io(), capacity, session.sendQueueDepth());
    }

    /** The most READs one doorbell may carry: the session's send queue depth. */
    public static int maxCapacity()
    {
        return NodeSession.SEND_QUEUE_DEPTH;
    }

    /**
     * Requests that may be in flight on the session at once, chains {@link #post posted} and not yet awaited
     * together: its send queue's depth (at least {@link #maxCapacity()}).
     */
    public int inFlightLimit()
    {
        return inFlightLimit;
    }

    /** READs one chain holds. */
    public int capacity()
    {
        return wrs.count();
    }

    /** READs appended since the last {@link #ring()}. */
    public int pending()
    {
        return count;
    }

    /** True when the chain is full: {@link #ring()} before appending more. */
    public boolean isFull()
    {
        return count == wrs.count();
    }

    /**
     * Appends a READ of {@code length} bytes at {@code remoteAddress} (rkey {@code rkey}) into local memory at
     * {@code localAddress} (lkey {@code lkey}).
     */
    public void read(final long localAddress, final int length, final int lkey, final long remoteAddress,
        final int rkey)
    {
        if (isFull())
        {
            throw new IllegalStateException("the chain already holds " + count + " READs");
        }
        wrs.at(count).rdmaRead(localAddress, length, lkey, remoteAddress, rkey).sendFlags(0).wrId(0).next(null);
        link();
    }

    /**
     * Appends a WRITE of {@code length} bytes from local memory at {@code localAddress} (lkey {@code lkey}) to
     * {@code remoteAddress} (rkey {@code rkey}): a primary writing its own block over a backup's copy that differs
     * (the server's {@code BackupScrub}).
     */
    public void write(final long localAddress, final int length, final int lkey, final long remoteAddress,
        final int rkey)
    {
        if (isFull())
        {
            throw new IllegalStateException("the chain already holds " + count + " requests");
        }
        wrs.at(count).rdmaWrite(localAddress, length, lkey, remoteAddress, rkey).sendFlags(0).wrId(0).next(null);
        link();
    }

    private void link()
    {
        if (count > 0)
        {
            wrs.at(count - 1).next(wrs.at(count));
        }
        count++;
    }

    /**
     * Appends an 8-byte compare-and-swap of the word at {@code remoteAddress} (rkey {@code rkey}, 8-byte aligned)
     * from {@code expected} to {@code swap}; the word it found lands at {@code localAddress} (lkey {@code lkey},
     * 8-byte aligned). The requests of a chain execute in order.
     */
    public void compareAndSwap(final long localAddress, final int lkey, final long remoteAddress, final int rkey,
        final long expected, final long swap)
    {
        if (isFull())
        {
            throw new IllegalStateException("the chain already holds " + count + " requests");
        }
        wrs.at(count).compareAndSwap(localAddress, lkey, remoteAddress, rkey, expected, swap).sendFlags(0).wrId(0)
            .next(null);
        link();
    }

    /**
     * Posts the chain with one doorbell, the last READ signaled, and waits for it (the session's operation
     * timeout). Returns {@link Status#OK} or the failure that broke the session (a negative {@link Status});
     * an empty chain returns OK at once. The chain is empty afterwards.
     */
    public int ring()
    {
        if (count == 0)
        {
            return Status.OK;
        }
        final long ticket = post();
        return ticket < 0 ? (int)ticket : io.awaitPosted(ticket);
    }

    /**
     * Posts the chain with one doorbell, the last request signaled, without waiting for it; the chain is empty
     * afterwards, ready for the next (a post copies the requests). Several chains may be in flight on the session,
     * no more requests in all than {@link #inFlightLimit()} (the send queue's depth): the caller counts them, and
     * the local memory each one's results land in stays the caller's until it is {@link #await awaited}. Returns
     * the chain's ticket for {@link #await} (positive), or the failure that broke the session (a negative {@link
     * Status}); must not be empty.
     */
    public long post()
    {
        if (count == 0)
        {
            throw new IllegalStateException("an empty chain has nothing to post");
        }
        final int last = count - 1;
        count = 0;
        wrs.at(last).sendFlags(SendFlags.SIGNALED);
        return io.post(wrs.at(0), wrs.at(last));
    }

    /**
     * Waits (the session's operation timeout) for the chain {@link #post} returned {@code ticket} for, and with it
     * every chain posted before it (they complete in order). Returns {@link Status#OK} or the failure that broke
     * the session (a negative {@link Status}).
     */
    public int await(final long ticket)
    {
        return io.awaitPosted(ticket);
    }

    @Override
    public void close()
    {
        wrs.close();
    }
}
