package io.rdmakv.server.cluster;

import java.util.concurrent.TimeUnit;

/**
 * Whether this node of a ZooKeeper cluster may serve now: it can confirm that nobody replaced it. It is
 * current while all of these hold:
 * <ul>
 *   <li>its ZooKeeper connection is up (not suspended, not lost);</li>
 *   <li>a round trip to ZooKeeper that it sent less than {@link FencingBounds#currencyBoundNanos() B} ago
 *       succeeded, in the session it joined under (so its session cannot have expired before that sending:
 *       a coordinator waits S + W past it, see {@link FencingBounds});</li>
 *   <li>the map it serves vouches for it: it places the node under its incarnation, or not in a group at
 *       all; and, after its session expired and a new one began, the node is registered again under the new
 *       session and has applied the newest map written before that (a promotion needs the gone node's member
 *       znode absent, so none can follow while the new session lives).</li>
 * </ul>
 * Checked with one clock read; written by the membership's threads, read by any.
 */
public final class NodeCurrency
{
    private volatile FencingBounds bounds;
    private volatile boolean connected;
    private volatile long confirmedAtNanos;
    private volatile boolean vouched = true;
    private volatile boolean everConfirmed;

    public NodeCurrency(final FencingBounds bounds)
    {
        this.bounds = bounds;
        this.confirmedAtNanos = System.nanoTime() - bounds.currencyBoundNanos() - 1;
    }

    /** Whether the node may serve now. */
    public boolean current()
    {
        return connected && vouched && System.nanoTime() - confirmedAtNanos < bounds.currencyBoundNanos();
    }

    /** Why the node is not current (for logs and HELLO_REFUSED), or "current". */
    public String why()
    {
        if (!connected)
        {
            return "its ZooKeeper connection is down";
        }
        if (!vouched)
        {
            return "its ZooKeeper session expired and it has not rejoined with the newest map yet";
        }
        final long age = System.nanoTime() - confirmedAtNanos;
        if (age >= bounds.currencyBoundNanos())
        {
            return everConfirmed ? "its last confirmed ZooKeeper round trip was sent " +
                TimeUnit.NANOSECONDS.toMillis(age) + " ms ago (bound " +
                TimeUnit.NANOSECONDS.toMillis(bounds.currencyBoundNanos()) + " ms)" :
                "it has not confirmed its ZooKeeper session yet";
        }
        return "current";
    }

    public FencingBounds bounds()
    {
        return bounds;
    }

    /** The bounds as the negotiated session timeout sets them. */
    void bounds(final FencingBounds negotiated)
    {
        bounds = negotiated;
    }

    void connected(final boolean up)
    {
        connected = up;
    }

    /** A round trip sent at {@code sentAtNanos} succeeded in the session the node joined under. */
    void confirmed(final long sentAtNanos)
    {
        synchronized (this)
        {
            if (sentAtNanos - confirmedAtNanos > 0)
            {
                confirmedAtNanos = sentAtNanos;
            }
            everConfirmed = true;
        }
    }

    /** Whether the map now served vouches for the node (see the class comment). */
    void vouched(final boolean yes)
    {
        vouched = yes;
    }
}
