package io.rdmakv.testsupport.linearizability;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
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
 * Clients that run a random mix of operations against simulated registers, one per key, and
 * record what they saw: 40% gets, 30% puts of unique values, 10% deletes, 20% compare-and-sets
 * from the value the client saw last. A fraction of the writes "time out": they are recorded with
 * an unknown outcome, and half of them really happen.
 *
 * <p>{@link #run} runs the clients as real threads, so the history depends on how the machine
 * schedules them as well as on the seed; {@link #simulate} interleaves them on the calling thread
 * by a schedule drawn from the seed, so the history depends on the seed alone.
 *
 * @param threads         clients
 * @param opsPerThread    operations each client runs
 * @param keys            registers
 * @param unknownOutcomes fraction of operations recorded with an unknown outcome
 * @param yields          whether clients may yield before and after an operation takes effect (inside its
 *                        interval), stretching operations so that they overlap more
 */
record SimulatedClients(int threads, int opsPerThread, int keys, double unknownOutcomes, boolean yields)
{
    /** {@link #simulate}: the chance that the scheduler preempts the running client after a step. */
    private static final double PREEMPTION = 1.0 / 64;

    /** Clients that do not yield inside operations. */
    SimulatedClients(final int threads, final int opsPerThread, final int keys, final double unknownOutcomes)
    {
        this(threads, opsPerThread, keys, unknownOutcomes, false);
    }

    /** Runs the workload with {@code seed} as real threads against a register per key from {@code registers}. */
    KeyedHistory<Integer> run(final long seed, final Supplier<SimulatedRegister> registers)
    {
        final SimulatedRegister[] cells = cells(registers);
        final KeyedHistory<Integer> history = new KeyedHistory<>();
        final CountDownLatch start = new CountDownLatch(1);
        final List<Callable<Void>> clients = new ArrayList<>();
        for (int t = 0; t < threads; t++)
        {
            final Client client = new Client(t, seed, cells, history);
            clients.add(() ->
            {
                start.await();
                while (!client.done())
                {
                    client.invoke(history.invoke());
                    pause(client.random);
                    client.perform();
                    pause(client.random);
                    client.respond(history.now());
                }
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

    /**
     * Runs the workload with {@code seed} on the calling thread against a register per key from
     * {@code registers}, as a scheduler of one processor would run the threads of {@link #run}:
     * the clients wait in a round-robin queue, the one at its head runs, one step of an operation
     * (invocation, effect, response) per tick of a logical clock, the timestamps. The running client
     * goes to the back of the queue when it yields (if it {@link #yields}, with probability one half
     * at each of the two pauses inside an operation, like the threads of {@link #run}) or when the
     * scheduler preempts it (probability {@link #PREEMPTION} after any step). Each client makes the
     * random choices that {@link #run}'s thread makes with the same seed; the scheduler draws from
     * the seed too, so the same seed gives the same history, on any machine. With {@link #yields}
     * and 16 clients, 15 operations are invoked while one runs (median; 30 at the 90th percentile),
     * about as many as in {@link #run}'s histories on a two-core machine (15; 31).
     */
    KeyedHistory<Integer> simulate(final long seed, final Supplier<SimulatedRegister> registers)
    {
        final SimulatedRegister[] cells = cells(registers);
        final KeyedHistory<Integer> history = new KeyedHistory<>();
        final Deque<Client> queue = new ArrayDeque<>();
        for (int t = 0; t < threads; t++)
        {
            queue.add(new Client(t, seed, cells, history));
        }
        final SplittableRandom scheduler = new SplittableRandom(~seed);
        long clock = 0;
        while (!queue.isEmpty())
        {
            final Client client = queue.peek();
            client.step(clock++);
            if (client.done())
            {
                queue.remove();
            }
            else if (client.paused() && yields && client.random.nextBoolean()
                || scheduler.nextDouble() < PREEMPTION)
            {
                queue.add(queue.remove());
            }
        }
        return history;
    }

    private SimulatedRegister[] cells(final Supplier<SimulatedRegister> registers)
    {
        final SimulatedRegister[] cells = new SimulatedRegister[keys];
        Arrays.setAll(cells, k -> registers.get());
        return cells;
    }

    private void pause(final SplittableRandom random)
    {
        if (yields && random.nextBoolean())
        {
            Thread.yield();
        }
    }

    /** One client: its operations, each in three steps (invocation, effect, response), and what it saw. */
    private final class Client
    {
        private final int thread;
        private final SplittableRandom random;
        private final SimulatedRegister[] cells;
        private final KeyedHistory<Integer> history;
        private final OptionalLong[] seen = new OptionalLong[keys];
        private int finished;
        private int key;
        private boolean unknown;
        private boolean happens;
        private long invoked = -1;
        private LongFunction<Op> respond;

        Client(final int thread, final long seed, final SimulatedRegister[] cells, final KeyedHistory<Integer> history)
        {
            this.thread = thread;
            this.random = new SplittableRandom(seed * 7919 + thread);
            this.cells = cells;
            this.history = history;
            Arrays.fill(seen, OptionalLong.empty());
        }

        /** Whether the client is inside an operation, at one of the pauses where {@link #run}'s threads may yield. */
        boolean paused()
        {
            return invoked >= 0;
        }

        boolean done()
        {
            return finished == opsPerThread;
        }

        /** The next step of the current operation, or the invocation of the next one, at {@code now}. */
        void step(final long now)
        {
            if (invoked < 0)
            {
                invoke(now);
            }
            else if (respond == null)
            {
                perform();
            }
            else
            {
                respond(now);
            }
        }

        void invoke(final long now)
        {
            key = random.nextInt(keys);
            unknown = random.nextDouble() < unknownOutcomes;
            happens = !unknown || random.nextBoolean();
            invoked = now;
        }

        /** Runs one random operation; remembers how to record it once its response time is known. */
        void perform()
        {
            final SimulatedRegister cell = cells[key];
            final long value = (thread + 1L) * 1_000_000 + finished;
            final long t0 = invoked;
            final int roll = random.nextInt(100);
            final OptionalLong expected = seen[key];
            if (roll < 40)
            {
                final OptionalLong read = cell.get(thread, random);
                seen[key] = read;
                respond = t1 -> Op.get(thread, t0, t1, read);
            }
            else if (roll < 70)
            {
                if (happens)
                {
                    cell.put(thread, value);
                }
                seen[key] = OptionalLong.of(value);
                respond = t1 -> Op.put(thread, value, t0, t1);
            }
            else if (roll < 80)
            {
                final boolean existed = happens && cell.delete(thread);
                respond = t1 -> Op.delete(thread, t0, t1, existed);
            }
            else
            {
                final boolean swapped = happens && cell.compareAndSet(thread, expected, value);
                if (swapped)
                {
                    seen[key] = OptionalLong.of(value);
                }
                respond = t1 -> Op.compareAndSet(thread, expected, value, t0, t1, swapped);
            }
        }

        void respond(final long now)
        {
            final Op op = respond.apply(now);
            history.record(key, unknown ? op.withUnknownOutcome() : op);
            respond = null;
            invoked = -1;
            finished++;
        }
    }
}
