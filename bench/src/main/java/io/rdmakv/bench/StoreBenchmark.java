package io.rdmakv.bench;

import io.rdmakv.client.ClientStats;
import io.rdmakv.client.KvClient;
import io.rdmakv.client.KvClientConfig;
import io.rdmakv.peer.WaitStrategy;
import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * A closed-loop driver against a running cluster: loads records, then runs a GET/PUT mix from
 * several threads, and prints {@code key=value} lines: throughput, latency percentiles per operation
 * (HdrHistogram), round trips per operation and control messages per 100 PUTs (from the client's
 * counters). Usage: {@code StoreBenchmark --hosts H:P [--transport T] [--records N] [--ops N]
 * [--threads N] [--value-size B] [--read-percent P] [--wait busy-spin|adaptive|blocking]}.
 */
public final class StoreBenchmark
{
    private StoreBenchmark()
    {
    }

    @Command(name = "StoreBenchmark", sortOptions = false, showDefaultValues = true,
        description = "Closed-loop GET/PUT mix against a running cluster; prints key=value lines.")
    static final class Options
    {
        @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
        boolean help;


        @Mixin
        final ClusterOptions cluster = ClusterOptions.defaults("127.0.0.1:7400", "auto");

        @Option(names = "--records", paramLabel = "N", description = "Records loaded first.")
        int records = 10_000;

        @Option(names = "--ops", paramLabel = "N", description = "Operations timed, over all threads.")
        int ops = 100_000;

        @Option(names = "--threads", paramLabel = "N", description = "Client threads.")
        int threads = 1;

        @Option(names = "--value-size", paramLabel = "B", description = "Value length in bytes.")
        int valueSize = 1024;

        @Option(names = "--read-percent", paramLabel = "P", description = "Share of GETs in the mix.")
        int readPercent = 50;

        @Option(names = "--wait", paramLabel = "busy-spin|adaptive|blocking", converter = BenchArgs.WaitConverter.class,
            description = "How a lane waits for its round trip.")
        WaitStrategy wait = WaitStrategy.ADAPTIVE;
    }

    public static void main(final String[] args) throws Exception
    {
        final Options options = BenchArgs.parse(new Options(), args);
        final String hosts = options.cluster.hosts;
        final String transport = options.cluster.transport;
        final int records = options.records;
        final int ops = options.ops;
        final int threads = options.threads;
        final int valueSize = options.valueSize;
        final int readPercent = options.readPercent;
        final WaitStrategy wait = options.wait;
        System.out.println("wait=" + wait);
        try (KvClient client = KvClient.connect(KvClientConfig.of(hosts).withTransport(transport)
            .withOpTimeout(Duration.ofSeconds(10)).withWaitStrategy(wait)))
        {
            final byte[] value = new byte[valueSize];
            new SplittableRandom(1).nextBytes(value);
            final long loadStart = System.nanoTime();
            for (int r = 0; r < records; r++)
            {
                client.put(key(r), value);
            }
            final double loadSeconds = (System.nanoTime() - loadStart) / 1e9;
            System.out.println("load_records=" + records);
            print("load_ops_per_sec", records / loadSeconds);

            final ClientStats before = client.stats();
            final int perThread = ops / threads;
            final int recordCount = records;
            final int reads = readPercent;
            final List<Worker> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++)
            {
                workers.add(new Worker(client, recordCount, perThread, reads, valueSize, t));
            }
            final long start = System.nanoTime();
            workers.forEach(w -> w.thread.start());
            for (final Worker w : workers)
            {
                w.thread.join();
            }
            final double seconds = (System.nanoTime() - start) / 1e9;
            final ClientStats after = client.stats();
            final Histogram gets = new Histogram(3_600_000_000_000L, 3);
            final Histogram puts = new Histogram(3_600_000_000_000L, 3);
            long failures = 0;
            long cpuNanos = 0;
            long userNanos = 0;
            for (final Worker w : workers)
            {
                gets.add(w.gets);
                puts.add(w.puts);
                failures += w.failures;
                cpuNanos += w.cpuNanos;
                userNanos += w.userNanos;
            }
            System.out.println("threads=" + threads);
            print("ops_per_sec", (gets.getTotalCount() + puts.getTotalCount()) / seconds);
            latency("get", gets);
            latency("put", puts);
            // CPU of the calling threads only (not the client's janitor, the JIT or GC): user mode is the client
            // library's own work plus this loop's; system is the tcp provider's system calls (the "NIC" here) and
            // blocking; on a real NIC posting and polling stay in user mode.
            final double measuredOps = Math.max(1, gets.getTotalCount() + puts.getTotalCount());
            print("caller_cpu_us_per_op", cpuNanos / 1e3 / measuredOps);
            print("caller_user_us_per_op", userNanos / 1e3 / measuredOps);
            final long getOps = after.gets() - before.gets();
            final long putOps = after.puts() - before.puts();
            final long trips = after.roundTrips() - before.roundTrips();
            print("rtt_per_op", trips / (double)Math.max(1, getOps + putOps));
            print("control_msgs_per_100_puts",
                100.0 * (after.controlMessages() - before.controlMessages()) / Math.max(1, putOps));
            print("cas_retries_per_put", (after.casRetries() - before.casRetries()) / (double)Math.max(1, putOps));
            print("validation_retries", after.validationRetries() - before.validationRetries());
            print("cache_hit_ratio", (after.cacheHits() - before.cacheHits()) / (double)Math.max(1, getOps + putOps));
            System.out.println("errors=" + failures);
            roundTripsPerOperation(client, records, value);
            allocationPerOperation(client, records, valueSize);
            if (failures > 0)
            {
                System.exit(1);
            }
        }
    }

    /**
     * Measures round trips of each operation kind on its own, with a fresh client so that what is cached
     * is known: first touch (nothing cached), a second pass (slot address cached), and a key updated
     * again at once (cached entry still fresh enough for a blind CAS).
     */
    private static void roundTripsPerOperation(final KvClient client, final int records, final byte[] value)
    {
        final int n = Math.min(records, 2_000);
        try (KvClient cold = KvClient.connect(KvClientConfig.of(hostsOf(client)).withTransport(transportOf(client))))
        {
            ClientStats c = cold.stats();
            for (int r = 0; r < n; r++)
            {
                cold.get(key(r));
            }
            c = report("rtt_per_get_uncached", c, cold.stats(), n);
            for (int r = 0; r < n; r++)
            {
                cold.get(key(r));
            }
            final ClientStats afterGets = cold.stats();
            print("control_msgs_per_get", (afterGets.controlMessages() - c.controlMessages()) / (double)n);
            c = report("rtt_per_get_cached", c, afterGets, n);
            for (int r = 0; r < n; r++)
            {
                cold.put(key(r), value);
            }
            c = report("rtt_per_update_cached", c, cold.stats(), n);
            for (int r = 0; r < n; r++)
            {
                cold.put(key(0), value);
            }
            c = report("rtt_per_update_hot_key", c, cold.stats(), n);
            for (int r = 0; r < n; r++)
            {
                cold.put(("fresh-" + r).getBytes(StandardCharsets.UTF_8), value);
            }
            c = report("rtt_per_insert", c, cold.stats(), n);
            for (int r = 0; r < n; r++)
            {
                cold.delete(("fresh-" + r).getBytes(StandardCharsets.UTF_8));
            }
            report("rtt_per_delete_cached", c, cold.stats(), n);
        }
        try (KvClient cold = KvClient.connect(KvClientConfig.of(hostsOf(client)).withTransport(transportOf(client))))
        {
            final ClientStats c = cold.stats();
            for (int r = 0; r < n; r++)
            {
                cold.put(key(r), value);
            }
            report("rtt_per_update_uncached", c, cold.stats(), n);
        }
    }

    /**
     * Bytes the calling thread allocates per GET and per PUT in steady state, through the MemorySegment
     * forms (keys prepared up front): the JVM's per-thread allocation counter around the loop.
     */
    private static void allocationPerOperation(final KvClient client, final int records, final int valueSize)
    {
        final int n = Math.min(records, 1_000);
        final com.sun.management.ThreadMXBean mx =
            (com.sun.management.ThreadMXBean)java.lang.management.ManagementFactory.getThreadMXBean();
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment[] keys = new MemorySegment[n];
            for (int r = 0; r < n; r++)
            {
                keys[r] = arena.allocateFrom(java.lang.foreign.ValueLayout.JAVA_BYTE, key(r));
            }
            final MemorySegment value = arena.allocate(valueSize);
            final MemorySegment dst = arena.allocate(valueSize + 64);
            for (int round = 0; round < 3; round++)
            {
                long before = mx.getCurrentThreadAllocatedBytes();
                for (int i = 0; i < 10 * n; i++)
                {
                    client.get(keys[i % n], dst);
                }
                final double perGet = (mx.getCurrentThreadAllocatedBytes() - before) / (10.0 * n);
                before = mx.getCurrentThreadAllocatedBytes();
                for (int i = 0; i < 10 * n; i++)
                {
                    client.put(keys[i % n], value);
                }
                final double perPut = (mx.getCurrentThreadAllocatedBytes() - before) / (10.0 * n);
                if (round == 2)
                {
                    print("alloc_bytes_per_get", perGet);
                    print("alloc_bytes_per_put", perPut);
                }
            }
        }
    }

    private static String hostsOf(final KvClient client)
    {
        final var node = client.clusterMap().nodes().get(0);
        return node.host() + ":" + node.port();
    }

    private static String transportOf(final KvClient client)
    {
        return client.transport();
    }

    private static ClientStats report(final String key, final ClientStats before, final ClientStats after,
        final int ops)
    {
        print(key, (after.roundTrips() - before.roundTrips()) / (double)ops);
        return after;
    }

    private static byte[] key(final int r)
    {
        return ("user" + r).getBytes(StandardCharsets.UTF_8);
    }

    private static void print(final String key, final double value)
    {
        System.out.println(key + "=" + String.format(Locale.ROOT, "%.2f", value));
    }

    private static void latency(final String op, final Histogram h)
    {
        System.out.println(op + "_count=" + h.getTotalCount());
        print(op + "_p50_us", h.getValueAtPercentile(50) / 1000.0);
        print(op + "_p99_us", h.getValueAtPercentile(99) / 1000.0);
        print(op + "_avg_us", h.getMean() / 1000.0);
    }

    /** One closed-loop thread: GETs and PUTs of random loaded keys through the MemorySegment forms of the API. */
    private static final class Worker
    {
        final Histogram gets = new Histogram(3_600_000_000_000L, 3);
        final Histogram puts = new Histogram(3_600_000_000_000L, 3);
        final Thread thread;
        long failures;
        /** This thread's CPU time (user + system) and user-mode time over its loop (ThreadMXBean). */
        long cpuNanos;
        long userNanos;

        Worker(final KvClient client, final int records, final int ops, final int readPercent, final int valueSize,
            final int index)
        {
            thread = Thread.ofPlatform().name("bench-" + index).unstarted(() ->
            {
                final SplittableRandom random = new SplittableRandom(index + 1);
                final java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
                final long cpu0 = mx.getCurrentThreadCpuTime();
                final long user0 = mx.getCurrentThreadUserTime();
                try (Arena arena = Arena.ofConfined())
                {
                    final MemorySegment keyBuffer = arena.allocate(64);
                    final MemorySegment value = arena.allocate(valueSize);
                    final MemorySegment readBuffer = arena.allocate(valueSize + 64);
                    for (int i = 0; i < ops; i++)
                    {
                        final int r = random.nextInt(records);
                        final int keyLength = writeKey(keyBuffer, r);
                        final MemorySegment key = keyBuffer.asSlice(0, keyLength);
                        final long t0 = System.nanoTime();
                        try
                        {
                            if (random.nextInt(100) < readPercent)
                            {
                                if (client.get(key, readBuffer) < 0)
                                {
                                    failures++;
                                }
                                gets.recordValue(System.nanoTime() - t0);
                            }
                            else
                            {
                                client.put(key, value);
                                puts.recordValue(System.nanoTime() - t0);
                            }
                        }
                        catch (final RuntimeException e)
                        {
                            failures++;
                        }
                    }
                }
                cpuNanos = mx.getCurrentThreadCpuTime() - cpu0;
                userNanos = mx.getCurrentThreadUserTime() - user0;
            });
        }

        private static int writeKey(final MemorySegment buffer, final int r)
        {
            final byte[] k = ("user" + r).getBytes(StandardCharsets.US_ASCII);
            MemorySegment.copy(k, 0, buffer, java.lang.foreign.ValueLayout.JAVA_BYTE, 0, k.length);
            return k.length;
        }
    }
}
