package io.rdmakv.server.cluster;

import java.net.InetSocketAddress;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A copying node's catching up, on a worker thread of its own (never the control agent's or the membership
 * thread: a pass reads the whole primary index and may take seconds). For a map in which the node's group is
 * not sealed: diff passes until one changes "nothing much", then report {@code bulk} for the map's epoch.
 * For a sealed map: one more pass, then report {@code final} for the sealed epoch. Every new map abandons
 * the job under way ({@link #abandon}; checked between passes and before a report, so nothing is reported
 * for an epoch that is no longer current) and, if the node is still copying, starts the next.
 *
 * <p>"Nothing much": a pass that changed at most {@link #QUIET_SLOTS} slots, or no fewer than the pass before
 * (clients write as fast as passes copy: more passes will not converge, and the sealed epoch's final pass,
 * with writes held, takes the rest), or the {@link #MAX_BULK_PASSES}th pass. A pass or report that fails is
 * retried while the map stays the same, {@link #RETRY_MILLIS} later, doubling up to {@link #MAX_RETRY_MILLIS}
 * (a primary that is gone for good is replaced by the next map, which abandons the job).
 */
final class CopyLoop implements AutoCloseable
{
    static final long QUIET_SLOTS = 64;
    static final int MAX_BULK_PASSES = 8;
    static final long RETRY_MILLIS = 500;
    static final long MAX_RETRY_MILLIS = 8000;

    private static final System.Logger LOG = System.getLogger(CopyLoop.class.getName());

    private final CopyPass copier;
    private final SyncReporter reporter;
    private final ExecutorService worker = Executors.newSingleThreadExecutor(r ->
    {
        final Thread t = new Thread(r, "rdmakv-copy");
        t.setDaemon(true);
        return t;
    });
    private final AtomicLong generation = new AtomicLong();
    private final AtomicLong passes = new AtomicLong();
    private final AtomicLong slots = new AtomicLong();

    CopyLoop(final CopyPass copier, final SyncReporter reporter)
    {
        this.copier = copier;
        this.reporter = reporter;
    }

    /** The job under way (if any) stops at its next check and reports nothing. */
    void abandon()
    {
        generation.incrementAndGet();
    }

    /** Starts catching up in group {@code group} of the map of {@code epoch}, against {@code primary}. */
    void start(final int group, final long epoch, final boolean sealed, final InetSocketAddress primary)
    {
        final long job = generation.incrementAndGet();
        worker.execute(() -> run(job, group, epoch, sealed, primary));
    }

    long passes()
    {
        return passes.get();
    }

    long slots()
    {
        return slots.get();
    }

    private boolean current(final long job)
    {
        return generation.get() == job;
    }

    private void run(final long job, final int group, final long epoch, final boolean sealed,
        final InetSocketAddress primary)
    {
        long retryMillis = RETRY_MILLIS;
        while (current(job))
        {
            try
            {
                if (sealed)
                {
                    pass(primary, epoch);
                }
                else
                {
                    long previous = Long.MAX_VALUE;
                    for (int i = 1; current(job); i++)
                    {
                        final long changed = pass(primary, epoch);
                        if (changed <= QUIET_SLOTS || changed >= previous || i >= MAX_BULK_PASSES)
                        {
                            break;
                        }
                        previous = changed;
                    }
                }
                if (!current(job))
                {
                    return;
                }
                reporter.report(group, epoch, sealed);
                LOG.log(System.Logger.Level.INFO, "reported " + (sealed ? "final" : "bulk") + " sync of group " +
                    group + " in epoch " + epoch);
                return;
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
                return;
            }
            catch (final Exception e)
            {
                LOG.log(System.Logger.Level.WARNING, "copying group " + group + " (epoch " + epoch + ") from " + primary +
                    ": " + e.getMessage() + "; retrying in " + retryMillis + " ms");
                try
                {
                    TimeUnit.MILLISECONDS.sleep(retryMillis);
                    retryMillis = Math.min(MAX_RETRY_MILLIS, 2 * retryMillis);
                }
                catch (final InterruptedException interrupted)
                {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    private long pass(final InetSocketAddress primary, final long epoch) throws Exception
    {
        final long changed = copier.pass(primary, epoch);
        passes.incrementAndGet();
        slots.addAndGet(changed);
        return changed;
    }

    @Override
    public void close()
    {
        abandon();
        worker.shutdownNow();
    }
}
