package io.rdmakv.verbs.conformance;

import io.rdmakv.verbs.AccessFlags;
import io.rdmakv.verbs.CompletionQueue;
import io.rdmakv.verbs.MemoryRegion;
import io.rdmakv.verbs.SendFlags;
import io.rdmakv.verbs.SendWorkRequest;
import io.rdmakv.verbs.WcOpcode;
import io.rdmakv.verbs.WorkCompletions;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * {@link CompletionQueue#await} blocks and is woken by its completion: a waiter that went to sleep with a
 * long timeout returns as soon as a completion that another thread caused arrives (a send's, a receive's),
 * and under a completion racing the waiter's own poll-arm-sleep sequence no wake-up is ever lost.
 */
final class BlockingWaitTest
{
    /** Far longer than any completion takes: a waiter that returns near it slept through its wake-up. */
    private static final long LONG_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(60);
    /** Long enough for the waiter to be asleep in the provider's wait, not still polling. */
    private static final long ASLEEP_MILLIS = 200;
    /**
     * A woken waiter returns within this of the post: a round trip plus a scheduler's worst moment, with
     * room for Soft-RoCE under emulation (an operation was seen to stall for seconds there), and still a
     * third of the waiter's timeout.
     */
    private static final long WOKEN_WITHIN_NANOS = TimeUnit.SECONDS.toNanos(20);
    private static final int STRESS_ROUNDS = 1_000;
    /** Per stress round: a waiter must not take longer than this (its timeout is {@link #LONG_TIMEOUT_NANOS}). */
    private static final long STRESS_ROUND_BOUND_NANOS = WOKEN_WITHIN_NANOS;

    /** What one {@code await} call returned, and when. */
    private record Wait(int rc, long wrId, int opcode, long returnedAt)
    {
    }

    @ProviderTest
    void awaitSleepingOnASendIsWokenByItsCompletion(final String provider) throws Exception
    {
        try (VerbsFixture fx = VerbsFixture.open(provider))
        {
            final VerbsFixture.Link link = fx.connectedPair();
            final MemoryRegion remote = fx.register(fx.server(), 64, VerbsFixture.REMOTE_ACCESS);
            final MemoryRegion local = fx.register(fx.client(), 64, AccessFlags.LOCAL_WRITE);
            final SendWorkRequest read = fx.sendRequests(1).at(0)
                .rdmaRead(local.address(), 8, local.lkey(), remote.address(), remote.rkey())
                .wrId(7).sendFlags(SendFlags.SIGNALED);

            final CompletableFuture<Wait> waiter = startWaiter(fx.client().cq());
            Thread.sleep(ASLEEP_MILLIS);
            assertTrue(!waiter.isDone(), "await returned before anything was posted: " + waiter.getNow(null));
            final long postedAt = System.nanoTime();
            VerbsFixture.postSend(link.client(), read);

            final Wait woken = waiter.get(LONG_TIMEOUT_NANOS + TimeUnit.SECONDS.toNanos(5), TimeUnit.NANOSECONDS);
            assertEquals(1, woken.rc(), "await's result");
            assertEquals(7, woken.wrId());
            assertEquals(WcOpcode.RDMA_READ, woken.opcode());
            assertWokenSoon(postedAt, woken);
        }
    }

    @ProviderTest
    void awaitSleepingOnAReceiveIsWokenByItsCompletion(final String provider) throws Exception
    {
        try (VerbsFixture fx = VerbsFixture.open(provider))
        {
            final VerbsFixture.Link link = fx.connectedPair();
            final MemoryRegion outbox = fx.register(fx.client(), 64, AccessFlags.LOCAL_WRITE);
            final MemoryRegion inbox = fx.register(fx.server(), 64, AccessFlags.LOCAL_WRITE);
            VerbsFixture.postReceive(link.server(),
                fx.receiveRequests(1).at(0).wrId(3).buffer(inbox.address(), 64, inbox.lkey()));

            final CompletableFuture<Wait> waiter = startWaiter(fx.server().cq());
            Thread.sleep(ASLEEP_MILLIS);
            assertTrue(!waiter.isDone(), "await returned before anything was sent: " + waiter.getNow(null));
            final long postedAt = System.nanoTime();
            VerbsFixture.postSend(link.client(), fx.sendRequests(1).at(0).send(outbox.address(), 24, outbox.lkey())
                .wrId(4).sendFlags(SendFlags.SIGNALED));

            final Wait woken = waiter.get(LONG_TIMEOUT_NANOS + TimeUnit.SECONDS.toNanos(5), TimeUnit.NANOSECONDS);
            assertEquals(1, woken.rc(), "await's result");
            assertEquals(3, woken.wrId());
            assertEquals(WcOpcode.RECV, woken.opcode());
            assertWokenSoon(postedAt, woken);
            fx.awaitOne(fx.client().cq()).assertSuccess(4, WcOpcode.SEND, link.client().qpNum());
        }
    }

    /**
     * A thousand rounds in which the completion races the waiter: the waiter calls {@code await} (poll,
     * arm, poll again, sleep) while the test thread posts after a random delay of 0 to 200 us, so the
     * completion lands before, during and after each step. Every round's wait must return its completion
     * long before its 60 s timeout; a lost wake-up shows as a round that takes the whole timeout.
     */
    @ProviderTest
    void noWakeUpIsLostWhenCompletionsRaceTheWaiter(final String provider) throws Exception
    {
        try (VerbsFixture fx = VerbsFixture.open(provider))
        {
            final VerbsFixture.Link link = fx.connectedPair();
            final MemoryRegion remote = fx.register(fx.server(), 64, VerbsFixture.REMOTE_ACCESS);
            final MemoryRegion local = fx.register(fx.client(), 64, AccessFlags.LOCAL_WRITE);
            final SendWorkRequest read = fx.sendRequests(1).at(0)
                .rdmaRead(local.address(), 8, local.lkey(), remote.address(), remote.rkey())
                .sendFlags(SendFlags.SIGNALED);
            final CompletionQueue cq = fx.client().cq();
            final Semaphore go = new Semaphore(0);
            final Semaphore done = new Semaphore(0);
            final long[] took = new long[STRESS_ROUNDS];
            final long[] gotWrId = new long[STRESS_ROUNDS];
            final Thread waiter = Thread.ofPlatform().name("blocking-wait-stress").start(() ->
            {
                try (WorkCompletions one = WorkCompletions.allocate(1))
                {
                    for (int round = 0; round < STRESS_ROUNDS; round++)
                    {
                        go.acquireUninterruptibly();
                        final long start = System.nanoTime();
                        final int rc = cq.await(one, LONG_TIMEOUT_NANOS);
                        took[round] = System.nanoTime() - start;
                        gotWrId[round] = rc == 1 && one.at(0).status() == 0 ? one.at(0).wrId() : -rc - 1_000;
                        done.release();
                    }
                }
            });
            for (int round = 0; round < STRESS_ROUNDS; round++)
            {
                go.release();
                final long delay = ThreadLocalRandom.current().nextLong(200_000);
                final long until = System.nanoTime() + delay;
                while (System.nanoTime() - until < 0)
                {
                    Thread.onSpinWait();
                }
                VerbsFixture.postSend(link.client(), read.wrId(round));
                if (!done.tryAcquire(LONG_TIMEOUT_NANOS + TimeUnit.SECONDS.toNanos(5), TimeUnit.NANOSECONDS))
                {
                    fail("round " + round + ": the waiter never returned");
                }
                assertEquals(round, gotWrId[round], "round " + round + ": what await returned");
                final int r = round;
                assertTrue(took[round] < STRESS_ROUND_BOUND_NANOS, () -> "round " + r + ": await took " +
                    TimeUnit.NANOSECONDS.toMillis(took[r]) + " ms for a completion posted within 0.2 ms: a lost " +
                    "wake-up");
            }
            waiter.join(TimeUnit.SECONDS.toMillis(5));
        }
    }

    /** A thread that signals nothing, calls {@code await} once with the long timeout and reports what it got. */
    private static CompletableFuture<Wait> startWaiter(final CompletionQueue cq)
    {
        final CompletableFuture<Wait> result = new CompletableFuture<>();
        Thread.ofPlatform().name("blocking-waiter").start(() ->
        {
            try (WorkCompletions one = WorkCompletions.allocate(1))
            {
                final int rc = cq.await(one, LONG_TIMEOUT_NANOS);
                result.complete(rc == 1 ? new Wait(rc, one.at(0).wrId(), one.at(0).opcode(), System.nanoTime()) :
                    new Wait(rc, -1, -1, System.nanoTime()));
            }
            catch (final Throwable t)
            {
                result.completeExceptionally(t);
            }
        });
        return result;
    }

    private static void assertWokenSoon(final long postedAt, final Wait woken)
    {
        final long after = woken.returnedAt() - postedAt;
        assertTrue(after < WOKEN_WITHIN_NANOS, () -> "the waiter returned " + TimeUnit.NANOSECONDS.toMillis(after) +
            " ms after the post: it slept through its completion");
    }
}
