package io.rdmakv.verbs.ibverbs;

import io.rdmakv.verbs.AccessFlags;
import io.rdmakv.verbs.CompletionQueue;
import io.rdmakv.verbs.ConnectOptions;
import io.rdmakv.verbs.Context;
import io.rdmakv.verbs.MemoryRegion;
import io.rdmakv.verbs.ProtectionDomain;
import io.rdmakv.verbs.QueuePair;
import io.rdmakv.verbs.QueuePairConfig;
import io.rdmakv.verbs.SendFlags;
import io.rdmakv.verbs.SendWorkRequest;
import io.rdmakv.verbs.SendWorkRequests;
import io.rdmakv.verbs.VerbsConfig;
import io.rdmakv.verbs.WorkCompletions;
import io.rdmakv.verbs.util.AdaptiveSpin;
import org.HdrHistogram.Histogram;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Latency of one RDMA READ, WRITE, compare-and-swap and fetch-and-add over the {@code ibverbs}
 * provider, from Java: two RC queue pairs of this process connected to each other, one signaled work
 * request at a time, busy-polling the completion queue. Each sample is post to completion, a full
 * round trip (for WRITE: the data out and the ACK back). Prints p50/p99 per operation; READ also with the
 * client's other wait strategies side by side: {@code READ/adaptive} (spin about one round trip, then
 * block in the completion channel: the client's default, with the same {@link AdaptiveSpin} policy as
 * the client's {@code LaneWaiter}) and
 * {@code READ/blocking} (block in the completion channel at once).
 *
 * <pre>java --enable-native-access=ALL-UNNAMED -cp ... io.rdmakv.verbs.ibverbs.IbverbsLatency [iterations] [warmup] [bytes]</pre>
 */
public final class IbverbsLatency
{
    private static final long WAIT_NANOS = 10_000_000_000L;

    private IbverbsLatency()
    {
    }

    public static void main(final String[] args)
    {
        final int iterations = args.length > 0 ? Integer.parseInt(args[0]) : 5000;
        final int warmup = args.length > 1 ? Integer.parseInt(args[1]) : 2000;
        final int bytes = args.length > 2 ? Integer.parseInt(args[2]) : 8;
        final String reason = IbverbsProvider.INSTANCE.unavailableReason();
        if (reason != null)
        {
            System.err.println("ibverbs is not usable here: " + reason);
            System.exit(2);
        }
        try (Context context = IbverbsProvider.INSTANCE.open(VerbsConfig.DEFAULT);
             Arena arena = Arena.ofShared();
             SendWorkRequests sends = SendWorkRequests.allocate(1, 1);
             WorkCompletions completions = WorkCompletions.allocate(4))
        {
            final ProtectionDomain pd = context.allocateProtectionDomain();
            final CompletionQueue cqA = context.createCompletionQueue(16);
            final CompletionQueue cqB = context.createCompletionQueue(16);
            final MemorySegment local = arena.allocate(4096, 4096);
            final MemorySegment remote = arena.allocate(4096, 4096);
            final MemoryRegion localMr = pd.registerMemory(local, AccessFlags.LOCAL_WRITE);
            final MemoryRegion remoteMr = pd.registerMemory(remote, AccessFlags.ALL_REMOTE);
            final QueuePair a = pd.createQueuePair(QueuePairConfig.of(cqA, 16, 1));
            final QueuePair b = pd.createQueuePair(QueuePairConfig.of(cqB, 16, 1));
            a.connect(b.localEndpoint(), ConnectOptions.DEFAULT);
            b.connect(a.localEndpoint(), ConnectOptions.DEFAULT);
            System.out.println("ibverbs latency on " + context.deviceName() + " (" + context.attributes().linkLayer() +
                "), " + bytes + " bytes, " + iterations + " iterations after " + warmup + " warm-up, one outstanding, busy poll");

            final SendWorkRequest wr = sends.at(0).sendFlags(SendFlags.SIGNALED);
            final long l = local.address();
            final long r = remoteMr.address();
            final int lkey = localMr.lkey();
            final int rkey = remoteMr.rkey();
            run("READ", a, cqA, completions, wr, iterations, warmup,
                i -> wr.wrId(i).rdmaRead(l, bytes, lkey, r, rkey));
            run("READ/adaptive", a, cqA, completions, wr, iterations, warmup,
                i -> wr.wrId(i).rdmaRead(l, bytes, lkey, r, rkey));
            run("READ/blocking", a, cqA, completions, wr, iterations, warmup,
                i -> wr.wrId(i).rdmaRead(l, bytes, lkey, r, rkey));
            run("WRITE", a, cqA, completions, wr, iterations, warmup,
                i -> wr.wrId(i).rdmaWrite(l, bytes, lkey, r, rkey));
            run("CAS", a, cqA, completions, wr, iterations, warmup,
                i -> wr.wrId(i).compareAndSwap(l, lkey, r + 64, rkey, i, i + 1));
            run("FAA", a, cqA, completions, wr, iterations, warmup,
                i -> wr.wrId(i).fetchAndAdd(l, lkey, r + 128, rkey, 1));

            a.close();
            b.close();
            localMr.close();
            remoteMr.close();
            cqA.close();
            cqB.close();
            pd.close();
        }
    }

    @FunctionalInterface
    private interface Prepare
    {
        void prepare(long i);
    }

    private static void run(
        final String name, final QueuePair qp, final CompletionQueue cq, final WorkCompletions completions,
        final SendWorkRequest wr, final int iterations, final int warmup, final Prepare prepare)
    {
        final Histogram histogram = new Histogram(3_600_000_000_000L, 3);
        final boolean adaptive = name.endsWith("/adaptive");
        final boolean blocking = name.endsWith("/blocking");
        final AdaptiveSpin policy = new AdaptiveSpin();
        for (int i = 0; i < warmup + iterations; i++)
        {
            prepare.prepare(i);
            final long start = System.nanoTime();
            final int rc = qp.postSend(wr);
            if (rc != 0)
            {
                throw new IllegalStateException(name + ": post failed with " + rc);
            }
            int n;
            if (blocking)
            {
                n = cq.await(completions, WAIT_NANOS);
            }
            else if (adaptive)
            {
                n = adaptiveWait(policy, cq, completions, start);
            }
            else
            {
                while ((n = cq.poll(completions)) == 0)
                {
                    Thread.onSpinWait();
                }
            }
            final long elapsed = System.nanoTime() - start;
            policy.roundTrip(elapsed);
            if (n <= 0 || !completions.at(0).isSuccess())
            {
                throw new IllegalStateException(name + ": completion failed: " + (n <= 0 ? n : completions.at(0)));
            }
            if (i >= warmup)
            {
                histogram.recordValue(elapsed);
            }
        }
        System.out.printf("java %-13s p50 %8.2f us  p99 %8.2f us  mean %8.2f us  min %8.2f us  max %9.2f us  (n=%d)%n",
            name, histogram.getValueAtPercentile(50) / 1e3, histogram.getValueAtPercentile(99) / 1e3,
            histogram.getMean() / 1e3, histogram.getMinValue() / 1e3, histogram.getMaxValue() / 1e3,
            histogram.getTotalCount());
    }

    /** Waits as the client's adaptive lane does ({@link AdaptiveSpin}): spin about one round trip, then block. */
    private static int adaptiveWait(
        final AdaptiveSpin policy, final CompletionQueue cq, final WorkCompletions completions, final long posted)
    {
        final boolean spinNow = policy.enter();
        try
        {
            if (spinNow)
            {
                final long spinEnd = posted + policy.spinBudgetNanos();
                int n;
                while ((n = cq.poll(completions)) == 0 && System.nanoTime() - spinEnd < 0)
                {
                    Thread.onSpinWait();
                }
                policy.spun(n != 0);
                if (n != 0)
                {
                    return n;
                }
            }
            return cq.await(completions, WAIT_NANOS);
        }
        finally
        {
            policy.exit();
        }
    }
}
