package io.rdmakv.bench.ycsb;

import io.rdmakv.ycsb.RunStatsFile;
import site.ycsb.Status;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * The process-wide counts of {@link RedisYcsbClient}: commands sent per YCSB operation type (one command,
 * one round trip) and failures by kind. A run lasts from the first connection to the last cleanup (the
 * next run's first connection starts from zero); when {@value RunStatsFile#PROPERTY} names a file, it is
 * measured by a {@link RunStatsFile.Run}, as rdmakv's binding measures its own, and the last cleanup
 * writes the file.
 */
final class RedisRunStats
{
    static final LongAdder READ = new LongAdder();
    static final LongAdder UPDATE = new LongAdder();
    static final LongAdder INSERT = new LongAdder();
    static final LongAdder DELETE = new LongAdder();
    private static final Map<String, LongAdder> ERRORS = new ConcurrentHashMap<>();

    // Guarded by RedisRunStats.class.
    private static int open;
    private static RunStatsFile.Run run;

    private RedisRunStats()
    {
    }

    static synchronized void opened()
    {
        if (open++ == 0)
        {
            for (final LongAdder a : new LongAdder[] {READ, UPDATE, INSERT, DELETE})
            {
                a.reset();
            }
            ERRORS.clear();
            run = RunStatsFile.Run.start(RedisRunStats::counts);
        }
    }

    static synchronized void closed()
    {
        if (--open == 0 && run != null)
        {
            run.finish();
            run = null;
        }
    }

    /** Counts a failure; the first of each exception type is logged to stderr. */
    static Status failed(final String operation, final RuntimeException e)
    {
        final String kind = e.getClass().getSimpleName();
        ERRORS.computeIfAbsent(kind, k ->
        {
            System.err.println("redis: " + operation + " failed: " + kind + ": " + e.getMessage() +
                " (further " + kind + "s are counted, not logged)");
            return new LongAdder();
        }).increment();
        return Status.ERROR;
    }

    private static RunStatsFile.Counts counts()
    {
        final Map<String, long[]> byType = new TreeMap<>();
        long operations = 0;
        for (final Map.Entry<String, LongAdder> type : Map.of("READ", READ, "UPDATE", UPDATE, "INSERT", INSERT,
            "DELETE", DELETE).entrySet())
        {
            final long commands = type.getValue().sum();
            operations += commands;
            byType.put(type.getKey(), new long[] {commands, commands});
        }
        return new RunStatsFile.Counts(operations, ERRORS.values().stream().mapToLong(LongAdder::sum).sum(), byType);
    }
}
