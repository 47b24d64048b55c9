package io.rdmakv.verbs.conformance;

import io.rdmakv.verbs.AccessFlags;
import io.rdmakv.verbs.CompletionQueue;
import io.rdmakv.verbs.MemoryRegion;
import io.rdmakv.verbs.SendFlags;
import io.rdmakv.verbs.WcOpcode;
import io.rdmakv.verbs.WorkCompletions;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * {@link CompletionQueue#wakeup} ends a thread's {@link CompletionQueue#await} without a completion: a
 * waiter asleep with a long timeout returns 0 soon after another thread's wake-up, a wake-up that comes
 * before the wait ends that wait at once, and under wake-ups racing the waiter's own poll-arm-sleep
 * sequence none is lost. Waking neither consumes nor hides completions.
 */
final class WakeupTest
{
    /** Far longer than a wake-up takes: a waiter that returns near it slept through its wake-up. */
    private static final long LONG_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(60);
    /** Long enough for the waiter to be asleep in the provider's wait, not still polling. */
    private static final long ASLEEP_MILLIS = 200;
    /** A woken waiter returns within this of the wake-up: a scheduler's worst moment on a loaded machine. */
    private static final long WOKEN_WITHIN_NANOS = TimeUnit.SECONDS.toNanos(5);
    private static final int STRESS_ROUNDS = 1_000;

    /** What one {@code await} call returned, and when. */
    private record Wait(int rc, long returnedAt)
    {
    }

    @ProviderTest
    void awaitSleepingIsWokenByAnotherThreadsWakeup(final String provider) throws Exception
    {
        try (VerbsFixture fx = VerbsFixture.open(provider))
        {
            final CompletionQueue cq = fx.client().cq();
            final CompletableFuture<Wait> waiter = startWaiter(cq);
            Thread.sleep(ASLEEP_MILLIS);
            assertFalse(waiter.isDone(), "await returned before anything happened: " + waiter.getNow(null));
            final long wokenAt = System.nanoTime();
            cq.wakeup();

            final Wait woken = waiter.get(LONG_TIMEOUT_NANOS + TimeUnit.SECONDS.toNanos(5), TimeUnit.NANOSECONDS);
            assertEquals(0, woken.rc(), "await's result: woken, nothing polled");
            final long after = woken.returnedAt() - wokenAt;
            assertTrue(after < WOKEN_WITHIN_NANOS, () -> "the waiter returned " +
                TimeUnit.NANOSECONDS.toMillis(after) + " ms after the wake-up: it slept through it");
            completionsStillArrive(fx, 21);
        }
    }

    @ProviderTest
    void aWakeupBeforeTheWaitEndsTheNextWait(final String provider) throws Exception
    {
        try (VerbsFixture fx = VerbsFixture.open(provider); WorkCompletions one = WorkCompletions.allocate(1))
        {
            final CompletionQueue cq = fx.client().cq();
            cq.wakeup();
            final long start = System.nanoTime();
            assertEquals(0, cq.await(one, LONG_TIMEOUT_NANOS), "await's result: woken, nothing polled");
            final long took = System.nanoTime() - start;
            assertTrue(took < WOKEN_WITHIN_NANOS, () -> "await took " + TimeUnit.NANOSECONDS.toMillis(took) +
                " ms after a wake-up that came before it: the wake-up was lost");
            completionsStillArrive(fx, 22);
        }
    }

    /**
     * A thousand rounds in which the wake-up races the waiter: the waiter calls {@code await} (poll, arm,
     * poll again, sleep) while the test thread wakes it after a random delay of 0 to 200 us, so the wake-up
     * lands before, during and after each step. Every round's wait must return long before its 60 s
     * timeout; a lost wake-up shows as a round that takes the whole timeout.
     */
    @ProviderTest
    void noWakeupIsLostWhenWakeupsRaceTheWaiter(final String provider) throws Exception
    {
        try (VerbsFixture fx = VerbsFixture.open(provider))
        {
            final CompletionQueue cq = fx.client().cq();
            final Semaphore go = new Semaphore(0);
            final Semaphore done = new Semaphore(0);
            final long[] took = new long[STRESS_ROUNDS];
            final int[] rc = new int[STRESS_ROUNDS];
            final Thread waiter = Thread.ofPlatform().name("wakeup-stress").start(() ->
            {
                try (WorkCompletions one = WorkCompletions.allocate(1))
                {
                    for (int round = 0; round < STRESS_ROUNDS; round++)
                    {
                        go.acquireUninterruptibly();
                        final long start = System.nanoTime();
                        rc[round] = cq.await(one, LONG_TIMEOUT_NANOS);
                        took[round] = System.nanoTime() - start;
                        done.release();
                    }
                }
            });
            for (int round = 0; round < STRESS_ROUNDS; round++)
            {
                go.release();
                final long until = System.nanoTime() + ThreadLocalRandom.current().nextLong(200_000);
                while (System.nanoTime() - until < 0)
                {
                    Thread.onSpinWait();
                }
                cq.wakeup();
                if (!done.tryAcquire(LONG_TIMEOUT_NANOS + TimeUnit.SECONDS.toNanos(5), TimeUnit.NANOSECONDS))
                {
                    fail("round " + round + ": the waiter never returned");
                }
                assertEquals(0, rc[round], "round " + round + ": what await returned");
                final int r = round;
                assertTrue(took[round] < WOKEN_WITHIN_NANOS, () -> "round " + r + ": await took " +
                    TimeUnit.NANOSECONDS.toMillis(took[r]) + " ms for a wake-up within 0.2 ms: a lost wake-up");
            }
            waiter.join(TimeUnit.SECONDS.toMillis(5));
            completionsStillArrive(fx, 23);
        }
    }

    @ProviderTest
    void aWakeupOfAClosedQueueDoesNothing(final String provider)
    {
        try (VerbsFixture fx = VerbsFixture.open(provider))
        {
            final CompletionQueue cq = fx.client().context().createCompletionQueue(16);
            cq.close();
            cq.wakeup();
            cq.wakeup();
            completionsStillArrive(fx, 24);
        }
    }

    /** After the wake-ups, a READ's completion is still delivered by the client's queue. */
    private static void completionsStillArrive(final VerbsFixture fx, final long wrId)
    {
        final VerbsFixture.Link link = fx.connectedPair();
        final MemoryRegion remote = fx.register(fx.server(), 64, VerbsFixture.REMOTE_ACCESS);
        final MemoryRegion local = fx.register(fx.client(), 64, AccessFlags.LOCAL_WRITE);
        VerbsFixture.postSend(link.client(), fx.sendRequests(1).at(0)
            .rdmaRead(local.address(), 8, local.lkey(), remote.address(), remote.rkey())
            .wrId(wrId).sendFlags(SendFlags.SIGNALED));
        fx.awaitOne(fx.client().cq()).assertSuccess(wrId, WcOpcode.RDMA_READ, link.client().qpNum());
    }

    /** A thread that calls {@code await} once with the long timeout and reports what it got. */
    private static CompletableFuture<Wait> startWaiter(final CompletionQueue cq)
    {
        final CompletableFuture<Wait> result = new CompletableFuture<>();
        Thread.ofPlatform().name("wakeup-waiter").start(() ->
        {
            try (WorkCompletions one = WorkCompletions.allocate(1))
            {
                result.complete(new Wait(cq.await(one, LONG_TIMEOUT_NANOS), System.nanoTime()));
            }
            catch (final Throwable t)
            {
                result.completeExceptionally(t);
            }
        });
        return result;
    }
}
