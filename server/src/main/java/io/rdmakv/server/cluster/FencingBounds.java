package io.rdmakv.server.cluster;

import io.rdmakv.common.protocol.HeartbeatMessage;

import java.util.concurrent.TimeUnit;

/**
 * The times that keep a deposed node from being served after its successor is (docs/design.md, "Safety
 * argument"). From the ZooKeeper session timeout {@code S} (as negotiated) and the clients' heartbeat interval
 * {@code H}:
 * <ul>
 *   <li>{@link #currencyBoundNanos() B} = S / 2: a node serves only while a ZooKeeper round trip it <em>sent</em>
 *       less than B ago succeeded in its session ({@link NodeCurrency}); it probes every B / 4;</li>
 *   <li>{@link #readLeaseNanos() L} = {@value HeartbeatMessage#READ_LEASE_INTERVALS} H: a client trusts a node's
 *       READs until L after it sent the HELLO or HEARTBEAT the node answered, and the node answers only while
 *       current;</li>
 *   <li>{@link #promotionWaitNanos() W}: the coordinator promotes a gone primary's successor only W after it saw
 *       the primary gone. The primary's session expired at least S after its last successful round trip was sent
 *       (t), so it stopped serving by t + B (plus one {@link #watchTickNanos() watch tick}) and every lease it
 *       granted ended by t + B + L. W = max(0, (B + L + tick)(1 + r) / (1 - r) - S) + {@link #MARGIN_NANOS},
 *       with clocks that may run {@link #CLOCK_RATE_ERROR} = 1% fast or slow (r), far beyond a real clock's
 *       drift.</li>
 * </ul>
 * Every node of a cluster must run with the same session timeout and heartbeat interval (the coordinator sizes
 * W with its own).
 */
public record FencingBounds(long sessionTimeoutNanos, long heartbeatIntervalNanos)
{
    /** How fast or slow any clock (node, client, ZooKeeper server) may run against real time. */
    public static final double CLOCK_RATE_ERROR = 0.01;
    /** Added to the promotion wait for scheduling delays that no clock bound covers. */
    public static final long MARGIN_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    /** The longest a node's currency watch sleeps between checks. */
    static final long MAX_WATCH_TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    public FencingBounds
    {
        if (sessionTimeoutNanos <= 0 || heartbeatIntervalNanos < 0)
        {
            throw new IllegalArgumentException("session timeout " + sessionTimeoutNanos + " ns, heartbeat interval " +
                heartbeatIntervalNanos + " ns");
        }
    }

    public static FencingBounds ofMillis(final long sessionTimeoutMs, final long heartbeatIntervalNanos)
    {
        return new FencingBounds(TimeUnit.MILLISECONDS.toNanos(sessionTimeoutMs), heartbeatIntervalNanos);
    }

    /** B: how old the last confirmed ZooKeeper round trip may be for the node to serve. */
    public long currencyBoundNanos()
    {
        return sessionTimeoutNanos / 2;
    }

    /** How often a node confirms its session (four times per bound). */
    public long probeIntervalNanos()
    {
        return Math.max(1, currencyBoundNanos() / 4);
    }

    /** How often the node checks its currency (and fences when it lapsed). */
    public long watchTickNanos()
    {
        return Math.max(1, Math.min(MAX_WATCH_TICK_NANOS, currencyBoundNanos() / 20));
    }

    /** L: a client's read lease. */
    public long readLeaseNanos()
    {
        return HeartbeatMessage.READ_LEASE_INTERVALS * heartbeatIntervalNanos;
    }

    /** W: how long the coordinator waits, after it saw a primary gone, before it promotes a successor. */
    public long promotionWaitNanos()
    {
        final double served = (double)(currencyBoundNanos() + readLeaseNanos() + watchTickNanos()) *
            (1 + CLOCK_RATE_ERROR) / (1 - CLOCK_RATE_ERROR);
        return Math.max(0, (long)Math.ceil(served) - sessionTimeoutNanos) + MARGIN_NANOS;
    }

    @Override
    public String toString()
    {
        return "session " + ms(sessionTimeoutNanos) + " ms, currency bound " + ms(currencyBoundNanos()) +
            " ms, read lease " + ms(readLeaseNanos()) + " ms, promotion wait " + ms(promotionWaitNanos()) + " ms";
    }

    private static long ms(final long nanos)
    {
        return TimeUnit.NANOSECONDS.toMillis(nanos);
    }
}
