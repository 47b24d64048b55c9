package io.rdmakv.ycsb;

import io.rdmakv.client.KvClient;
import site.ycsb.DBException;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.stream.Collectors;

/**
 * The process's one {@link KvClient}, shared by YCSB's DB instances (one per client thread): the first
 * {@link #acquire} connects, the last {@link #release} prints the counters and closes it. The class lock
 * guards the reference count and the handle only: connecting and closing run outside it, so that a thread
 * connecting blocks nobody's release, and the others wait for the one connect in flight, not on a lock.
 */
final class SharedClient
{
    /** What an instance works with: the shared client and the shared counters. */
    record Handle(KvClient client, BindingCounters counters)
    {
    }

    // Guarded by SharedClient.class.
    private static CompletableFuture<Handle> shared;
    private static int references;
    private static boolean printStats;

    private SharedClient()
    {
    }

    static Handle acquire(final BindingConfig config) throws DBException
    {
        final CompletableFuture<Handle> handle;
        final boolean connect;
        synchronized (SharedClient.class)
        {
            connect = shared == null;
            if (connect)
            {
                shared = new CompletableFuture<>();
                printStats = config.printStats();
            }
            handle = shared;
            references++;
        }
        if (connect)
        {
            connect(config, handle);
        }
        try
        {
            return handle.join();
        }
        catch (final CompletionException e)
        {
            synchronized (SharedClient.class)
            {
                references--;
            }
            throw (DBException)e.getCause();
        }
    }

    /** Connects outside the lock; a failure is every waiter's, and the next acquire tries again. */
    private static void connect(final BindingConfig config, final CompletableFuture<Handle> handle)
    {
        try
        {
            handle.complete(RunStatsFile.connect(config.client()));
        }
        catch (final RuntimeException e)
        {
            final String seeds = config.client().seeds().stream().map(a -> a.getHostString() + ":" + a.getPort())
                .collect(Collectors.joining(","));
            synchronized (SharedClient.class)
            {
                if (shared == handle)
                {
                    shared = null;
                }
            }
            handle.completeExceptionally(
                new DBException("rdmakv: cannot connect to " + seeds + ": " + e.getMessage(), e));
        }
    }

    static void release()
    {
        final Handle last;
        final boolean print;
        synchronized (SharedClient.class)
        {
            if (references == 0)
            {
                throw new IllegalStateException("release without acquire");
            }
            if (--references > 0)
            {
                return;
            }
            last = shared.join();
            shared = null;
            print = printStats;
        }
        try
        {
            RunStatsFile.write();
            if (print)
            {
                last.counters().report(last.client().stats(), writePath(last.client()), System.out);
            }
        }
        finally
        {
            last.client().close();
        }
    }

    static synchronized int references()
    {
        return references;
    }

    /** The nodes' write paths, distinct, joined by {@code +} ({@code unknown} for a node that did not answer). */
    static String writePath(final io.rdmakv.client.KvClient client)
    {
        final java.util.TreeSet<String> paths = new java.util.TreeSet<>();
        for (final io.rdmakv.common.cluster.ClusterNode node : client.clusterMap().nodes())
        {
            try
            {
                paths.add(client.writePath(node.id()));
            }
            catch (final RuntimeException e)
            {
                paths.add("unknown");
            }
        }
        return String.join("+", paths);
    }
}
