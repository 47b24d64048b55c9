package io.rdmakv.verbs.conformance;

import io.rdmakv.verbs.AccessFlags;
import io.rdmakv.verbs.CompletionQueue;
import io.rdmakv.verbs.ConnectOptions;
import io.rdmakv.verbs.MemoryRegion;
import io.rdmakv.verbs.QueuePair;
import io.rdmakv.verbs.QueuePairConfig;
import io.rdmakv.verbs.SendFlags;
import io.rdmakv.verbs.SendWorkRequest;
import io.rdmakv.verbs.WcOpcode;
import org.junit.jupiter.api.Assumptions;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicIntegerArray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Atomics under contention, with exact outcomes: many queue pairs (each on its own thread, with its own
 * completion queue) on one remote word, and remote atomics racing the owner's CPU.
 */
final class ConcurrencyTest
{
    private static final int THREADS = 8;
    private static final long TASKS_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(60);
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    /** One requester: its own queue pair, completion queue, work request and 64 bytes of local memory. */
    private record Requester(QueuePair qp, CompletionQueue cq, SendWorkRequest wr, MemoryRegion local, long slot)
    {
        long address()
        {
            return local.address() + slot;
        }

        long word(final long offset)
        {
            return Memory.word(local.segment(), slot + offset);
        }

        /** Posts the work request signaled and fails unless it completes successfully. */
        void execute(final CompletionWaiter waiter, final long wrId)
        {
            wr.wrId(wrId).sendFlags(SendFlags.SIGNALED);
            VerbsFixture.postSend(qp, wr);
            waiter.awaitOne(cq).assertSuccess(wrId, WcOpcode.ofSendOpcode(wr.opcode()), qp.qpNum());
        }
    }

    @ProviderTest
    void fetchAndAddFromEightQueuePairsOnOneWordIsExact(final String provider) throws Exception
    {
        final int perThread = 2000;
        final int total = THREADS * perThread;
        try (VerbsFixture fx = VerbsFixture.open(provider))
        {
            KnownDeviations.requireRemoteAtomics(fx);
            final MemoryRegion remote = fx.register(fx.server(), 64, VerbsFixture.REMOTE_ACCESS);
            final List<Requester> requesters = requesters(fx, THREADS);
            final long[][] originals = new long[THREADS][perThread];
            final List<Concurrently.Task> tasks = new ArrayList<>();
            for (int t = 0; t < THREADS; t++)
            {
                final Requester r = requesters.get(t);
                final long[] mine = originals[t];
                tasks.add(() ->
                {
                    try (CompletionWaiter waiter = new CompletionWaiter())
                    {
                        r.wr().fetchAndAdd(r.address(), r.local().lkey(), remote.address(), remote.rkey(), 1);
                        for (int i = 0; i < perThread; i++)
                        {
                            r.execute(waiter, i);
                            mine[i] = r.word(0);
                        }
                    }
                });
            }
            Concurrently.run(TASKS_TIMEOUT_NANOS, tasks);

            assertEquals(total, Memory.word(remote.segment(), 0), "the word after " + total + " FAA of 1");
            // Each FAA saw a different value, so together they saw exactly 0 .. total-1.
            final BitSet seen = new BitSet(total);
            for (int t = 0; t < THREADS; t++)
            {
                for (int i = 0; i < perThread; i++)
                {
                    final long v = originals[t][i];
                    assertTrue(v >= 0 && v < total, "FAA returned " + v);
                    assertTrue(!seen.get((int)v), "two FAA returned " + v);
                    seen.set((int)v);
                    assertTrue(i == 0 || v > originals[t][i - 1], "one queue pair's FAA went backwards: " + v);
                }
            }
        }
    }

    @ProviderTest
    void remoteFetchAndAddIsAtomicAgainstTheOwnersCpu(final String provider) throws Exception
    {
        final int remoteAdds = 5000;
        try (VerbsFixture fx = VerbsFixture.open(provider))
        {
            KnownDeviations.requireRemoteAtomics(fx);
            final String capability = fx.server().context().attributes().atomicCapability();
            Assumptions.assumeTrue("GLOB".equals(capability), "device atomics are atomic against the CPU only with " +
                "atomic capability GLOB; this device reports " + capability);
            final MemoryRegion remote = fx.register(fx.server(), 64, VerbsFixture.REMOTE_ACCESS);
            final MemorySegment word = remote.segment();
            final Requester r = requesters(fx, 1).getFirst();
            final long[] originals = new long[remoteAdds];
            final long[] cpuAdds = new long[1];
            final CountDownLatch cpuStarted = new CountDownLatch(1);
            final AtomicBoolean remoteDone = new AtomicBoolean();

            final Concurrently.Task remoteTask = () ->
            {
                try (CompletionWaiter waiter = new CompletionWaiter())
                {
                    assertTrue(cpuStarted.await(VerbsFixture.WAIT_NANOS, TimeUnit.NANOSECONDS), "CPU thread start");
                    r.wr().fetchAndAdd(r.address(), r.local().lkey(), remote.address(), remote.rkey(), 1);
                    for (int i = 0; i < remoteAdds; i++)
                    {
                        r.execute(waiter, i);
                        originals[i] = r.word(0);
                    }
                }
                finally
                {
                    remoteDone.set(true);
                }
            };
            final Concurrently.Task cpuTask = () ->
            {
                long n = 0;
                do
                {
                    final long unused = (long)LONG.getAndAdd(word, 0L, 1L);
                    n++;
                    cpuStarted.countDown();
                    Thread.onSpinWait();
                }
                while (!remoteDone.get());
                cpuAdds[0] = n;
            };
            Concurrently.run(TASKS_TIMEOUT_NANOS, List.of(remoteTask, cpuTask));

            assertEquals(remoteAdds + cpuAdds[0], Memory.word(word, 0),
                remoteAdds + " remote and " + cpuAdds[0] + " local adds of 1");
            for (int i = 1; i < remoteAdds; i++)
            {
                assertTrue(originals[i] > originals[i - 1], "FAA " + i + " returned " + originals[i] + " after " +
                    originals[i - 1]);
            }
        }
    }

    /**
     * Round r: every thread waits (READing the word) until it is at least r, then tries CAS(r, r+1). The
     * word takes the value r exactly once, so exactly one CAS per round may return r (the winner); every
     * other returns more than r.
     */
    @ProviderTest
    void racingCompareAndSwapHasExactlyOneWinnerPerRound(final String provider) throws Exception
    {
        final int rounds = 200;
        try (VerbsFixture fx = VerbsFixture.open(provider))
        {
            KnownDeviations.requireRemoteAtomics(fx);
            final MemoryRegion remote = fx.register(fx.server(), 64, VerbsFixture.REMOTE_ACCESS);
            final List<Requester> requesters = requesters(fx, THREADS);
            final AtomicIntegerArray winners = new AtomicIntegerArray(rounds);
            final List<Concurrently.Task> tasks = new ArrayList<>();
            for (int t = 0; t < THREADS; t++)
            {
                final Requester r = requesters.get(t);
                final int thread = t;
                tasks.add(() ->
                {
                    try (CompletionWaiter waiter = new CompletionWaiter())
                    {
                        long wrId = 0;
                        long known = -1;
                        for (int round = 0; round < rounds; round++)
                        {
                            final long deadline = System.nanoTime() + VerbsFixture.WAIT_NANOS;
                            while (known < round)
                            {
                                if (System.nanoTime() - deadline > 0)
                                {
                                    fail("thread " + thread + " waited too long for round " + round + "; word: " +
                                        known);
                                }
                                r.wr().rdmaRead(r.address() + 8, 8, r.local().lkey(), remote.address(), remote.rkey());
                                r.execute(waiter, wrId++);
                                known = r.word(8);
                            }
                            r.wr().compareAndSwap(
                                r.address(), r.local().lkey(), remote.address(), remote.rkey(), round, round + 1);
                            r.execute(waiter, wrId++);
                            final long original = r.word(0);
                            if (original == round)
                            {
                                winners.incrementAndGet(round);
                                known = round + 1;
                            }
                            else
                            {
                                if (original < round)
                                {
                                    fail("CAS in round " + round + " saw " + original + " after a READ saw " + known +
                                        ": the word went backwards");
                                }
                                known = original;
                            }
                        }
                    }
                });
            }
            Concurrently.run(TASKS_TIMEOUT_NANOS, tasks);

            for (int round = 0; round < rounds; round++)
            {
                assertEquals(1, winners.get(round), "winners of round " + round);
            }
            assertEquals(rounds, Memory.word(remote.segment(), 0), "the word after " + rounds + " rounds");
        }
    }

    /** {@code n} requesters, each with its own completion queue and queue pair connected to the server side. */
    private static List<Requester> requesters(final VerbsFixture fx, final int n)
    {
        final MemoryRegion local = fx.register(fx.client(), 64L * n, AccessFlags.LOCAL_WRITE);
        final List<Requester> requesters = new ArrayList<>(n);
        for (int i = 0; i < n; i++)
        {
            final CompletionQueue cq = fx.createCompletionQueue(fx.client(), 64);
            final VerbsFixture.Link link = fx.connectedPair(
                QueuePairConfig.of(cq, 16, 1), ConnectOptions.DEFAULT,
                QueuePairConfig.of(fx.server().cq(), 16, 1), ConnectOptions.DEFAULT);
            requesters.add(new Requester(link.client(), cq, fx.sendRequests(1).at(0), local, 64L * i));
        }
        return requesters;
    }
}
