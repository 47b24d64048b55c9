package io.rdmakv.peer;

import io.rdmakv.peer.WaitStrategy;
import io.rdmakv.verbs.CompletionQueue;
import io.rdmakv.verbs.Context;
import io.rdmakv.verbs.WcOpcode;
import io.rdmakv.verbs.WorkCompletions;
import org.agrona.concurrent.NanoClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What each {@link WaitStrategy} does with a completion queue: when it polls, when it blocks, for how long. */
final class SessionWaiterTest
{
    private static final long SECOND = TimeUnit.SECONDS.toNanos(1);

    /** Completes after a given number of polls; {@code await} completes at once and is counted. */
    private static final class CountingQueue implements CompletionQueue
    {
        private int pollsUntilReady;
        private int polls;
        private int awaits;
        private long lastAwaitTimeout;

        CountingQueue(final int pollsUntilReady)
        {
            this.pollsUntilReady = pollsUntilReady;
        }

        @Override
        public int poll(final WorkCompletions into)
        {
            polls++;
            if (pollsUntilReady > 0 && --pollsUntilReady == 0)
            {
                into.at(0).fill(9, 0, WcOpcode.RDMA_READ, 8, 1);
                return 1;
            }
            return 0;
        }

        @Override
        public int await(final WorkCompletions into, final long timeoutNanos)
        {
            awaits++;
            lastAwaitTimeout = timeoutNanos;
            into.at(0).fill(9, 0, WcOpcode.RDMA_READ, 8, 1);
            return 1;
        }

        @Override
        public Context context()
        {
            return null;
        }

        @Override
        public int capacity()
        {
            return 16;
        }

        @Override
        public void close()
        {
        }
    }

    private final WorkCompletions completions = WorkCompletions.allocate(4);
    /** A clock that moves 1 us at each read: a spin ends after a known number of polls, however slow the machine. */
    private long now = 1_000_000_000L;
    private final NanoClock clock = () -> now += 1_000;

    @AfterEach
    void free()
    {
        completions.close();
    }

    @Test
    void busySpinPollsUntilTheCompletionAndNeverBlocks()
    {
        final CountingQueue cq = new CountingQueue(500);
                final SessionWaiter waiter = new SessionWaiter(WaitStrategy.BUSY_SPIN, clock);
        assertEquals(1, waiter.await(cq, completions, now, now + 10 * SECOND));
        assertEquals(500, cq.polls);
        assertEquals(0, cq.awaits);
    }

    @Test
    void busySpinReturnsNothingAtTheDeadline()
    {
        final CountingQueue cq = new CountingQueue(0);
                final SessionWaiter waiter = new SessionWaiter(WaitStrategy.BUSY_SPIN, clock);
        assertEquals(0, waiter.await(cq, completions, now, now + 1_000_000));
        assertEquals(0, cq.awaits);
        assertTrue(cq.polls >= 1_000, "returned before the deadline, after " + cq.polls + " polls");
    }

    @Test
    void blockingGoesStraightToTheQueuesAwaitForTheTimeLeft()
    {
        final CountingQueue cq = new CountingQueue(0);
        final SessionWaiter waiter = new SessionWaiter(WaitStrategy.BLOCKING, clock);
        assertEquals(1, waiter.await(cq, completions, now, now + 10 * SECOND));
        assertEquals(0, cq.polls, "no poll of its own: the queue's await polls after arming");
        assertEquals(1, cq.awaits);
        assertTrue(cq.lastAwaitTimeout > 9 * SECOND && cq.lastAwaitTimeout <= 10 * SECOND,
            "blocks for the time left: " + cq.lastAwaitTimeout);
    }

    @Test
    void adaptiveCatchesACompletionWithinItsSpinWithoutBlocking()
    {
        final CountingQueue cq = new CountingQueue(3);
                final SessionWaiter waiter = new SessionWaiter(WaitStrategy.ADAPTIVE, clock);
        assertEquals(1, waiter.await(cq, completions, now, now + 10 * SECOND));
        assertEquals(0, cq.awaits);
    }

    @Test
    void adaptiveBlocksOnceItsSpinOfAboutOneRoundTripIsSpent()
    {
        final CountingQueue cq = new CountingQueue(0);
        final SessionWaiter waiter = new SessionWaiter(WaitStrategy.ADAPTIVE, clock);
        assertEquals(1, waiter.await(cq, completions, now, now + 10 * SECOND));
        assertEquals(1, cq.awaits);
        final long budgetPolls = waiter.spinBudgetNanos() / 1_000;
        assertTrue(cq.polls >= budgetPolls - 2 && cq.polls <= budgetPolls + 2, "polled " + cq.polls +
            " times (1 us each) before blocking; budget " + waiter.spinBudgetNanos() + " ns");
    }

    @Test
    void adaptiveDoesNotSpinForWorkPostedLongerAgoThanItsBudget()
    {
        final CountingQueue cq = new CountingQueue(0);
                final long postedLongAgo = now - SECOND;
        assertEquals(1, new SessionWaiter(WaitStrategy.ADAPTIVE, clock).await(cq, completions, postedLongAgo,
            now + SECOND));
        assertEquals(0, cq.polls, "straight to the blocking wait, which polls after arming");
        assertEquals(1, cq.awaits);
    }

    @Test
    void aLaneWhoseSpinsKeepMissingBlocksAtOnceAndProbesNowAndThen()
    {
        final SessionWaiter waiter = new SessionWaiter(WaitStrategy.ADAPTIVE, clock);
        for (int i = 0; i < 20; i++)
        {
            waiter.await(new CountingQueue(0), completions, now, now + 10 * SECOND);
        }
        assertTrue(waiter.spinHits() < SessionWaiter.HITS_ONE / 2, "hit ratio after 20 missed spins: " +
            waiter.spinHits());
        int spins = 0;
        for (int i = 0; i < SessionWaiter.PROBE_EVERY; i++)
        {
            final CountingQueue cq = new CountingQueue(0);
            assertEquals(1, waiter.await(cq, completions, now, now + 10 * SECOND));
            assertEquals(1, cq.awaits);
            spins += cq.polls > 1 ? 1 : 0;
        }
        assertEquals(1, spins, "one probing spin in " + SessionWaiter.PROBE_EVERY + " waits, the others block at once");
        for (int i = 0; i < 200; i++)
        {
            waiter.await(new CountingQueue(2), completions, now, now + 10 * SECOND);
        }
        final CountingQueue caught = new CountingQueue(3);
        waiter.await(caught, completions, now, now + 10 * SECOND);
        assertEquals(0, caught.awaits, "spinning again once the probes keep catching their completions");
    }

    @Test
    void strategiesParseFromTheirLabelsAndABadOneIsNamed()
    {
        assertEquals(WaitStrategy.BUSY_SPIN, WaitStrategy.parse("busy-spin"));
        assertEquals(WaitStrategy.ADAPTIVE, WaitStrategy.parse(" Adaptive "));
        assertEquals(WaitStrategy.BLOCKING, WaitStrategy.parse("blocking"));
        final IllegalArgumentException e =
            assertThrows(IllegalArgumentException.class, () -> WaitStrategy.parse("spin"));
        assertTrue(e.getMessage().contains("'spin'") && e.getMessage().contains("busy-spin"), e.getMessage());
    }
}
