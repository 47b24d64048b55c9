package io.rdmakv.server.control;

import io.rdmakv.server.space.Extent;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * On a primary with backups, the sweep that must run between a departure batch's drain and the reclaim of its
 * space ({@link Departures}): a writer that died after its first backup's CAS and before the primary's leaves its
 * block named by the backups only; reclaimed and reused, that block would be what a promoted backup serves. So the
 * backups are put back first ({@link Sweeper}, the node's {@code replication.BackupSweep}), then the space is
 * reclaimed, on the control agent's thread, as for any departure. Until then it stays held (granted to the departed sessions,
 * so not reusable).
 *
 * <p>The backups fence the departed sessions' writers first: a writer whose session here ended may still hold
 * sessions with them (cut off from this node only, or paused mid-write), and a CAS it sent them after the sweep
 * would name space this node is about to reuse.
 *
 * <p>A sweep reads every backup's whole index, so it runs on a thread of its own ({@code rdmakv-sweep}, started
 * on the first batch), never the agent's; its result comes back as a command on the agent's thread ({@code
 * agent}), which counts it and reclaims. Batches that arrive while one is swept wait and are swept together by
 * the next sweep (one read of each backup's index for the lot). A sweep that fails (a backup unreachable, refused,
 * serving another epoch) is retried {@link #RETRY_MILLIS} later, doubling up to {@link #MAX_RETRY_MILLIS}, against
 * the map of that moment: if this node is no longer the primary of a group with backups, the space is reclaimed
 * without a sweep (a node that becomes primary again rebuilds its allocator from its index anyway).
 *
 * <p>Other work that must not interleave with a sweep runs on the same thread ({@link #onSweepThread}): the
 * freeze of a partition's segment ({@code replication.PartitionFreezer}), which settles writes caught mid-chain
 * while the space of departed writers is still held, as a sweep does.
 */
public final class ChainSweeps implements AutoCloseable
{
    static final long RETRY_MILLIS = 250;
    static final long MAX_RETRY_MILLIS = 8000;

    private static final System.Logger LOG = System.getLogger(ChainSweeps.class.getName());

    /** Test hook: runs on the sweep thread before every sweep attempt (null: none). Not for production use. */
    private static volatile Runnable beforeSweep;

    private final Sweeper sweeper;
    private final Consumer<Runnable> agent;
    private final ServerCounters counters;
    private final Queue<Job> pending = new ConcurrentLinkedQueue<>();
    private final Queue<Task> tasks = new ConcurrentLinkedQueue<>();
    private final Object start = new Object();
    private Thread worker;
    private volatile boolean closed;

    /** Sweeps a primary's backups. */
    public interface Sweeper extends AutoCloseable
    {
        /** Whether this node is now the primary of a replica group with at least one backup. Any thread. */
        boolean needed();

        /**
         * Has every backup of this node's group fence the sessions of {@code writers} (the departed sessions'
         * writers: FENCE_WRITERS), then puts back, on every backup, each slot that names a block inside {@code
         * departed} (sorted, disjoint: the grants of departed sessions, still held) while this node's slot holds
         * another word; last backup first. Blocking, on the sweep thread.
         *
         * @return what it did; {@link Swept#NOT_NEEDED} when this node is no longer the primary of a group with
         *     backups
         * @throws RuntimeException when a backup could not be swept (to be retried)
         */
        Swept sweep(List<Extent> departed, long[] writers);

        @Override
        void close();
    }

    /**
     * What a sweep did: backups swept, index bytes read from them, slots put back, slots found but changed by
     * someone else before the CAS (left alone), and how long it took.
     */
    public record Swept(int backups, long indexBytes, long rolledBack, long left, long nanos)
    {
        /** The node is no longer the primary of a group with backups: nothing swept. */
        public static final Swept NOT_NEEDED = new Swept(0, 0, 0, 0, 0);
    }

    private record Task(Runnable run, CompletableFuture<?> done)
    {
    }

    private record Job(Map<Long, List<Extent>> grants, long[] writers, Runnable then)
    {
    }

    /**
     * @param agent    runs a command on the control agent's thread (its command queue)
     * @param counters counted into from those commands only (the agent's thread is their one writer)
     */
    public ChainSweeps(final Sweeper sweeper, final Consumer<Runnable> agent, final ServerCounters counters)
    {
        this.sweeper = sweeper;
        this.agent = agent;
        this.counters = counters;
    }

    /** Runs {@code hook} before every sweep attempt, on the sweep thread (tests: hold a sweep); null: none. */
    public static void beforeEachSweep(final Runnable hook)
    {
        beforeSweep = hook;
    }

    /** Whether departures must be swept now. Agent thread. */
    boolean needed()
    {
        return !closed && sweeper.needed();
    }

    /**
     * Sweeps the backups for {@code grants} (departed sessions' ids and what they held) after they fenced {@code
     * writers} (those sessions' writers), then runs {@code then} on the agent's thread. Agent thread.
     */
    void submit(final Map<Long, List<Extent>> grants, final long[] writers, final Runnable then)
    {
        pending.add(new Job(grants, writers.clone(), then));
        synchronized (start)
        {
            if (worker == null && !closed)
            {
                worker = Thread.ofPlatform().daemon().name("rdmakv-sweep").start(this::loop);
            }
            start.notifyAll();
        }
    }

    /**
     * Runs {@code task} on the sweep thread, never during a sweep (before the next one, or between the attempts of
     * one that is retried), and completes the future with its result or its failure. Any thread; fails at once
     * once closed, and a task still waiting at close fails then.
     */
    public <T> CompletableFuture<T> onSweepThread(final Supplier<T> task)
    {
        final CompletableFuture<T> done = new CompletableFuture<>();
        synchronized (start)
        {
            if (closed)
            {
                done.completeExceptionally(new IllegalStateException("the sweep thread is closed"));
                return done;
            }
            tasks.add(new Task(() ->
            {
                try
                {
                    done.complete(task.get());
                }
                catch (final RuntimeException e)
                {
                    done.completeExceptionally(e);
                }
            }, done));
            if (worker == null)
            {
                worker = Thread.ofPlatform().daemon().name("rdmakv-sweep").start(this::loop);
            }
            start.notifyAll();
        }
        return done;
    }

    private void runTasks()
    {
        Task task;
        while (!closed && (task = tasks.poll()) != null)
        {
            task.run().run();
        }
    }

    private void loop()
    {
        while (!closed)
        {
            final List<Job> jobs = new ArrayList<>();
            synchronized (start)
            {
                while (pending.isEmpty() && tasks.isEmpty() && !closed)
                {
                    try
                    {
                        start.wait();
                    }
                    catch (final InterruptedException e)
                    {
                        return;
                    }
                }
            }
            runTasks();
            take(jobs);
            if (!jobs.isEmpty() && !sweep(jobs))
            {
                return;
            }
        }
    }

    /** Sweeps for {@code jobs} until it succeeds or is not needed; false when interrupted or closed. */
    private boolean sweep(final List<Job> jobs)
    {
        long retryMillis = RETRY_MILLIS;
        while (!closed)
        {
            try
            {
                final Runnable hook = beforeSweep;
                if (hook != null)
                {
                    hook.run();
                }
                final Swept swept = sweeper.sweep(extents(jobs), writers(jobs));
                report(jobs, swept);
                return true;
            }
            catch (final RuntimeException e)
            {
                if (closed)
                {
                    return false;
                }
                agent.accept(() -> counters.increment(ServerCounter.CHAIN_SWEEP_FAILURES));
                // a first failure is often a map change under way (a backup still serving the older epoch)
                LOG.log(retryMillis == RETRY_MILLIS ? System.Logger.Level.INFO : System.Logger.Level.WARNING, "cannot sweep the backups before reclaiming the space of " +
                    sessions(jobs) + " departed session(s): " + e.getMessage() + "; their space stays held, retrying " +
                    "in " + retryMillis + " ms");
            }
            if (!pause(retryMillis))
            {
                return false;
            }
            runTasks();
            retryMillis = Math.min(MAX_RETRY_MILLIS, 2 * retryMillis);
            take(jobs);
        }
        return false;
    }

    /** Waits {@code millis} unless closed meanwhile; false when closed or interrupted. */
    private boolean pause(final long millis)
    {
        final long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        synchronized (start)
        {
            long left;
            while (!closed && (left = until - System.nanoTime()) > 0)
            {
                try
                {
                    TimeUnit.NANOSECONDS.timedWait(start, left);
                }
                catch (final InterruptedException e)
                {
                    return false;
                }
            }
        }
        return !closed;
    }

    private void report(final List<Job> jobs, final Swept swept)
    {
        final boolean needed = swept != Swept.NOT_NEEDED;
        final System.Logger.Level level = swept.rolledBack() > 0 ? System.Logger.Level.INFO :
            System.Logger.Level.DEBUG;
        LOG.log(level, needed ? "swept " + swept.backups() + " backup(s) (" + swept.indexBytes() + " index bytes) for " +
            sessions(jobs) + " departed session(s) in " + TimeUnit.NANOSECONDS.toMicros(swept.nanos()) + " µs: " +
            swept.rolledBack() + " slot(s) of a gone writer put back, " + swept.left() + " changed meanwhile" :
            "no sweep for " + sessions(jobs) + " departed session(s): this node is no longer the primary of a " +
            "group with backups");
        agent.accept(() ->
        {
            counters.increment(needed ? ServerCounter.CHAIN_SWEEPS : ServerCounter.CHAIN_SWEEPS_ABANDONED);
            counters.add(ServerCounter.CHAIN_SWEEP_ROLLBACKS, swept.rolledBack());
            for (final Job job : jobs)
            {
                job.then().run();
            }
        });
    }

    private void take(final List<Job> jobs)
    {
        Job job;
        while ((job = pending.poll()) != null)
        {
            jobs.add(job);
        }
    }

    private static int sessions(final List<Job> jobs)
    {
        return jobs.stream().mapToInt(j -> j.grants().size()).sum();
    }

    /** Every grant of every job, sorted by offset (grants of distinct sessions never overlap). */
    private static List<Extent> extents(final Collection<Job> jobs)
    {
        final List<Extent> all = new ArrayList<>();
        for (final Job job : jobs)
        {
            job.grants().values().forEach(all::addAll);
        }
        all.sort(Comparator.comparingLong(Extent::offset));
        return all;
    }

    /** Every job's writers, each once. */
    private static long[] writers(final Collection<Job> jobs)
    {
        return jobs.stream().flatMapToLong(job -> Arrays.stream(job.writers())).distinct().toArray();
    }

    /**
     * Stops the sweep thread (a sweep under way stops at its next step: the sweeper is closed first; batches
     * waiting are never reclaimed: the node is going away). Never interrupts the thread, which may be in the
     * middle of the node's own transport.
     */
    @Override
    public void close()
    {
        final Thread running;
        synchronized (start)
        {
            closed = true;
            running = worker;
            start.notifyAll();
        }
        sweeper.close();
        if (running != null)
        {
            try
            {
                running.join(TimeUnit.SECONDS.toMillis(10));
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
            }
        }
        Task left;
        while ((left = tasks.poll()) != null)
        {
            left.done().completeExceptionally(new IllegalStateException("the sweep thread closed before the task ran"));
        }
    }
}
