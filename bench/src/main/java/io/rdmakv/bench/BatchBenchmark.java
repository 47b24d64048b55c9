package io.rdmakv.bench;

import io.rdmakv.client.ClientStats;
import io.rdmakv.client.KvClient;
import io.rdmakv.client.KvClientConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;

/**
 * One thread, synchronous operations against the same operations 16 at a time ({@code getAll} /
 * {@code putAll}) and 16 {@code getAsync} / {@code putAsync} outstanding at a time, side by side in one run
 * against a running cluster: loads records, warms every path (and the slot cache), then times each over the
 * same number of operations on random keys and prints {@code key=value} lines: ops/s, round trips per
 * operation and the cache hit ratio of each, and the speed-ups. {@code --mode get} (the default) times GETs,
 * {@code --mode put} PUTs (updates of loaded keys, then reads every record back to check none was lost).
 * Usage: {@code BatchBenchmark --hosts H:P [--transport T] [--mode get|put] [--records N] [--ops N] [--batch N]
 * [--value-size B]}.
 */
public final class BatchBenchmark
{
    private BatchBenchmark()
    {
    }

    @Command(name = "BatchBenchmark", sortOptions = false, showDefaultValues = true,
        description = "One thread's GETs or PUTs synchronous, batched and async, side by side; prints key=value lines.")
    static final class Options
    {
        @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
        boolean help;


        @Mixin
        final ClusterOptions cluster = ClusterOptions.defaults("127.0.0.1:7400", "auto");

        @Option(names = "--mode", paramLabel = "get|put", description = "Time GETs or PUTs.")
        String mode = "get";

        @Option(names = "--records", paramLabel = "N", description = "Records loaded first.")
        int records = 10_000;

        @Option(names = "--ops", paramLabel = "N", description = "Operations timed per way.")
        int ops = 200_000;

        @Option(names = "--batch", paramLabel = "N", description = "Keys per batch and async operations outstanding.")
        int batch = 16;

        @Option(names = "--value-size", paramLabel = "B", description = "Value length in bytes.")
        int valueSize = 1024;
    }

    public static void main(final String[] args)
    {
        final Options options = BenchArgs.parse(new Options(), args);
        final String hosts = options.cluster.hosts;
        final String transport = options.cluster.transport;
        final int records = options.records;
        final int ops = options.ops;
        final int batch = options.batch;
        final int valueSize = options.valueSize;
        final String mode = options.mode;
        if (!mode.equals("get") && !mode.equals("put"))
        {
            BenchArgs.usageError(options, "--mode must be get or put, not '" + mode + "'");
        }
        puts = mode.equals("put");
        try (KvClient client = KvClient.connect(KvClientConfig.of(hosts).withTransport(transport)
            .withOpTimeout(Duration.ofSeconds(10))))
        {
            final byte[] value = new byte[valueSize];
            new SplittableRandom(1).nextBytes(value);
            BatchBenchmark.value = value;
            for (int r = 0; r < records; r++)
            {
                client.put(key(r), value);
            }
            System.out.println("mode=" + mode);
            System.out.println("records=" + records);
            System.out.println("ops=" + ops);
            System.out.println("batch=" + batch);
            synchronous(client, records, ops / 4, 2);
            batched(client, records, ops / 4, batch, 3);
            outstanding(client, records, ops / 4, batch, 4);
            final Result sync = synchronous(client, records, ops, 5);
            final Result batches = batched(client, records, ops, batch, 6);
            final Result async = outstanding(client, records, ops, batch, 7);
            sync.print("sync");
            batches.print("batch");
            async.print("async");
            print("batch_speedup", batches.opsPerSec / sync.opsPerSec);
            print("async_speedup", async.opsPerSec / sync.opsPerSec);
            long missing = sync.missing + batches.missing + async.missing;
            if (puts)
            {
                missing += missing(client, records);
            }
            if (missing > 0)
            {
                System.out.println("errors=" + missing + " (loaded keys read as absent)");
                System.exit(1);
            }
        }
    }

    private static boolean puts;
    private static byte[] value;

    /** Loaded records that read back as absent. */
    private static long missing(final KvClient client, final int records)
    {
        long missing = 0;
        final List<byte[]> keys = new ArrayList<>();
        for (int r = 0; r < records; r++)
        {
            keys.add(key(r));
        }
        for (final byte[] v : client.getAll(keys))
        {
            if (v == null || v.length != value.length)
            {
                missing++;
            }
        }
        return missing;
    }

    private static Result synchronous(final KvClient client, final int records, final int ops, final long seed)
    {
        final SplittableRandom random = new SplittableRandom(seed);
        final ClientStats before = client.stats();
        long missing = 0;
        final long start = System.nanoTime();
        for (int i = 0; i < ops; i++)
        {
            if (puts)
            {
                client.put(key(random.nextInt(records)), value);
            }
            else if (client.get(key(random.nextInt(records))) == null)
            {
                missing++;
            }
        }
        return new Result(ops, System.nanoTime() - start, before, client.stats(), missing);
    }

    private static Result batched(final KvClient client, final int records, final int ops, final int batch,
        final long seed)
    {
        final SplittableRandom random = new SplittableRandom(seed);
        final List<byte[]> keys = new ArrayList<>(batch);
        final ClientStats before = client.stats();
        long missing = 0;
        final long start = System.nanoTime();
        final Map<byte[], byte[]> entries = new LinkedHashMap<>();
        for (int done = 0; done < ops; done += batch)
        {
            keys.clear();
            for (int j = 0; j < batch; j++)
            {
                keys.add(key(random.nextInt(records)));
            }
            if (puts)
            {
                entries.clear();
                keys.forEach(k -> entries.put(k, value));
                client.putAll(entries);
                continue;
            }
            for (final byte[] v : client.getAll(keys))
            {
                if (v == null)
                {
                    missing++;
                }
            }
        }
        return new Result(ops, System.nanoTime() - start, before, client.stats(), missing);
    }

    /** {@code batch} getAsync (putAsync) calls outstanding at a time from this one thread. */
    private static Result outstanding(final KvClient client, final int records, final int ops, final int batch,
        final long seed)
    {
        final SplittableRandom random = new SplittableRandom(seed);
        final List<CompletableFuture<?>> inFlight = new ArrayList<>(batch);
        final ClientStats before = client.stats();
        long missing = 0;
        final long start = System.nanoTime();
        for (int done = 0; done < ops; done += batch)
        {
            inFlight.clear();
            for (int j = 0; j < batch; j++)
            {
                final byte[] key = key(random.nextInt(records));
                inFlight.add(puts ? client.putAsync(key, value) : client.getAsync(key));
            }
            for (final CompletableFuture<?> f : inFlight)
            {
                if (f.join() == null && !puts)
                {
                    missing++;
                }
            }
        }
        return new Result(ops, System.nanoTime() - start, before, client.stats(), missing);
    }

    private record Result(double opsPerSec, double roundTripsPerOp, double hitRatio, long missing)
    {
        Result(final int ops, final long nanos, final ClientStats before, final ClientStats after, final long missing)
        {
            this(ops / (nanos / 1e9),
                (puts ? after.putRoundTrips() - before.putRoundTrips() : after.getRoundTrips() - before.getRoundTrips())
                    / (double)Math.max(1, puts ?
                    after.puts() - before.puts() : after.gets() - before.gets()),
                ratio(after.cacheHits() - before.cacheHits(), after.cacheMisses() - before.cacheMisses()), missing);
        }

        void print(final String mode)
        {
            BatchBenchmark.print(mode + "_ops_per_sec", opsPerSec);
            BatchBenchmark.print(mode + (puts ? "_rtt_per_put" : "_rtt_per_get"), roundTripsPerOp);
            BatchBenchmark.print(mode + "_cache_hit_ratio", hitRatio);
        }

        private static double ratio(final long hits, final long misses)
        {
            return hits + misses == 0 ? 0 : hits / (double)(hits + misses);
        }
    }

    private static byte[] key(final int r)
    {
        return ("user" + r).getBytes(StandardCharsets.UTF_8);
    }

    private static void print(final String name, final double value)
    {
        System.out.println(name + "=" + String.format(Locale.ROOT, "%.3f", value));
    }
}
