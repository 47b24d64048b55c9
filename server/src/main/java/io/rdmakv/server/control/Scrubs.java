package io.rdmakv.server.control;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * When a primary scrubs its backups ({@link Scrubber}, the node's {@code replication.BackupScrub}): every interval
 * while it is the primary of a group with backups, and at once when asked ({@link #now}, {@code kvctl scrub}), on a
 * thread of its own ({@code rdmakv-scrub}), never the control agent's. What each pass did is counted on the agent's
 * thread ({@code agent}), the counters' one writer, and logged when it mended or left something.
 */
public final class Scrubs implements AutoCloseable
{
    private static final System.Logger LOG = System.getLogger(Scrubs.class.getName());

    /** One pass over every backup of this node's group. */
    public interface Scrubber extends AutoCloseable
    {
        /** Whether this node is now the primary of a group with backups. Any thread. */
        boolean needed();

        /**
         * One pass (blocking, on the scrub thread); {@link Pass#NONE} when not needed.
         *
         * @throws RuntimeException when a backup could not be scrubbed (the others were)
         */
        Pass pass();

        @Override
        void close();
    }

    /**
     * What a pass did: backups scrubbed, slots and blocks compared, backup words put back, backup blocks written
     * over, this node's damaged blocks rewritten from a backup's whole copy, differences left to live writers,
     * differences left because this node's block is damaged and no backup had it whole, and how long.
     */
    public record Pass(int backups, long slots, long blocks, long wordsRepaired, long blocksRepaired,
        long healedHere, long leftToWriters, long damagedHere, long nanos)
    {
        public static final Pass NONE = new Pass(0, 0, 0, 0, 0, 0, 0, 0, 0);
    }

    /** A pass that could not scrub every backup, with what it did on the others. */
    public static final class PartialPassException extends IllegalStateException
    {
        private final transient Pass partial;

        public PartialPassException(final Pass partial, final String message)
        {
            super(message);
            this.partial = partial;
        }

        public Pass partial()
        {
            return partial;
        }
    }

    private final Scrubber scrubber;
    private final long intervalNanos;
    private final Consumer<Runnable> agent;
    private final ServerCounters counters;
    private final Object wake = new Object();
    private CompletableFuture<Pass> asked;
    private Thread worker;
    private volatile boolean closed;

    /**
     * @param intervalNanos between passes; 0: only when asked
     * @param agent         runs a command on the control agent's thread
     * @param counters      counted into from those commands only
     */
    public Scrubs(final Scrubber scrubber, final long intervalNanos, final Consumer<Runnable> agent,
        final ServerCounters counters)
    {
        this.scrubber = scrubber;
        this.intervalNanos = intervalNanos;
        this.agent = agent;
        this.counters = counters;
    }

    /** Starts the scrub thread. */
    public Scrubs start()
    {
        synchronized (wake)
        {
            worker = Thread.ofPlatform().daemon().name("rdmakv-scrub").start(this::loop);
        }
        return this;
    }

    /** Runs a pass as soon as the one under way (if any) is done; completes with it (exceptionally if it failed). */
    public CompletableFuture<Pass> now()
    {
        synchronized (wake)
        {
            if (asked == null)
            {
                asked = new CompletableFuture<>();
            }
            wake.notifyAll();
            return asked;
        }
    }

    private void loop()
    {
        long next = System.nanoTime() + intervalNanos;
        while (!closed)
        {
            final CompletableFuture<Pass> answer;
            synchronized (wake)
            {
                while (!closed && asked == null && (intervalNanos == 0 || next - System.nanoTime() > 0))
                {
                    try
                    {
                        if (intervalNanos == 0)
                        {
                            wake.wait();
                        }
                        else
                        {
                            TimeUnit.NANOSECONDS.timedWait(wake, Math.max(1, next - System.nanoTime()));
                        }
                    }
                    catch (final InterruptedException e)
                    {
                        return;
                    }
                }
                answer = asked;
                asked = null;
            }
            if (closed)
            {
                if (answer != null)
                {
                    answer.completeExceptionally(new IllegalStateException("the node is closing"));
                }
                return;
            }
            next = System.nanoTime() + intervalNanos;
            run(answer);
        }
    }

    private void run(final CompletableFuture<Pass> answer)
    {
        if (!scrubber.needed())
        {
            if (answer != null)
            {
                answer.complete(Pass.NONE);
            }
            return;
        }
        try
        {
            final Pass pass = scrubber.pass();
            final boolean found = pass.wordsRepaired() + pass.blocksRepaired() + pass.healedHere() +
                pass.leftToWriters() + pass.damagedHere() > 0;
            LOG.log(found ? System.Logger.Level.WARNING : System.Logger.Level.DEBUG, "scrubbed " + pass.backups() +
                " backup(s) in " + TimeUnit.NANOSECONDS.toMillis(pass.nanos()) + " ms: " + pass.slots() + " slots and " +
                pass.blocks() + " blocks compared, " + pass.wordsRepaired() + " slot(s) put back to this primary's " +
                "word, " + pass.blocksRepaired() + " block(s) written over with this primary's, " +
                pass.healedHere() + " damaged block(s) of this primary rewritten from a backup's copy, " +
                pass.leftToWriters() + " difference(s) left to a live writer, " + pass.damagedHere() +
                " where this primary's own block is damaged");
            // counted first, then answered: whoever asked sees the counters with this pass in them
            count(pass, ServerCounter.SCRUB_PASSES, () -> complete(answer, pass, null));
        }
        catch (final RuntimeException e)
        {
            if (closed)
            {
                return;
            }
            count(e instanceof PartialPassException partial ? partial.partial() : Pass.NONE,
                ServerCounter.SCRUB_FAILURES, () -> complete(answer, null, e));
            LOG.log(System.Logger.Level.WARNING, "scrub of the backups failed: " + e.getMessage() + "; next pass in " +
                TimeUnit.NANOSECONDS.toMillis(intervalNanos) + " ms");
        }
    }

    private static void complete(final CompletableFuture<Pass> answer, final Pass pass, final RuntimeException failed)
    {
        if (answer != null)
        {
            if (failed != null)
            {
                answer.completeExceptionally(failed);
            }
            else
            {
                answer.complete(pass);
            }
        }
    }

    private void count(final Pass pass, final ServerCounter outcome, final Runnable then)
    {
        agent.accept(() ->
        {
            counters.increment(outcome);
            counters.add(ServerCounter.SCRUB_WORDS_REPAIRED, pass.wordsRepaired());
            counters.add(ServerCounter.SCRUB_BLOCKS_REPAIRED, pass.blocksRepaired());
            counters.add(ServerCounter.SCRUB_HEALED_HERE, pass.healedHere());
            counters.add(ServerCounter.SCRUB_LEFT_TO_WRITERS, pass.leftToWriters());
            counters.add(ServerCounter.SCRUB_DAMAGED_HERE, pass.damagedHere());
            then.run();
        });
    }

    /** Stops the scrub thread (a pass under way stops at its next step: the scrubber is closed first). */
    @Override
    public void close()
    {
        final Thread running;
        synchronized (wake)
        {
            closed = true;
            running = worker;
            wake.notifyAll();
        }
        scrubber.close();
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
    }
}
