package io.rdmakv.ycsb;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.rdmakv.client.KvClient;
import io.rdmakv.client.KvClientConfig;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * What {@code bench/ycsb.sh} learns from inside a YCSB process. When the system property {@value #PROPERTY}
 * names a file, the shared client is connected with a metrics registry (its per-thread operation recorders
 * count round trips per operation type) and a {@link Run} is measured from the end of connect to the last
 * cleanup, which writes the file; without the property nothing changes. The Redis side of the benchmark
 * measures its runs with the same {@link Run}.
 */
public final class RunStatsFile
{
    /** The system property naming the file to write. */
    public static final String PROPERTY = "rdmakv.bench.statsfile";
    /** Milliseconds of warm-up the statistics leave out (a run shorter than twice that is taken whole). */
    public static final String WARMUP_PROPERTY = "rdmakv.bench.warmup.ms";
    /** Comma-separated process ids of the servers whose CPU time is measured over the same window. */
    public static final String SERVER_PIDS_PROPERTY = "rdmakv.bench.serverpids";
    private static final String ROUND_TRIPS = "rdmakv_client_operation_round_trips";

    // Guarded by RunStatsFile.class.
    private static Run run;

    private RunStatsFile()
    {
    }

    /** Connects (with a metrics registry when the property is set) and starts measuring the run. */
    static synchronized SharedClient.Handle connect(final KvClientConfig config)
    {
        if (System.getProperty(PROPERTY) == null)
        {
            return new SharedClient.Handle(KvClient.connect(config), new BindingCounters());
        }
        final PrometheusRegistry registry = new PrometheusRegistry();
        final BindingCounters counters = new BindingCounters();
        final SharedClient.Handle handle = new SharedClient.Handle(KvClient.connect(config.withMetrics(registry)),
            counters);
        run = Run.start(() -> new Counts(counters.operations(), counters.errors(), byType(registry)));
        return handle;
    }

    /** Writes the file (when the property is set); call before the client is closed. */
    static synchronized void write()
    {
        if (run != null)
        {
            run.finish();
            run = null;
        }
    }

    private static Map<String, long[]> byType(final PrometheusRegistry registry)
    {
        final Map<String, long[]> types = new TreeMap<>();
        for (final MetricSnapshot snapshot : registry.scrape())
        {
            if (snapshot instanceof final HistogramSnapshot h && h.getMetadata().getName().equals(ROUND_TRIPS))
            {
                for (final HistogramSnapshot.HistogramDataPointSnapshot p : h.getDataPoints())
                {
                    types.put(p.getLabels().get("op"), new long[] {p.getCount(), (long)p.getSum()});
                }
            }
        }
        return types;
    }

    /**
     * What a run has counted so far.
     *
     * @param operations the benchmark's operations (YCSB's: a read, an update, an insert, a delete)
     * @param errors     failed operations
     * @param byType     per operation type: {operations, round trips}
     */
    public record Counts(long operations, long errors, Map<String, long[]> byType)
    {
    }

    /**
     * One run's window: snapshots of the process's CPU time, the servers' CPU time and the counts at the
     * start, after the warm-up (taken by a daemon thread) and at {@link #finish}, which writes the
     * differences over the steady part (or the whole run when it was shorter than twice the warm-up) as
     * {@code [CLIENT], name, value} lines: {@code WarmupNanos} (left out), {@code WallNanos},
     * {@code CpuNanos}, {@code ServerCpuTicks} (clock ticks), {@code Operations}, {@code Errors} (whole
     * run) and per type {@code Ops(TYPE)} and {@code RoundTrips(TYPE)}.
     */
    public static final class Run
    {
        private final Path file;
        private final long warmupNanos;
        private final long[] serverPids;
        private final Supplier<Counts> counts;
        private final Snapshot start;
        private Snapshot warm;
        private boolean finished;

        private Run(final Path file, final long warmupNanos, final long[] serverPids, final Supplier<Counts> counts)
        {
            this.file = file;
            this.warmupNanos = warmupNanos;
            this.serverPids = serverPids;
            this.counts = counts;
            this.start = snapshot();
        }

        /** Starts a run when {@value #PROPERTY} is set (else returns null), reading the other properties. */
        public static Run start(final Supplier<Counts> counts)
        {
            final String file = System.getProperty(PROPERTY);
            if (file == null)
            {
                return null;
            }
            final long warmupMs = Long.parseLong(System.getProperty(WARMUP_PROPERTY, "0").trim());
            if (warmupMs < 0)
            {
                throw new IllegalArgumentException(WARMUP_PROPERTY + " must be >= 0, not " + warmupMs);
            }
            final String pids = System.getProperty(SERVER_PIDS_PROPERTY, "").trim();
            final long[] serverPids = pids.isEmpty() ? new long[0] :
                Arrays.stream(pids.split(",")).mapToLong(p -> Long.parseLong(p.trim())).toArray();
            final Run run = new Run(Path.of(file), warmupMs * 1_000_000, serverPids, counts);
            if (warmupMs > 0)
            {
                Thread.ofPlatform().daemon().name("bench-warmup").start(() -> run.afterWarmup(warmupMs));
            }
            return run;
        }

        private void afterWarmup(final long warmupMs)
        {
            try
            {
                Thread.sleep(warmupMs);
            }
            catch (final InterruptedException e)
            {
                return;
            }
            synchronized (this)
            {
                if (!finished)
                {
                    warm = snapshot();
                }
            }
        }

        /** Takes the last snapshot and writes the file. */
        public synchronized void finish()
        {
            finished = true;
            final Snapshot end = snapshot();
            final Snapshot from = warm != null && end.wallNanos - start.wallNanos >= 2 * warmupNanos ? warm : start;
            final StringBuilder out = new StringBuilder();
            line(out, "WarmupNanos", from.wallNanos - start.wallNanos);
            line(out, "WallNanos", end.wallNanos - from.wallNanos);
            line(out, "CpuNanos", end.cpuNanos - from.cpuNanos);
            if (serverPids.length > 0)
            {
                line(out, "ServerCpuTicks", end.serverTicks - from.serverTicks);
            }
            line(out, "Operations", end.counts.operations() - from.counts.operations());
            line(out, "Errors", end.counts.errors());
            for (final Map.Entry<String, long[]> type : end.counts.byType().entrySet())
            {
                final long[] before = from.counts.byType().getOrDefault(type.getKey(), new long[2]);
                line(out, "Ops(" + type.getKey() + ")", type.getValue()[0] - before[0]);
                line(out, "RoundTrips(" + type.getKey() + ")", type.getValue()[1] - before[1]);
            }
            try
            {
                Files.writeString(file, out, StandardCharsets.UTF_8);
            }
            catch (final IOException e)
            {
                throw new UncheckedIOException(PROPERTY + ": cannot write " + file + ": " + e.getMessage(), e);
            }
        }

        private Snapshot snapshot()
        {
            return new Snapshot(System.nanoTime(), processCpuNanos(), serverTicks(), counts.get());
        }

        /** The servers' user + system clock ticks (fields 14 and 15 of /proc/PID/stat). */
        private long serverTicks()
        {
            long ticks = 0;
            for (final long pid : serverPids)
            {
                try
                {
                    final String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
                    final String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                    ticks += Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
                }
                catch (final IOException e)
                {
                    throw new UncheckedIOException(SERVER_PIDS_PROPERTY + ": cannot read process " + pid + "'s " +
                        "CPU time: " + e.getMessage(), e);
                }
            }
            return ticks;
        }
    }

    private record Snapshot(long wallNanos, long cpuNanos, long serverTicks, Counts counts)
    {
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
