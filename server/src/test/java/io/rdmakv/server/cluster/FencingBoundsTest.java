package io.rdmakv.server.cluster;

import io.rdmakv.common.protocol.HeartbeatMessage;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The fencing bounds keep the safety inequality of docs/design.md for every session timeout and interval. */
class FencingBoundsTest
{
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    @Test
    void theDefaultsOfATestClusterGiveTheDocumentedFigures()
    {
        final FencingBounds b = FencingBounds.ofMillis(2000, 500 * MS);
        assertEquals(1000 * MS, b.currencyBoundNanos());
        assertEquals(250 * MS, b.probeIntervalNanos());
        assertEquals(HeartbeatMessage.READ_LEASE_INTERVALS * 500 * MS, b.readLeaseNanos());
        // (1000 + 1500 + 50) * 1.01 / 0.99 - 2000 = 601.52 ms, + 100 ms margin (the watch tick is B / 20 = 50 ms)
        assertEquals(701, TimeUnit.NANOSECONDS.toMillis(b.promotionWaitNanos()));
    }

    @Test
    void aLongSessionNeedsOnlyTheMargin()
    {
        final FencingBounds b = FencingBounds.ofMillis(10_000, 500 * MS);
        assertEquals(FencingBounds.MARGIN_NANOS, b.promotionWaitNanos());
    }

    /**
     * The inequality itself, with clocks at the worst rates: the primary's session expires no earlier than S (at
     * the slowest rate) after its last confirmed round trip was sent; the successor is promoted W (slowest) after
     * that; the primary fences by B + tick and its leases end by B + L (fastest). The promotion must come later.
     */
    @Test
    void promotionComesAfterEveryLeaseAndFenceAtTheWorstClockRates()
    {
        final double r = FencingBounds.CLOCK_RATE_ERROR;
        for (final long sessionMs : new long[] {100, 400, 2000, 4000, 10_000, 40_000})
        {
            for (final long heartbeatMs : new long[] {0, 10, 100, 500, 1000, 5000})
            {
                final FencingBounds b = FencingBounds.ofMillis(sessionMs, heartbeatMs * MS);
                final double promotedAt = (b.sessionTimeoutNanos() + b.promotionWaitNanos()) * (1 - r);
                final double servedUntil = (b.currencyBoundNanos() + Math.max(b.readLeaseNanos(),
                    b.watchTickNanos()) + b.watchTickNanos()) * (1 + r);
                assertTrue(promotedAt > servedUntil, b + ": promoted at " + promotedAt + " ns, served until " +
                    servedUntil + " ns");
            }
        }
    }

    @Test
    void nonsenseIsRefused()
    {
        assertThrows(IllegalArgumentException.class, () -> new FencingBounds(0, 1));
        assertThrows(IllegalArgumentException.class, () -> new FencingBounds(1, -1));
    }
}
