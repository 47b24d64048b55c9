package io.rdmakv.ycsb;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.rdmakv.client.ClientStats;
import io.rdmakv.client.KvClient;
import io.rdmakv.client.KvClientConfig;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What {@code bench/ycsb.sh} learns from inside a YCSB process: when the system property {@value #PROPERTY}
 * names a file, the shared client is connected with a metrics registry (its per-thread operation recorders
 * count round trips per operation type) and the last cleanup writes, in YCSB's {@code [SECTION], name,
 * value} format: the process's CPU time and the wall time from the end of connect to that cleanup, and per
 * client operation type ({@code get}, {@code put}, {@code compare_and_set}, {@code delete}) the operations
 * and their round trips. Without the property nothing changes (no registry, nothing written).
 */
public final class RunStatsFile
{
    /** The system property naming the file to write. */
    public static final String PROPERTY = "rdmakv.bench.statsfile";
    private static final String ROUND_TRIPS = "rdmakv_client_operation_round_trips";

    // Guarded by RunStatsFile.class.
    private static PrometheusRegistry registry;
    private static long cpuStart;
    private static long wallStart;

    private RunStatsFile()
    {
    }

    /** Connects, with a metrics registry when the property is set, and starts the run's clocks. */
    static synchronized KvClient connect(final KvClientConfig config)
    {
        if (System.getProperty(PROPERTY) == null)
        {
            return KvClient.connect(config);
        }
        registry = new PrometheusRegistry();
        final KvClient client = KvClient.connect(config.withMetrics(registry));
        cpuStart = processCpuNanos();
        wallStart = System.nanoTime();
        return client;
    }

    /** Writes the file (when the property is set); call before the client is closed. */
    static synchronized void write(final KvClient client)
    {
        final String file = System.getProperty(PROPERTY);
        if (file == null || registry == null)
        {
            return;
        }
        final long cpu = processCpuNanos() - cpuStart;
        final long wall = System.nanoTime() - wallStart;
        final StringBuilder out = new StringBuilder();
        line(out, "CpuNanos", cpu);
        line(out, "WallNanos", wall);
        for (final MetricSnapshot snapshot : registry.scrape())
        {
            if (snapshot instanceof final HistogramSnapshot h && h.getMetadata().getName().equals(ROUND_TRIPS))
            {
                for (final HistogramSnapshot.HistogramDataPointSnapshot p : h.getDataPoints())
                {
                    final String op = p.getLabels().get("op");
                    line(out, "Ops(" + op + ")", p.getCount());
                    line(out, "RoundTrips(" + op + ")", (long)p.getSum());
                }
            }
        }
        final ClientStats stats = client.stats();
        line(out, "RoundTrips", stats.roundTrips());
        line(out, "CacheHits", stats.cacheHits());
        registry = null;
        try
        {
            Files.writeString(Path.of(file), out, StandardCharsets.UTF_8);
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException(PROPERTY + ": cannot write " + file + ": " + e.getMessage(), e);
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
