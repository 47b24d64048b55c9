package io.rdmakv.bench;

import io.rdmakv.verbs.AccessFlags;
import io.rdmakv.verbs.CompletionQueue;
import io.rdmakv.verbs.ConnectOptions;
import io.rdmakv.verbs.Context;
import io.rdmakv.verbs.MemoryRegion;
import io.rdmakv.verbs.ProtectionDomain;
import io.rdmakv.verbs.Providers;
import io.rdmakv.verbs.QueuePair;
import io.rdmakv.verbs.QueuePairConfig;
import io.rdmakv.verbs.SendFlags;
import io.rdmakv.verbs.SendWorkRequest;
import io.rdmakv.verbs.SendWorkRequests;
import io.rdmakv.verbs.VerbsConfig;
import io.rdmakv.verbs.WorkCompletions;
import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.lang.foreign.Arena;
import java.lang.management.ManagementFactory;
import java.util.Locale;

/**
 * Verbs latency and throughput on one connected queue pair, next to a raw TCP ping-pong measured in
 * the same run. Prints {@code key=value} lines. Usage:
 * {@code VerbsBenchmark [--provider tcp|ibverbs|auto] [--iterations N] [--warmup N] [--seconds S]}.
 */
public final class VerbsBenchmark implements AutoCloseable
{
    private static final int DEPTH = 16;
    private static final int REGION = 1 << 20;

    private final Arena arena = Arena.ofShared();
    private final Context serverContext;
    private final Context clientContext;
    private final ProtectionDomain serverPd;
    private final ProtectionDomain clientPd;
    private final CompletionQueue serverCq;
    private final CompletionQueue clientCq;
    private final MemoryRegion remote;
    private final MemoryRegion local;
    private final QueuePair serverQp;
    private final QueuePair clientQp;
    private final SendWorkRequests requests = SendWorkRequests.allocate(DEPTH, 1);
    private final WorkCompletions completions = WorkCompletions.allocate(DEPTH);

    VerbsBenchmark(final String provider)
    {
        serverContext = Providers.open(provider, VerbsConfig.DEFAULT);
        clientContext = Providers.open(provider, VerbsConfig.DEFAULT);
        serverPd = serverContext.allocateProtectionDomain();
        clientPd = clientContext.allocateProtectionDomain();
        serverCq = serverContext.createCompletionQueue(256);
        clientCq = clientContext.createCompletionQueue(256);
        remote = serverPd.registerMemory(arena.allocate(REGION, 4096), AccessFlags.LOCAL_WRITE | AccessFlags.ALL_REMOTE);
        local = clientPd.registerMemory(arena.allocate(REGION, 4096), AccessFlags.LOCAL_WRITE);
        serverQp = serverPd.createQueuePair(QueuePairConfig.of(serverCq, 64, 16));
        clientQp = clientPd.createQueuePair(QueuePairConfig.of(clientCq, 64, 16));
        serverQp.modifyToInit(ConnectOptions.DEFAULT);
        clientQp.modifyToInit(ConnectOptions.DEFAULT);
        serverQp.modifyToRtr(clientQp.localEndpoint(), ConnectOptions.DEFAULT);
        clientQp.modifyToRtr(serverQp.localEndpoint(), ConnectOptions.DEFAULT);
        serverQp.modifyToRts(ConnectOptions.DEFAULT);
        clientQp.modifyToRts(ConnectOptions.DEFAULT);
    }

    private void prepareRead(final SendWorkRequest wr, final int slot, final int length)
    {
        wr.wrId(slot).sendFlags(SendFlags.SIGNALED).next(null)
            .rdmaRead(local.address() + (long)slot * 4096, length, local.lkey(), remote.address() + (long)slot * 4096,
                remote.rkey());
    }

    /** Posts one prepared request and spins until its completion; returns false on any error. */
    private boolean once(final SendWorkRequest wr)
    {
        if (clientQp.postSend(wr) != 0)
        {
            return false;
        }
        int n;
        do
        {
            n = clientCq.poll(completions);
        }
        while (n == 0);
        return n == 1 && completions.at(0).isSuccess();
    }

    private Histogram latency(final SendWorkRequest wr, final int warmup, final int iterations)
    {
        for (int i = 0; i < warmup; i++)
        {
            check(once(wr));
        }
        final Histogram h = new Histogram(3_600_000_000_000L, 3);
        for (int i = 0; i < iterations; i++)
        {
            final long t0 = System.nanoTime();
            final boolean ok = once(wr);
            h.recordValue(System.nanoTime() - t0);
            check(ok);
        }
        return h;
    }

    private static void check(final boolean ok)
    {
        if (!ok)
        {
            throw new IllegalStateException("a work request failed during the benchmark");
        }
    }

    /** READs of 64 bytes with {@code depth} outstanding for {@code seconds}; returns operations per second. */
    private double readThroughput(final int depth, final double seconds)
    {
        for (int i = 0; i < depth; i++)
        {
            prepareRead(requests.at(i), i, 64);
        }
        long done = 0;
        int inFlight = 0;
        final long start = System.nanoTime();
        final long end = start + (long)(seconds * 1e9);
        long now = start;
        while (now < end || inFlight > 0)
        {
            while (inFlight < depth && now < end)
            {
                final int slot = (int)((done + inFlight) % depth);
                check(clientQp.postSend(requests.at(slot)) == 0);
                inFlight++;
            }
            final int n = clientCq.poll(completions);
            for (int i = 0; i < n; i++)
            {
                check(completions.at(i).isSuccess());
            }
            done += n;
            inFlight -= n;
            now = System.nanoTime();
        }
        return done / ((now - start) / 1e9);
    }

    private static long allocatedBytes()
    {
        return ((com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean()).getCurrentThreadAllocatedBytes();
    }

    private static long allocatedBytes(final String threadPrefix)
    {
        final com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        long total = 0;
        for (final Thread t : Thread.getAllStackTraces().keySet())
        {
            if (t.getName().startsWith(threadPrefix))
            {
                total += mx.getThreadAllocatedBytes(t.threadId());
            }
        }
        return total;
    }

    private static void print(final String key, final double value)
    {
        System.out.println(key + "=" + String.format(Locale.ROOT, "%.2f", value));
    }

    private static void printLatency(final String name, final Histogram h)
    {
        print(name + "_p50_us", h.getValueAtPercentile(50) / 1000.0);
        print(name + "_p99_us", h.getValueAtPercentile(99) / 1000.0);
    }

    @Command(name = "VerbsBenchmark", sortOptions = false, showDefaultValues = true,
        description = "Verbs latency and throughput over one provider, next to a raw TCP ping-pong; prints key=value lines.")
    static final class Options
    {
        @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
        boolean help;

        @Option(names = "--provider", paramLabel = "tcp|ibverbs|auto", description = "The provider.")
        String provider = "tcp";

        @Option(names = "--iterations", paramLabel = "N", description = "Timed operations per measurement.")
        int iterations = 50_000;

        @Option(names = "--warmup", paramLabel = "N", description = "Operations before each measurement.")
        int warmup = 20_000;

        @Option(names = "--seconds", paramLabel = "S", description = "Length of each throughput window.")
        double seconds = 2.0;
    }

    public static void main(final String[] args) throws Exception
    {
        final Options options = BenchArgs.parse(new Options(), args);
        final String provider = options.provider;
        final int iterations = options.iterations;
        final int warmup = options.warmup;
        final double seconds = options.seconds;

        final Histogram raw;
        double clientAlloc = 0;
        double responderAlloc = 0;
        try (RawTcpPingPong pingPong = new RawTcpPingPong(64))
        {
            raw = pingPong.measure(warmup, iterations);
        }
        try (VerbsBenchmark b = new VerbsBenchmark(provider))
        {
            System.out.println("provider=" + b.clientContext.providerName());
            printLatency("tcp_rtt", raw);

            final SendWorkRequest wr = b.requests.at(0);
            b.prepareRead(wr, 0, 64);
            final Histogram read64 = b.latency(wr, warmup, iterations);
            printLatency("read64", read64);
            b.prepareRead(wr, 0, 4096);
            printLatency("read4k", b.latency(wr, warmup, iterations));
            wr.wrId(0).sendFlags(SendFlags.SIGNALED).next(null)
                .rdmaWrite(b.local.address(), 64, b.local.lkey(), b.remote.address() + 8192, b.remote.rkey());
            printLatency("write64", b.latency(wr, warmup, iterations));
            wr.compareAndSwap(b.local.address(), b.local.lkey(), b.remote.address(), b.remote.rkey(), 0L, 0L);
            printLatency("cas", b.latency(wr, warmup, iterations));
            print("read64_p50_over_tcp_rtt_p50",
                (double)read64.getValueAtPercentile(50) / raw.getValueAtPercentile(50));

            print("read_ops_per_sec_depth1", b.readThroughput(1, seconds));
            print("read_ops_per_sec_depth16", b.readThroughput(DEPTH, seconds));

            b.prepareRead(wr, 0, 64);
            for (int round = 0; round < 2; round++)
            {
                final long responderBefore = allocatedBytes("rdmakv-tcp-responder");
                final long before = allocatedBytes();
                for (int i = 0; i < iterations; i++)
                {
                    check(b.once(wr));
                }
                final long after = allocatedBytes();
                final long responderAfter = allocatedBytes("rdmakv-tcp-responder");
                clientAlloc = (after - before) / (double)iterations;
                responderAlloc = (responderAfter - responderBefore) / (double)iterations;
            }
            print("alloc_bytes_per_op", clientAlloc);
            print("responder_alloc_bytes_per_op", responderAlloc);
        }
    }

    @Override
    public void close()
    {
        clientQp.close();
        serverQp.close();
        local.close();
        remote.close();
        clientCq.close();
        serverCq.close();
        clientPd.close();
        serverPd.close();
        clientContext.close();
        serverContext.close();
        requests.close();
        completions.close();
        arena.close();
    }
}
