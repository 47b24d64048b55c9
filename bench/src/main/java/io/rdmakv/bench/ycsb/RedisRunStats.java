package io.rdmakv.bench.ycsb;

import io.rdmakv.ycsb.RunStatsFile;
import site.ycsb.Status;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * The process-wide counts of {@link RedisYcsbClient}: commands sent per YCSB operation type, failures by
 * kind, and the run's clocks, from the first connection to the last cleanup (a run; the first connection
 * of the next run starts from zero). The last cleanup writes them,
 * when {@value RunStatsFile#PROPERTY} names a file, in the format {@link RunStatsFile} uses for rdmakv:
 * {@code CpuNanos}, {@code WallNanos}, and {@code Ops(TYPE)}/{@code RoundTrips(TYPE)} per type.
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
    private static long cpuStart;
    private static long wallStart;

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
            cpuStart = processCpuNanos();
            wallStart = System.nanoTime();
        }
    }

    static synchronized void closed()
    {
        if (--open == 0)
        {
            write();
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

    static long errors()
    {
        return ERRORS.values().stream().mapToLong(LongAdder::sum).sum();
    }

    private static void write()
    {
        final String file = System.getProperty(RunStatsFile.PROPERTY);
        if (file == null)
        {
            return;
        }
        final StringBuilder out = new StringBuilder();
        line(out, "CpuNanos", processCpuNanos() - cpuStart);
        line(out, "WallNanos", System.nanoTime() - wallStart);
        for (final Map.Entry<String, LongAdder> type : Map.of("READ", READ, "UPDATE", UPDATE, "INSERT", INSERT,
            "DELETE", DELETE).entrySet())
        {
            final long commands = type.getValue().sum();
            if (commands > 0)
            {
                // one command, one round trip
                line(out, "Ops(" + type.getKey() + ")", commands);
                line(out, "RoundTrips(" + type.getKey() + ")", commands);
            }
        }
        line(out, "Errors", errors());
        try
        {
            Files.writeString(Path.of(file), out, StandardCharsets.UTF_8);
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException(RunStatsFile.PROPERTY + ": cannot write " + file + ": " + e.getMessage(), e);
        }
    }

    private static long processCpuNanos()
    {
        return ((com.sun.management.OperatingSystemMXBean)ManagementFactory.getOperatingSystemMXBean())
            .getProcessCpuTime();
    }

    private static void line(final StringBuilder out, final String name, final long value)
    {
        out.append("[CLIENT], ").append(name).append(", ").append(value).append('\n');
    }
}
