package io.rdmakv.verbs.ibverbs;

import io.rdmakv.verbs.AccessFlags;
import io.rdmakv.verbs.CompletionQueue;
import io.rdmakv.verbs.ConnectOptions;
import io.rdmakv.verbs.DeviceAttributes;
import io.rdmakv.verbs.ibverbs.bindings.IbvConstants;
import io.rdmakv.verbs.ibverbs.bindings.LibC;
import io.rdmakv.verbs.resource.Errno;
import io.rdmakv.verbs.MemoryRegion;
import io.rdmakv.verbs.ProtectionDomain;
import io.rdmakv.verbs.QpState;
import io.rdmakv.verbs.QueuePair;
import io.rdmakv.verbs.QueuePairConfig;
import io.rdmakv.verbs.QueuePairEndpoint;
import io.rdmakv.verbs.ReceiveWorkRequests;
import io.rdmakv.verbs.SendFlags;
import io.rdmakv.verbs.SendWorkRequest;
import io.rdmakv.verbs.SendWorkRequests;
import io.rdmakv.verbs.VerbsConfig;
import io.rdmakv.verbs.resource.VerbsException;
import io.rdmakv.verbs.WcOpcode;
import io.rdmakv.verbs.WcStatus;
import io.rdmakv.verbs.WorkCompletion;
import io.rdmakv.verbs.WorkCompletions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The smoke test on a real device: two RC queue pairs of one process connected to each other
 * (loopback), then RDMA WRITE, READ, compare-and-swap, fetch-and-add, SEND/RECV, inline and chained
 * posts, completion-channel waits, error completions (a bad R_Key gives REM_ACCESS_ERR, then the
 * queue pair flushes; a SEND with no RECV gives RNR_RETRY_EXC_ERR) and the close-order rules.
 *
 * <p>Skipped, with the reason, where {@code ibverbs} is unusable (no RDMA in the kernel, no device).
 * {@code scripts/softroce-verbs.sh} runs it against a Soft-RoCE device in a VM.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class IbverbsLoopbackTest
{
    private static final long TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(20);
    private static final int BUFFER = 8192;

    private IbvContext context;
    private ProtectionDomain pd;
    private CompletionQueue cq;
    private QueuePair a;
    private QueuePair b;
    private Arena arena;
    private MemorySegment local;
    private MemorySegment remote;
    private MemoryRegion localMr;
    private MemoryRegion remoteMr;
    private SendWorkRequests sends;
    private ReceiveWorkRequests receives;
    private WorkCompletions completions;
    private final List<AutoCloseable> extra = new ArrayList<>();

    private String unavailableReason;

    @BeforeAll
    void openDeviceAndConnectTwoQueuePairs()
    {
        unavailableReason = IbverbsProvider.INSTANCE.unavailableReason();
        if (unavailableReason != null)
        {
            return; // each test is skipped with the reason (see skipWithoutADevice)
        }
        context = (IbvContext)IbverbsProvider.INSTANCE.open(VerbsConfig.DEFAULT);
        pd = context.allocateProtectionDomain();
        cq = context.createCompletionQueue(64);
        arena = Arena.ofShared();
        local = arena.allocate(BUFFER, 4096);
        remote = arena.allocate(BUFFER, 4096);
        localMr = pd.registerMemory(local, AccessFlags.LOCAL_WRITE);
        remoteMr = pd.registerMemory(remote, AccessFlags.LOCAL_WRITE | AccessFlags.ALL_REMOTE);
        a = pd.createQueuePair(QueuePairConfig.of(cq, 32, 32));
        b = pd.createQueuePair(QueuePairConfig.of(cq, 32, 32));
        connect(a, b, ConnectOptions.DEFAULT);
        sends = SendWorkRequests.allocate(4, 1);
        receives = ReceiveWorkRequests.allocate(4, 1);
        completions = WorkCompletions.allocate(16);
    }

    /** Reports every test as skipped, with the reason, where there is no usable device. */
    @BeforeEach
    void skipWithoutADevice()
    {
        assumeTrue(unavailableReason == null, () -> "ibverbs is not usable here: " + unavailableReason);
    }

    private static void connect(final QueuePair x, final QueuePair y, final ConnectOptions options)
    {
        final QueuePairEndpoint ex = x.localEndpoint();
        final QueuePairEndpoint ey = y.localEndpoint();
        x.connect(QueuePairEndpoint.fromBytes(ey.toBytes()), options);
        y.connect(QueuePairEndpoint.fromBytes(ex.toBytes()), options);
    }

    @AfterAll
    void closeEverything() throws Exception
    {
        if (context == null)
        {
            return;
        }
        for (final AutoCloseable c : extra.reversed())
        {
            c.close();
        }
        a.close();
        b.close();
        localMr.close();
        remoteMr.close();
        cq.close();
        pd.close();
        context.close();
        context.close(); // idempotent
        sends.close();
        receives.close();
        completions.close();
        arena.close();
    }

    /** Waits for {@code n} completions (through the completion channel) and returns them in order. */
    private List<Completed> take(final CompletionQueue queue, final int n)
    {
        final List<Completed> got = new ArrayList<>();
        final long deadline = System.nanoTime() + TIMEOUT_NANOS;
        while (got.size() < n)
        {
            final long left = deadline - System.nanoTime();
            assertTrue(left > 0, "timed out with " + got.size() + " of " + n + " completions: " + got);
            final int k = queue.await(completions, left);
            assertTrue(k >= 0, "await failed: " + k);
            for (int i = 0; i < k; i++)
            {
                got.add(Completed.of(completions.at(i)));
            }
        }
        return got;
    }

    private Completed takeOne()
    {
        final List<Completed> got = take(cq, 1);
        return got.getFirst();
    }

    record Completed(long wrId, WcStatus status, int opcode, int byteLen, int qpNum)
    {
        static Completed of(final WorkCompletion wc)
        {
            return new Completed(wc.wrId(), wc.statusEnum(), wc.opcode(), wc.byteLen(), wc.qpNum());
        }
    }

    private static byte[] pattern(final int length, final int seed)
    {
        final byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++)
        {
            bytes[i] = (byte)(seed + i * 7);
        }
        return bytes;
    }

    private static byte[] bytes(final MemorySegment segment, final long offset, final int length)
    {
        return segment.asSlice(offset, length).toArray(JAVA_BYTE);
    }

    @Test
    void queuePairsAreConnectedAndDescribeThePort()
    {
        assertEquals(QpState.RTS, a.state());
        assertEquals(QpState.RTS, b.state());
        final QueuePairEndpoint endpoint = a.localEndpoint();
        assertEquals("ibverbs", endpoint.provider());
        assertEquals(a.qpNum(), endpoint.qpNum());
        assertEquals(context.activeMtu(), endpoint.mtu());
        assertArrayEquals(context.gid(), endpoint.gid());
        final DeviceAttributes attributes = context.attributes();
        assertEquals("ACTIVE", attributes.portState());
        assertTrue(attributes.maxInlineData() > 0, attributes::toString);
        assertTrue(attributes.maxQpRdAtomic() > 0, attributes::toString);
        if ("Ethernet".equals(attributes.linkLayer()))
        {
            assertEquals(IbvConstants.IBV_GID_TYPE_ROCE_V2, context.queryGid(context.gidIndex()).type(),
                "RoCE queue pairs should send from a RoCE v2 GID: " + context.gidTable());
        }
        System.out.println("device " + context.deviceName() + ": " + attributes + ", " + context +
            ", GID table " + context.gidTable());
    }

    @Test
    void rdmaWriteLandsInRemoteMemory()
    {
        final byte[] data = pattern(1000, 1);
        MemorySegment.copy(data, 0, local, JAVA_BYTE, 0, data.length);
        sends.at(0).wrId(11).sendFlags(SendFlags.SIGNALED)
            .rdmaWrite(local.address(), data.length, localMr.lkey(), remoteMr.address() + 100, remoteMr.rkey());
        assertEquals(0, a.postSend(sends.at(0)));
        final Completed c = takeOne();
        assertEquals(new Completed(11, WcStatus.SUCCESS, WcOpcode.RDMA_WRITE, c.byteLen(), a.qpNum()), c);
        assertArrayEquals(data, bytes(remote, 100, data.length));
    }

    @Test
    void rdmaReadFetchesRemoteMemory()
    {
        final byte[] data = pattern(3000, 5);
        MemorySegment.copy(data, 0, remote, JAVA_BYTE, 4096, data.length);
        sends.at(0).wrId(12).sendFlags(SendFlags.SIGNALED)
            .rdmaRead(local.address() + 2048, data.length, localMr.lkey(), remoteMr.address() + 4096, remoteMr.rkey());
        assertEquals(0, a.postSend(sends.at(0)));
        final Completed c = takeOne();
        assertEquals(12, c.wrId());
        assertEquals(WcStatus.SUCCESS, c.status());
        assertEquals(WcOpcode.RDMA_READ, c.opcode());
        assertArrayEquals(data, bytes(local, 2048, data.length));
    }

    @Test
    void compareAndSwapSwapsOnlyOnAMatch()
    {
        remote.set(JAVA_LONG, 256, 5L);
        sends.at(0).wrId(13).sendFlags(SendFlags.SIGNALED)
            .compareAndSwap(local.address() + 8, localMr.lkey(), remoteMr.address() + 256, remoteMr.rkey(), 5L, 9L);
        assertEquals(0, a.postSend(sends.at(0)));
        Completed c = takeOne();
        assertEquals(WcStatus.SUCCESS, c.status());
        assertEquals(WcOpcode.COMP_SWAP, c.opcode());
        assertEquals(5L, local.get(JAVA_LONG, 8), "the original value comes back");
        assertEquals(9L, remote.get(JAVA_LONG, 256));

        sends.at(0).wrId(14)
            .compareAndSwap(local.address() + 8, localMr.lkey(), remoteMr.address() + 256, remoteMr.rkey(), 5L, 11L);
        assertEquals(0, a.postSend(sends.at(0)));
        c = takeOne();
        assertEquals(WcStatus.SUCCESS, c.status());
        assertEquals(9L, local.get(JAVA_LONG, 8));
        assertEquals(9L, remote.get(JAVA_LONG, 256), "no swap when compare fails");
    }

    @Test
    void fetchAndAddAddsAndReturnsTheOldValue()
    {
        remote.set(JAVA_LONG, 512, 100L);
        sends.at(0).wrId(15).sendFlags(SendFlags.SIGNALED)
            .fetchAndAdd(local.address() + 16, localMr.lkey(), remoteMr.address() + 512, remoteMr.rkey(), 23L);
        assertEquals(0, a.postSend(sends.at(0)));
        final Completed c = takeOne();
        assertEquals(WcStatus.SUCCESS, c.status());
        assertEquals(WcOpcode.FETCH_ADD, c.opcode());
        assertEquals(100L, local.get(JAVA_LONG, 16));
        assertEquals(123L, remote.get(JAVA_LONG, 512));
    }

    @Test
    void sendIsReceivedIntoAPostedBuffer()
    {
        receives.at(0).wrId(21).buffer(remote.address() + 6000, 512, remoteMr.lkey());
        assertEquals(0, b.postReceive(receives.at(0)));
        final byte[] message = pattern(100, 9);
        MemorySegment.copy(message, 0, local, JAVA_BYTE, 1024, message.length);
        sends.at(0).wrId(22).sendFlags(SendFlags.SIGNALED).send(local.address() + 1024, message.length, localMr.lkey());
        assertEquals(0, a.postSend(sends.at(0)));
        final List<Completed> got = take(cq, 2);
        final Completed recv = got.stream().filter(c -> c.wrId() == 21).findFirst().orElseThrow();
        final Completed send = got.stream().filter(c -> c.wrId() == 22).findFirst().orElseThrow();
        assertEquals(new Completed(21, WcStatus.SUCCESS, WcOpcode.RECV, 100, b.qpNum()), recv);
        assertEquals(WcStatus.SUCCESS, send.status());
        assertEquals(WcOpcode.SEND, send.opcode());
        assertArrayEquals(message, bytes(remote, 6000, message.length));
    }

    @Test
    void inlineWriteNeedsNoLocalKey()
    {
        final byte[] data = pattern(48, 3);
        final MemorySegment unregistered = arena.allocate(64);
        MemorySegment.copy(data, 0, unregistered, JAVA_BYTE, 0, data.length);
        sends.at(0).wrId(31).sendFlags(SendFlags.SIGNALED | SendFlags.INLINE)
            .rdmaWrite(unregistered.address(), data.length, 0, remoteMr.address() + 7000, remoteMr.rkey());
        assertEquals(0, a.postSend(sends.at(0)));
        assertEquals(WcStatus.SUCCESS, takeOne().status());
        assertArrayEquals(data, bytes(remote, 7000, data.length));
    }

    @Test
    void aChainIsPostedWithOneCallAndOnlyTheSignaledRequestCompletes()
    {
        final byte[] first = pattern(64, 40);
        final byte[] second = pattern(64, 80);
        MemorySegment.copy(first, 0, local, JAVA_BYTE, 3000, 64);
        MemorySegment.copy(second, 0, local, JAVA_BYTE, 3100, 64);
        final SendWorkRequest w0 = sends.at(0).wrId(41).sendFlags(0)
            .rdmaWrite(local.address() + 3000, 64, localMr.lkey(), remoteMr.address() + 7200, remoteMr.rkey());
        final SendWorkRequest w1 = sends.at(1).wrId(42).sendFlags(SendFlags.SIGNALED)
            .rdmaWrite(local.address() + 3100, 64, localMr.lkey(), remoteMr.address() + 7300, remoteMr.rkey());
        w0.next(w1);
        try
        {
            assertEquals(0, a.postSend(w0));
            final Completed c = takeOne();
            assertEquals(42, c.wrId());
            assertEquals(WcStatus.SUCCESS, c.status());
            assertEquals(0, cq.poll(completions), "the unsignaled request produced no completion");
        }
        finally
        {
            w0.next(null);
        }
        assertArrayEquals(first, bytes(remote, 7200, 64));
        assertArrayEquals(second, bytes(remote, 7300, 64));
    }

    @Test
    void awaitTimesOutWhenNothingCompletes()
    {
        final long start = System.nanoTime();
        assertEquals(0, cq.await(completions, TimeUnit.MILLISECONDS.toNanos(100)));
        final long elapsed = System.nanoTime() - start;
        assertTrue(elapsed >= TimeUnit.MILLISECONDS.toNanos(95), "returned after " + elapsed + " ns");
    }

    @Test
    void awaitWakesUpWhenACompletionArrives() throws Exception
    {
        sends.at(2).wrId(51).sendFlags(SendFlags.SIGNALED)
            .rdmaWrite(local.address(), 8, localMr.lkey(), remoteMr.address() + 7500, remoteMr.rkey());
        final CompletableFuture<Integer> posted = CompletableFuture.supplyAsync(() ->
        {
            try
            {
                Thread.sleep(300);
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
            }
            return a.postSend(sends.at(2));
        });
        final long start = System.nanoTime();
        final int n = cq.await(completions, TIMEOUT_NANOS);
        final long elapsed = System.nanoTime() - start;
        assertEquals(0, posted.get());
        assertEquals(1, n);
        assertEquals(51, completions.at(0).wrId());
        assertTrue(elapsed < TIMEOUT_NANOS / 2, "woke up after " + elapsed + " ns");
    }

    @Test
    void aWaiterDoesNotHoldUpQueuePairCreationOnItsQueue() throws Exception
    {
        final CompletionQueue idle = context.createCompletionQueue(4);
        try (WorkCompletions mine = WorkCompletions.allocate(1))
        {
            final CompletableFuture<Integer> waiter = CompletableFuture.supplyAsync(
                () -> idle.await(mine, TimeUnit.SECONDS.toNanos(3)));
            Thread.sleep(200);
            final long start = System.nanoTime();
            final QueuePair qp = pd.createQueuePair(QueuePairConfig.of(idle, 4, 4));
            final long elapsed = System.nanoTime() - start;
            qp.close();
            assertTrue(elapsed < TimeUnit.SECONDS.toNanos(2), "createQueuePair waited " + elapsed + " ns for await");
            assertEquals(0, waiter.get());
        }
        finally
        {
            idle.close();
        }
    }

    /** ibv_query_qp after connect: what modifyToRtr/modifyToRts asked for reached the device. */
    @Test
    void theDeviceReportsTheConnectionAttributesThatWereAskedFor()
    {
        final IbvQueuePair.Attributes connected = ((IbvQueuePair)a).query();
        System.out.println("queue pair " + a.qpNum() + " after connect (DEFAULT options): " + connected);
        assertEquals(QpState.RTS, connected.state());
        assertEquals(b.qpNum(), connected.destQpNum());
        assertEquals(context.activeMtu(), connected.pathMtu());
        assertEquals(ConnectOptions.DEFAULT.timeout(), connected.timeout());
        assertEquals(IbvQueuePair.retryCountFor(context, ConnectOptions.DEFAULT.retryCount()), connected.retryCount());
        assertEquals(ConnectOptions.DEFAULT.rnrRetry(), connected.rnrRetry());
        assertEquals(ConnectOptions.DEFAULT.minRnrTimer(), connected.minRnrTimer());

        final CompletionQueue ownCq = context.createCompletionQueue(16);
        final QueuePair c = pd.createQueuePair(QueuePairConfig.of(ownCq, 8, 8));
        final QueuePair d = pd.createQueuePair(QueuePairConfig.of(ownCq, 8, 8));
        try
        {
            final ConnectOptions options = new ConnectOptions(AccessFlags.ALL_REMOTE, 10, 3, 5, 7, 1, -1);
            connect(c, d, options);
            final IbvQueuePair.Attributes attributes = ((IbvQueuePair)c).query();
            assertEquals(10, attributes.timeout(), attributes::toString);
            assertEquals(3, attributes.retryCount(), attributes::toString);
            assertEquals(5, attributes.rnrRetry(), attributes::toString);
            assertEquals(7, attributes.minRnrTimer(), attributes::toString);
            assertEquals(1, attributes.maxRdAtomic(), attributes::toString);
        }
        finally
        {
            c.close();
            d.close();
            ownCq.close();
        }
    }

    /** retry_cnt 7 means "forever" on Soft-RoCE only; elsewhere what was asked is what is passed. */
    @Test
    void retryCountSevenIsBoundedOnSoftRoce()
    {
        for (int asked = 0; asked <= 7; asked++)
        {
            final int expected = asked == 7 && context.isSoftRoce() ? 6 : asked;
            assertEquals(expected, IbvQueuePair.retryCountFor(context, asked), "retry count for " + asked);
        }
        System.out.printf("device %s: vendor id 0x%x, part %d, Soft-RoCE %b%n", context.deviceName(),
            context.vendorId(), context.vendorPartId(), context.isSoftRoce());
    }

    @Test
    void aCompletionQueueLargerThanTheDeviceAllowsIsRefusedWithTheLimit()
    {
        final int maxCqe = context.attributes().maxCqe();
        assumeTrue(maxCqe < Integer.MAX_VALUE, "max_cqe is unbounded");
        final VerbsException e = assertThrows(VerbsException.class, () -> context.createCompletionQueue(maxCqe + 1));
        assertEquals(Errno.EINVAL, e.errno(), e::getMessage);
        assertTrue(e.getMessage().contains("at most " + maxCqe), e::getMessage);
    }

    @Test
    void aBadRkeyFailsWithRemAccessErrAndTheQueuePairFlushes()
    {
        final CompletionQueue errCq = context.createCompletionQueue(16);
        final QueuePair c = pd.createQueuePair(QueuePairConfig.of(errCq, 8, 8));
        final QueuePair d = pd.createQueuePair(QueuePairConfig.of(errCq, 8, 8));
        try
        {
            connect(c, d, ConnectOptions.DEFAULT);
            sends.at(0).wrId(61).sendFlags(SendFlags.SIGNALED)
                .rdmaRead(local.address(), 64, localMr.lkey(), remoteMr.address(), remoteMr.rkey() ^ 0x5a5a00);
            assertEquals(0, c.postSend(sends.at(0)));
            final Completed failed = take(errCq, 1).getFirst();
            assertEquals(61, failed.wrId());
            assertEquals(WcStatus.REM_ACCESS_ERR, failed.status(), () ->
                "got " + failed + " (" + IbverbsProvider.wcStatusString(failed.status().code()) + ")");
            assertEquals(QpState.ERR, c.state());

            sends.at(0).wrId(62).sendFlags(SendFlags.SIGNALED)
                .rdmaWrite(local.address(), 8, localMr.lkey(), remoteMr.address(), remoteMr.rkey());
            assertEquals(0, c.postSend(sends.at(0)));
            final Completed flushed = take(errCq, 1).getFirst();
            assertEquals(62, flushed.wrId());
            assertEquals(WcStatus.WR_FLUSH_ERR, flushed.status());

            // the access error may also raise asynchronous events (which ones is up to the driver)
            IbvContext.AsyncEvent event;
            while ((event = context.nextAsyncEvent(TimeUnit.MILLISECONDS.toNanos(200))) != null)
            {
                System.out.println("async event after the bad R_Key: " + event);
                assertTrue(!event.name().isBlank() && !event.name().equals("unknown"), event::toString);
            }
        }
        finally
        {
            c.close();
            d.close();
            errCq.close();
        }
    }

    @Test
    void aSendWithoutAPostedReceiveFailsWithRnrRetryExcErr()
    {
        final CompletionQueue errCq = context.createCompletionQueue(16);
        final QueuePair c = pd.createQueuePair(QueuePairConfig.of(errCq, 8, 8));
        final QueuePair d = pd.createQueuePair(QueuePairConfig.of(errCq, 8, 8));
        try
        {
            connect(c, d, ConnectOptions.DEFAULT.withRnrRetry(0).withMinRnrTimer(1));
            sends.at(0).wrId(71).sendFlags(SendFlags.SIGNALED).send(local.address(), 16, localMr.lkey());
            assertEquals(0, c.postSend(sends.at(0)));
            final Completed failed = take(errCq, 1).getFirst();
            assertEquals(71, failed.wrId());
            assertEquals(WcStatus.RNR_RETRY_EXC_ERR, failed.status(), failed::toString);
        }
        finally
        {
            c.close();
            d.close();
            errCq.close();
        }
    }

    @Test
    void accessNotGrantedByTheRegionIsRefused()
    {
        final MemorySegment readOnly = arena.allocate(4096, 4096);
        final MemoryRegion readOnlyMr = pd.registerMemory(readOnly, AccessFlags.REMOTE_READ);
        final CompletionQueue errCq = context.createCompletionQueue(16);
        final QueuePair c = pd.createQueuePair(QueuePairConfig.of(errCq, 8, 8));
        final QueuePair d = pd.createQueuePair(QueuePairConfig.of(errCq, 8, 8));
        try
        {
            connect(c, d, ConnectOptions.DEFAULT);
            sends.at(0).wrId(81).sendFlags(SendFlags.SIGNALED)
                .rdmaWrite(local.address(), 8, localMr.lkey(), readOnlyMr.address(), readOnlyMr.rkey());
            assertEquals(0, c.postSend(sends.at(0)));
            assertEquals(WcStatus.REM_ACCESS_ERR, take(errCq, 1).getFirst().status());
        }
        finally
        {
            c.close();
            d.close();
            errCq.close();
            readOnlyMr.close();
        }
    }

    @Test
    void parentsRefuseToCloseBeforeTheirChildren()
    {
        final ProtectionDomain pd2 = context.allocateProtectionDomain();
        final MemoryRegion mr = pd2.registerMemory(arena.allocate(4096, 4096), AccessFlags.REMOTE_READ);
        final CompletionQueue cq2 = context.createCompletionQueue(4);
        final QueuePair qp = pd2.createQueuePair(QueuePairConfig.of(cq2, 4, 4));

        VerbsException e = assertThrows(VerbsException.class, pd2::close);
        assertEquals(Errno.EBUSY, e.errno());
        assertTrue(e.getMessage().contains("1 memory region(s), 0 memory window(s) and 1 queue pair(s)"), e.getMessage());
        e = assertThrows(VerbsException.class, cq2::close);
        assertEquals(Errno.EBUSY, e.errno());
        e = assertThrows(VerbsException.class, context::close);
        assertEquals(Errno.EBUSY, e.errno());

        qp.close();
        qp.close();
        assertEquals(Errno.EINVAL, qp.postSend(sends.at(0)), "posting on a closed queue pair");
        mr.close();
        mr.close();
        cq2.close();
        cq2.close();
        assertTrue(cq2.poll(completions) < 0, "polling a closed completion queue");
        pd2.close();
        pd2.close();
    }

    @Test
    void anUnreachableRoceGidIndexIsRefusedByModifyQp()
    {
        assumeTrue(context.attributes().linkLayer().equals("Ethernet"), "RoCE only");
        final QueuePair c = pd.createQueuePair(QueuePairConfig.of(cq, 4, 4));
        try
        {
            c.modifyToInit(ConnectOptions.DEFAULT);
            final VerbsException e = assertThrows(VerbsException.class,
                () -> c.modifyToRtr(b.localEndpoint(), ConnectOptions.DEFAULT.withGidIndex(250)));
            assertTrue(e.getMessage().startsWith("ibv_modify_qp"), e.getMessage());
            assertTrue(e.getMessage().contains("sgid index 250"), e.getMessage());
        }
        finally
        {
            c.close();
        }
    }

    /** The post/poll path allocates nothing on the Java heap (checked after a warm-up). */
    @Test
    void theDataPathAllocatesNothing()
    {
        final var threads = (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        assumeTrue(threads.isThreadAllocatedMemorySupported() && threads.isThreadAllocatedMemoryEnabled(),
            "per-thread allocation counters are not available");
        final SendWorkRequest wr = sends.at(3).wrId(91).sendFlags(SendFlags.SIGNALED)
            .rdmaWrite(local.address(), 8, localMr.lkey(), remoteMr.address() + 7600, remoteMr.rkey());
        final int warmup = 3000;
        final int measured = 2000;
        for (int i = 0; i < warmup; i++)
        {
            postAndSpin(wr);
        }
        final long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < measured; i++)
        {
            postAndSpin(wr);
        }
        final long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        System.out.println("data path: " + allocated + " bytes allocated over " + measured + " post+poll round trips");
        assertTrue(allocated < measured, allocated + " bytes allocated over " + measured + " post+poll round trips");
    }

    private void postAndSpin(final SendWorkRequest wr)
    {
        final int rc = a.postSend(wr);
        if (rc != 0)
        {
            throw new AssertionError("post failed: " + Errno.name(rc));
        }
        int n;
        while ((n = cq.poll(completions)) == 0)
        {
            Thread.onSpinWait();
        }
        if (n < 0 || completions.at(0).status() != 0)
        {
            throw new AssertionError("poll failed: " + n);
        }
    }

    /**
     * Registering more than RLIMIT_MEMLOCK allows fails with a message naming the limit. Runs only where
     * the limit applies: a finite limit and no CAP_IPC_LOCK (scripts/softroce-verbs.sh drops it).
     */
    @Test
    void registeringBeyondTheMemlockLimitSaysHowToRaiseIt() throws IOException
    {
        final long[] limit = LibC.memlockLimit();
        assumeTrue(limit[0] != IbvConstants.RLIM_INFINITY, "RLIMIT_MEMLOCK is unlimited");
        assumeTrue(!hasCapIpcLock(), "this process has CAP_IPC_LOCK: the limit does not apply");
        assumeTrue(limit[0] <= 512L << 20, "RLIMIT_MEMLOCK is too large to exceed in a test: " + limit[0]);
        final long size = limit[0] + (4L << 20);
        try (Arena big = Arena.ofConfined())
        {
            final MemorySegment segment = big.allocate(size, 4096);
            final VerbsException e = assertThrows(VerbsException.class,
                () -> pd.registerMemory(segment, AccessFlags.REMOTE_READ).close());
            System.out.println("over the memlock limit: " + e.getMessage());
            assertTrue(e.getMessage().contains("RLIMIT_MEMLOCK is " + MemlockLimit.bytes(limit[0])), e.getMessage());
            assertTrue(e.getMessage().contains("ulimit -l unlimited"), e.getMessage());
            assertNotEquals(0, e.errno());
        }
    }

    private static boolean hasCapIpcLock() throws IOException
    {
        for (final String line : Files.readAllLines(Path.of("/proc/self/status")))
        {
            if (line.startsWith("CapEff:"))
            {
                final long caps = Long.parseUnsignedLong(line.substring("CapEff:".length()).trim(), 16);
                return (caps & (1L << 14)) != 0; // CAP_IPC_LOCK = 14
            }
        }
        return false;
    }
}
