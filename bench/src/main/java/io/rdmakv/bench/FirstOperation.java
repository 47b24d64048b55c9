package io.rdmakv.bench;

import io.rdmakv.client.KvClient;
import io.rdmakv.client.KvClientConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * How long a client takes from {@link KvClient#connect} to its first operation's answer: once cold (the
 * first connect in this JVM: classes loaded, nothing compiled; also from the JVM's start), then warm (the
 * JVM warmed by GETs and connects, the median of several fresh connects). Prints {@code key=value} lines.
 * Needs a running node; it PUTs the key it reads.
 *
 * <p>Usage: {@code FirstOperation --hosts H:P [--transport T] [--rounds N]}.
 * The figures taken from the JVM's start (the JVM's start to the first GET, the CPU until then and the
 * classes loaded) include parsing the command line, Picocli's classes with it; the cold connect and first
 * GET themselves do not.
 */
public final class FirstOperation
{
    private static final byte[] KEY = "first-operation".getBytes(StandardCharsets.UTF_8);
    private static final int WARM_UP_GETS = 20_000;
    private static final int WARM_UP_CONNECTS = 20;

    private FirstOperation()
    {
    }

    @Command(name = "FirstOperation", sortOptions = false, showDefaultValues = true,
        description = "A client's connect to its first GET's answer, cold and warm; prints key=value lines.")
    static final class Options
    {
        @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
        boolean help;


        @Mixin
        final ClusterOptions cluster = ClusterOptions.hostsRequired("auto");

        @Option(names = "--rounds", paramLabel = "N", description = "Warm connects timed, at least 1.")
        int rounds = 11;
    }

    public static void main(final String[] args)
    {
        final Options options = BenchArgs.parse(new Options(), args);
        final String hosts = options.cluster.hosts;
        final String transport = options.cluster.transport;
        final int rounds = options.rounds;
        if (rounds < 1)
        {
            BenchArgs.usageError(options, "--rounds must be at least 1, not " + rounds);
        }
        final KvClientConfig config = KvClientConfig.of(hosts).withTransport(transport);
        final long jvmStartMs = ManagementFactory.getRuntimeMXBean().getStartTime();
        final long[] cold = firstOperation(config, true);
        print("cold_connect_ms", cold[0] / 1e6);
        print("cold_first_get_ms", cold[1] / 1e6);
        print("cold_jvm_start_to_first_get_ms", System.currentTimeMillis() - jvmStartMs);
        // CPU time (all threads) says more than wall time on a loaded machine
        print("cold_cpu_ms_to_first_get", ProcessHandle.current().info().totalCpuDuration()
            .map(d -> d.toNanos() / 1e6).orElse(Double.NaN));
        print("classes_loaded_after_first_get", ManagementFactory.getClassLoadingMXBean().getTotalLoadedClassCount());
        try (KvClient client = KvClient.connect(config))
        {
            for (int i = 0; i < WARM_UP_GETS; i++)
            {
                client.get(KEY);
            }
        }
        for (int i = 0; i < WARM_UP_CONNECTS; i++)
        {
            firstOperation(config, false);
        }
        final long[] connect = new long[rounds];
        final long[] total = new long[rounds];
        for (int i = 0; i < rounds; i++)
        {
            final long[] t = firstOperation(config, false);
            connect[i] = t[0];
            total[i] = t[0] + t[1];
        }
        print("warm_connect_ms_median", median(connect) / 1e6);
        print("warm_connect_to_first_get_ms_median", median(total) / 1e6);
        print("warm_connect_to_first_get_ms_max", Arrays.stream(total).max().orElseThrow() / 1e6);
    }

    /** Nanoseconds to connect and to the first GET's answer after it (the first time PUTs the key). */
    private static long[] firstOperation(final KvClientConfig config, final boolean put)
    {
        final long start = System.nanoTime();
        try (KvClient client = KvClient.connect(config))
        {
            final long connected = System.nanoTime();
            if (put)
            {
                client.put(KEY, KEY);
            }
            if (client.get(KEY) == null)
            {
                throw new IllegalStateException("the key just written is missing");
            }
            return new long[] {connected - start, System.nanoTime() - connected};
        }
    }

    private static long median(final long[] values)
    {
        final long[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }

    private static void print(final String key, final double value)
    {
        System.out.printf("%s=%.2f%n", key, value);
    }
}
