package io.rdmakv.verbs.util;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The adaptive wait's policy alone: its spin budget, and when it says to spin. */
final class AdaptiveSpinTest
{
    @Test
    void theSpinBudgetFollowsTheRoundTripsAndIsCapped()
    {
        final AdaptiveSpin waiter = new AdaptiveSpin();
        for (int i = 0; i < 200; i++)
        {
            waiter.roundTrip(4_000);
        }
        assertTrue(Math.abs(waiter.roundTripNanos() - 4_000) < 100, "estimate " + waiter.roundTripNanos());
        assertEquals(5_000, waiter.spinBudgetNanos(), "one and a quarter round trips");
        for (int i = 0; i < 200; i++)
        {
            waiter.roundTrip(10_000_000);
        }
        assertEquals(AdaptiveSpin.SPIN_CAP_NANOS, waiter.spinBudgetNanos(), "capped");
    }

    @Test
    void spinsWhileSpinsCatchAndOnlyProbesOnceTheyKeepMissing()
    {
        final AdaptiveSpin policy = new AdaptiveSpin();
        assertTrue(wait(policy, true), "a fresh waiter spins");
        for (int i = 0; i < 20; i++)
        {
            wait(policy, false);
        }
        assertTrue(policy.spinHits() < AdaptiveSpin.HITS_ONE / 2, "hit ratio after 21 missed spins: " +
            policy.spinHits());
        int spins = 0;
        for (int i = 0; i < AdaptiveSpin.PROBE_EVERY; i++)
        {
            spins += wait(policy, false) ? 1 : 0;
        }
        assertEquals(1, spins, "one probing spin in " + AdaptiveSpin.PROBE_EVERY + " waits");
    }

    /** One wait whose spin, if the policy says spin, catches its completion or not; returns whether it spun. */
    private static boolean wait(final AdaptiveSpin policy, final boolean caught)
    {
        final boolean spin = policy.enter();
        try
        {
            if (spin)
            {
                policy.spun(caught);
            }
            return spin;
        }
        finally
        {
            policy.exit();
        }
    }
}
