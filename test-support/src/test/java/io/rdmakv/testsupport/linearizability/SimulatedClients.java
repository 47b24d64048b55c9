package io.rdmakv.testsupport.linearizability;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.LongFunction;
import java.util.function.Supplier;

/**
 * Threads that run a random mix of operations against simulated registers, one per key, and
 * record what they saw: 40% gets, 30% puts of unique values, 10% deletes, 20% compare-and-sets
 * from the value the thread saw last. A fraction of the writes "time out": they are recorded with
 * an unknown outcome, and half of them really happen.
 *
 * @param threads         client threads
 * @param opsPerThread    operations each thread runs
 * @param keys            registers
 * @param unknownOutcomes fraction of operations recorded with an unknown outcome
 * @param yields          whether threads may yield before and after an operation takes effect (inside its
 *                        interval), stretching operations so that they overlap more
 */
record SimulatedClients(int threads, int opsPerThread, int keys, double unknownOutcomes, boolean yields)
{
    /** Clients that do not yield inside operations. */
    SimulatedClients(final int threads, final int opsPerThread, final int keys, final double unknownOutcomes)
    {
        this(threads, opsPerThread, keys, unknownOutcomes, false);
    }

    /** Runs the workload with {@code seed} against a register per key from {@code registers}. */
    KeyedHistory<Integer> run(final long seed, final Supplier<SimulatedRegister> registers)
    {
        final SimulatedRegister[] cells = new SimulatedRegister[keys];
        Arrays.setAll(cells, k -> registers.get());
        final KeyedHistory<Integer> history = new KeyedHistory<>();
        final CountDownLatch start = new CountDownLatch(1);
        final List<Callable<Void>> clients = new ArrayList<>();
        for (int t = 0; t < threads; t++)
        {
            final int thread = t;
            clients.add(() ->
            {
                start.await();
                client(thread, new SplittableRandom(seed * 7919 + thread), cells, history);
                return null;
            });
        }
        try (ExecutorService pool = Executors.newFixedThreadPool(threads))
        {
            final List<Future<Void>> running = clients.stream().map(pool::submit).toList();
            start.countDown();
            for (final Future<Void> f : running)
            {
                f.get();
            }
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        catch (final ExecutionException e)
        {
            throw new IllegalStateException(e.getCause());
        }
        return history;
    }

    private void client(final int thread, final SplittableRandom random, final SimulatedRegister[] cells,
                        final KeyedHistory<Integer> history)
    {
        final OptionalLong[] seen = new OptionalLong[keys];
        Arrays.fill(seen, OptionalLong.empty());
        for (int i = 0; i < opsPerThread; i++)
        {
            final int key = random.nextInt(keys);
            final long value = (thread + 1L) * 1_000_000 + i;
            final boolean unknown = random.nextDouble() < unknownOutcomes;
            final boolean happens = !unknown || random.nextBoolean();
            final long t0 = history.invoke();
            pause(random);
            final LongFunction<Op> respond = perform(thread, cells[key], seen, key, value, happens, random, t0);
            pause(random);
            final Op op = respond.apply(history.now());
            history.record(key, unknown ? op.withUnknownOutcome() : op);
        }
    }

    /** Runs one random operation; returns how to record it once its response time is known. */
    private static LongFunction<Op> perform(final int thread, final SimulatedRegister cell, final OptionalLong[] seen,
                                            final int key, final long value, final boolean happens,
                                            final SplittableRandom random, final long t0)
    {
        final int roll = random.nextInt(100);
        final OptionalLong expected = seen[key];
        if (roll < 40)
        {
            final OptionalLong read = cell.get(thread, random);
            seen[key] = read;
            return t1 -> Op.get(thread, t0, t1, read);
        }
        if (roll < 70)
        {
            if (happens)
            {
                cell.put(thread, value);
            }
            seen[key] = OptionalLong.of(value);
            return t1 -> Op.put(thread, value, t0, t1);
        }
        if (roll < 80)
        {
            final boolean existed = happens && cell.delete(thread);
            return t1 -> Op.delete(thread, t0, t1, existed);
        }
        final boolean swapped = happens && cell.compareAndSet(thread, expected, value);
        if (swapped)
        {
            seen[key] = OptionalLong.of(value);
        }
        return t1 -> Op.compareAndSet(thread, expected, value, t0, t1, swapped);
    }

    private void pause(final SplittableRandom random)
    {
        if (yields && random.nextBoolean())
        {
            Thread.yield();
        }
    }
}
