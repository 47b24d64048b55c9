package io.rdmakv.verbs.ibverbs;

import io.rdmakv.verbs.AccessFlags;
import io.rdmakv.verbs.CompletionQueue;
import io.rdmakv.verbs.ConnectOptions;
import io.rdmakv.verbs.resource.Errno;
import io.rdmakv.verbs.MemoryRegion;
import io.rdmakv.verbs.ProtectionDomain;
import io.rdmakv.verbs.QueuePair;
import io.rdmakv.verbs.QueuePairConfig;
import io.rdmakv.verbs.ReceiveWorkRequests;
import io.rdmakv.verbs.SendFlags;
import io.rdmakv.verbs.SendWorkRequests;
import io.rdmakv.verbs.VerbsConfig;
import io.rdmakv.verbs.WorkCompletion;
import io.rdmakv.verbs.WorkCompletions;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Not a test: the experiments behind the Soft-RoCE deviations the conformance suite accepts, to repeat
 * them on another kernel or rdma-core ({@code scripts/softroce-probe.sh} runs it in the VM). Prints, for
 * the first usable device:
 * <ul>
 * <li>its vendor id (Soft-RoCE: 0xffffff) and the kernel version;</li>
 * <li>for several {@code timeout}/{@code retry_cnt} pairs: what {@code ibv_query_qp} reports after
 * connect, and how long an RDMA READ to a destroyed peer queue pair takes to fail, if it does (this
 * class passes the counts as given, but {@link IbvQueuePair#retryCountFor} already maps 7 to 6 on
 * Soft-RoCE, so the "retry 7" line shows the provider's behaviour, not the raw device's);</li>
 * <li>whether a RECV posted to a queue pair already in ERR is flushed on its own, and which later
 * event (another modify to ERR, a SEND on the same queue pair, a SEND from the peer, a query, nothing)
 * gets it flushed.</li>
 * </ul>
 */
public final class RxeProbe
{
    private final IbvContext context;
    private final ProtectionDomain pd;
    private final MemoryRegion mr;
    private final SendWorkRequests sends = SendWorkRequests.allocate(1, 1);
    private final ReceiveWorkRequests receives = ReceiveWorkRequests.allocate(1, 1);
    private final WorkCompletions wcs = WorkCompletions.allocate(16);

    private RxeProbe(final IbvContext context, final Arena arena)
    {
        this.context = context;
        this.pd = context.allocateProtectionDomain();
        this.mr = pd.registerMemory(arena.allocate(8192, 4096), AccessFlags.LOCAL_WRITE | AccessFlags.ALL_REMOTE);
    }

    public static void main(final String[] args)
    {
        System.out.println("probe: os.version " + System.getProperty("os.version"));
        try (Arena arena = Arena.ofShared();
             IbvContext context = (IbvContext)IbverbsProvider.INSTANCE.open(VerbsConfig.DEFAULT))
        {
            System.out.printf("probe: device %s vendor_id 0x%x part %d softRoce %b%n", context.deviceName(),
                context.vendorId(), context.vendorPartId(), context.isSoftRoce());
            final RxeProbe p = new RxeProbe(context, arena);
            final ConnectOptions d = ConnectOptions.DEFAULT;
            p.peerGone("default (timeout 14, retry 7)", d, 4000);
            p.peerGone("timeout 14, retry 6", new ConnectOptions(d.accessFlags(), 14, 6, 7, 12, 0, -1), 4000);
            p.peerGone("timeout 10, retry 1", new ConnectOptions(d.accessFlags(), 10, 1, 7, 12, 0, -1), 4000);
            p.peerGone("timeout 10, retry 0", new ConnectOptions(d.accessFlags(), 10, 0, 7, 12, 0, -1), 4000);
            for (final String trigger : List.of("none", "modify-to-error-again", "own-send", "peer-send",
                "query-qp", "poll-only"))
            {
                p.recvAfterError(trigger);
            }
            p.mr.close();
            p.pd.close();
            p.sends.close();
            p.receives.close();
            p.wcs.close();
        }
        System.out.println("probe: done");
    }

    private QueuePair[] pair(final CompletionQueue cqA, final CompletionQueue cqB, final ConnectOptions options)
    {
        final QueuePair a = pd.createQueuePair(QueuePairConfig.of(cqA, 32, 32));
        final QueuePair b = pd.createQueuePair(QueuePairConfig.of(cqB, 32, 32));
        final var ea = a.localEndpoint();
        final var eb = b.localEndpoint();
        a.connect(eb, options);
        b.connect(ea, options);
        return new QueuePair[] {a, b};
    }

    private List<String> drain(final CompletionQueue cq, final int n, final long waitMillis, final long t0)
    {
        final List<String> got = new ArrayList<>();
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMillis);
        while (got.size() < n)
        {
            final long left = deadline - System.nanoTime();
            if (left <= 0)
            {
                break;
            }
            final int k = cq.await(wcs, left);
            for (int i = 0; i < k; i++)
            {
                final WorkCompletion wc = wcs.at(i);
                got.add("wr " + wc.wrId() + " " + wc.statusEnum() + " after " +
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0) + " ms");
            }
        }
        return got;
    }

    private void peerGone(final String label, final ConnectOptions options, final long waitMillis)
    {
        try (CompletionQueue cqA = context.createCompletionQueue(64);
             CompletionQueue cqB = context.createCompletionQueue(64))
        {
            final QueuePair[] qps = pair(cqA, cqB, options);
            System.out.println("probe[peer gone, " + label + "]: client " + ((IbvQueuePair)qps[0]).query());
            sends.at(0).rdmaRead(mr.address(), 8, mr.lkey(), mr.address() + 4096, mr.rkey()).wrId(1)
                .sendFlags(SendFlags.SIGNALED);
            System.out.println("probe[peer gone, " + label + "]: read before close rc " +
                Errno.name(qps[0].postSend(sends.at(0))) + " -> " + drain(cqA, 1, 2000, System.nanoTime()));
            qps[1].close();
            final long t0 = System.nanoTime();
            final int rc = qps[0].postSend(sends.at(0).wrId(2));
            System.out.println("probe[peer gone, " + label + "]: read after close rc " + Errno.name(rc) + " -> " +
                drain(cqA, 1, waitMillis, t0) + "; state " + qps[0].state());
            qps[0].close();
        }
    }

    private void recvAfterError(final String trigger)
    {
        try (CompletionQueue cqA = context.createCompletionQueue(64);
             CompletionQueue cqB = context.createCompletionQueue(64))
        {
            final QueuePair[] qps = pair(cqA, cqB, ConnectOptions.DEFAULT);
            final QueuePair server = qps[1];
            receives.at(0).wrId(1).buffer(mr.address(), 64, mr.lkey()).next(null);
            server.postReceive(receives.at(0));
            server.modifyToError();
            long t0 = System.nanoTime();
            final String label = "probe[recv after ERR, trigger " + trigger + "]: ";
            System.out.println(label + "flush of the RECV posted before: " + drain(cqB, 1, 2000, t0));
            t0 = System.nanoTime();
            final int rc = server.postReceive(receives.at(0).wrId(2));
            System.out.println(label + "postReceive in ERR rc " + Errno.name(rc) + "; without a trigger: " +
                drain(cqB, 1, 1500, t0));
            switch (trigger)
            {
                case "modify-to-error-again" -> server.modifyToError();
                case "own-send" -> System.out.println(label + "own SEND rc " + Errno.name(server.postSend(
                    sends.at(0).send(mr.address() + 128, 8, mr.lkey()).wrId(3).sendFlags(SendFlags.SIGNALED))));
                case "peer-send" -> System.out.println(label + "peer SEND rc " + Errno.name(qps[0].postSend(
                    sends.at(0).send(mr.address() + 128, 8, mr.lkey()).wrId(4).sendFlags(SendFlags.SIGNALED))));
                case "query-qp" -> System.out.println(label + "query " + ((IbvQueuePair)server).query());
                default ->
                {
                }
            }
            t0 = System.nanoTime();
            System.out.println(label + "after the trigger: server cq " + drain(cqB, 3, 2500, t0) + ", client cq " +
                drain(cqA, 1, 100, t0));
            server.close();
            qps[0].close();
        }
    }
}
