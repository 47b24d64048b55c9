package io.rdmakv.ycsb;

import io.rdmakv.client.KvClient;
import io.rdmakv.client.KvException;
import site.ycsb.DBException;

import java.util.stream.Collectors;

/**
 * The process's one {@link KvClient}, shared by YCSB's DB instances (one per client thread): the first
 * {@link #acquire} connects, the last {@link #release} prints the counters and closes it. All state is
 * guarded by the class lock.
 */
final class SharedClient
{
    /** What an instance works with: the shared client and the shared counters. */
    record Handle(KvClient client, BindingCounters counters)
    {
    }

    // Guarded by SharedClient.class.
    private static Handle shared;
    private static int references;
    private static boolean printStats;

    private SharedClient()
    {
    }

    static synchronized Handle acquire(final BindingConfig config) throws DBException
    {
        if (references == 0)
        {
            try
            {
                shared = RunStatsFile.connect(config.client());
            }
            catch (final KvException e)
            {
                final String seeds = config.client().seeds().stream().map(a -> a.getHostString() + ":" + a.getPort())
                    .collect(Collectors.joining(","));
                throw new DBException("rdmakv: cannot connect to " + seeds + ": " + e.getMessage(), e);
            }
            printStats = config.printStats();
        }
        references++;
        return shared;
    }

    static synchronized void release()
    {
        if (references == 0)
        {
            throw new IllegalStateException("release without acquire");
        }
        if (--references == 0)
        {
            try
            {
                RunStatsFile.write();
                if (printStats)
                {
                    shared.counters().report(shared.client().stats(), System.out);
                }
            }
            finally
            {
                shared.client().close();
                shared = null;
            }
        }
    }

    static synchronized int references()
    {
        return references;
    }
}
