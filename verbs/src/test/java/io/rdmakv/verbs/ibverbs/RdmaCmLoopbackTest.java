package io.rdmakv.verbs.ibverbs;

import io.rdmakv.verbs.AccessFlags;
import io.rdmakv.verbs.CompletionQueue;
import io.rdmakv.verbs.ConnectOptions;
import io.rdmakv.verbs.MemoryRegion;
import io.rdmakv.verbs.ProtectionDomain;
import io.rdmakv.verbs.QpState;
import io.rdmakv.verbs.QueuePairConfig;
import io.rdmakv.verbs.SendFlags;
import io.rdmakv.verbs.SendWorkRequests;
import io.rdmakv.verbs.VerbsConfig;
import io.rdmakv.verbs.WcOpcode;
import io.rdmakv.verbs.WcStatus;
import io.rdmakv.verbs.WorkCompletion;
import io.rdmakv.verbs.WorkCompletions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.opentest4j.TestAbortedException;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * rdma_cm on a real device: a listener on the IPv4 address of the device's netdev (found in its GID table,
 * {@code ::ffff:a.b.c.d}), a client queue pair connected to it through {@link RdmaCmConnector} with
 * private data the listener checks, then an RDMA WRITE and READ over the connected queue pairs, a
 * disconnect both sides observe, and a rejected request.
 *
 * <p>Skipped, with the reason, without a usable device, and where rdma_cm cannot resolve the address: on
 * Soft-RoCE over {@code lo} (the VM's default; {@code SOFTROCE_NETDEV=dummy} gives rxe0 an address where it
 * works, see {@code ../shared/softroce/README.md}).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RdmaCmLoopbackTest
{
    private static final long TIMEOUT = TimeUnit.SECONDS.toNanos(30);
    private static final int BUFFER = 8192;

    private String unavailableReason;
    private IbvContext context;
    private ProtectionDomain pd;
    private CompletionQueue cq;
    private Arena arena;
    private MemorySegment local;
    private MemorySegment remote;
    private MemoryRegion localMr;
    private MemoryRegion remoteMr;
    private SendWorkRequests sends;
    private WorkCompletions completions;
    private InetAddress address;

    @BeforeAll
    void openTheDevice()
    {
        unavailableReason = IbverbsProvider.INSTANCE.unavailableReason();
        if (unavailableReason != null)
        {
            return;
        }
        context = (IbvContext)IbverbsProvider.INSTANCE.open(VerbsConfig.DEFAULT);
        address = ipv4Of(context);
        if (address == null)
        {
            unavailableReason = "device " + context.deviceName() + " has no IPv4-mapped GID (no IPv4 address on its " +
                "netdev) to connect to through rdma_cm: " + context.gidTable();
        }
        pd = context.allocateProtectionDomain();
        cq = context.createCompletionQueue(64);
        arena = Arena.ofShared();
        local = arena.allocate(BUFFER, 4096);
        remote = arena.allocate(BUFFER, 4096);
        localMr = pd.registerMemory(local, AccessFlags.LOCAL_WRITE);
        remoteMr = pd.registerMemory(remote, AccessFlags.LOCAL_WRITE | AccessFlags.ALL_REMOTE);
        sends = SendWorkRequests.allocate(2, 1);
        completions = WorkCompletions.allocate(8);
    }

    @BeforeEach
    void skipWithoutADevice()
    {
        assumeTrue(unavailableReason == null, () -> "rdma_cm is not usable here: " + unavailableReason);
    }

    /** The IPv4 address in the first {@code ::ffff:a.b.c.d} GID of the port, or null. */
    private static InetAddress ipv4Of(final IbvContext context)
    {
        for (final IbvContext.GidEntry entry : context.gidTable())
        {
            final byte[] gid = entry.gid();
            boolean mapped = gid[10] == (byte)0xff && gid[11] == (byte)0xff;
            for (int i = 0; i < 10; i++)
            {
                mapped &= gid[i] == 0;
            }
            if (mapped)
            {
                try
                {
                    return InetAddress.getByAddress(Arrays.copyOfRange(gid, 12, 16));
                }
                catch (final java.net.UnknownHostException e)
                {
                    throw new IllegalStateException(e);
                }
            }
        }
        return null;
    }

    @AfterAll
    void closeEverything()
    {
        if (context == null)
        {
            return;
        }
        localMr.close();
        remoteMr.close();
        cq.close();
        pd.close();
        context.close();
        sends.close();
        completions.close();
        arena.close();
    }

    private IbvQueuePair newQueuePair()
    {
        return (IbvQueuePair)pd.createQueuePair(QueuePairConfig.of(cq, 16, 16));
    }

    /**
     * Connects {@code client} to {@code listener}; when that fails, waits for {@code accepted} (the listener's
     * side) to end first. On the loopback address a failure other than a rejection becomes a skip (of this
     * test and the next ones).
     */
    private RdmaCmConnection connect(
        final IbvQueuePair client, final RdmaCmListener listener, final byte[] data,
        final CompletableFuture<RdmaCmConnection> accepted)
    {
        try
        {
            return RdmaCmConnector.connect(client, new InetSocketAddress(address, listener.localAddress().getPort()),
                data, ConnectOptions.DEFAULT, TIMEOUT);
        }
        catch (final RuntimeException e)
        {
            // the listener's accept must be over (it times out) before the listener may be closed
            final RdmaCmConnection late = accepted.handle((c, t) -> c).join();
            if (late != null)
            {
                late.close();
            }
            // a rejection is the listener's answer; anything else on loopback (an event, or ENODEV straight from
            // rdma_resolve_route, as rxe on lo gives) means rdma_cm cannot route there
            final boolean rejected = e instanceof RdmaCmException cm && cm.rejected();
            if (address.isLoopbackAddress() && !rejected &&
                (e instanceof RdmaCmException || e instanceof io.rdmakv.verbs.resource.VerbsException))
            {
                unavailableReason = "rdma_cm failed on the loopback address: " + e.getMessage();
                throw new TestAbortedException("rdma_cm cannot connect over " + context.deviceName() + " on the " +
                    "loopback address " + address.getHostAddress() + " (Soft-RoCE on lo; run the VM with " +
                    "SOFTROCE_NETDEV=dummy): " + e.getMessage(), e);
            }
            throw e;
        }
    }

    @Test
    void aClientConnectsWithPrivateDataThenWritesReadsAndDisconnects() throws Exception
    {
        final byte[] hello = "rdmakv session 42".getBytes(StandardCharsets.US_ASCII);
        final AtomicReference<byte[]> received = new AtomicReference<>();
        try (IbvQueuePair serverQp = newQueuePair(); IbvQueuePair clientQp = newQueuePair();
             RdmaCmListener listener = RdmaCmListener.listen(new InetSocketAddress(address, 0), 4))
        {
            assertTrue(listener.localAddress().getPort() != 0, listener::toString);
            final CompletableFuture<RdmaCmConnection> accepted = CompletableFuture.supplyAsync(() ->
                listener.accept(TIMEOUT, ConnectOptions.DEFAULT, (data, peer, device) ->
                {
                    received.set(data);
                    assertEquals(context.deviceName(), device);
                    return serverQp;
                }));
            try (RdmaCmConnection client = connect(clientQp, listener, hello, accepted);
                 RdmaCmConnection server = accepted.get(TIMEOUT, TimeUnit.NANOSECONDS))
            {
                assertNotNull(server, "the listener took no request in time");
                final byte[] got = received.get();
                assertTrue(got.length >= hello.length, () -> "received " + got.length + " bytes");
                assertArrayEquals(hello, Arrays.copyOf(got, hello.length));
                for (int i = hello.length; i < got.length; i++)
                {
                    assertEquals(0, got[i], "padding after the private data");
                }
                assertArrayEquals(got, server.peerPrivateData());
                assertEquals(QpState.RTS, clientQp.state());
                assertEquals(QpState.RTS, serverQp.state());
                assertEquals(serverQp.qpNum(), clientQp.query().destQpNum());
                assertEquals(clientQp.qpNum(), serverQp.query().destQpNum());
                assertEquals(address, client.peerAddress().getAddress());
                System.out.println("rdma_cm: " + client + " and " + server + ", client " + clientQp.query() +
                    ", server " + serverQp.query());

                writeAndRead(clientQp);

                assertTrue(!server.pollDisconnected(0), "disconnected before anyone disconnected");
                client.disconnect();
                // the listener's side sees DISCONNECTED and answers it (rdma_disconnect: the DREP), which is
                // what the client's DISCONNECTED waits for (without the answer: none in 30 s on rxe)
                assertTrue(server.pollDisconnected(TIMEOUT), "the listener's side saw no DISCONNECTED");
                assertEquals(QpState.ERR, serverQp.state(), "a disconnected session is fenced");
                assertTrue(client.pollDisconnected(TIMEOUT), "the client's side saw no DISCONNECTED");
                assertEquals(QpState.ERR, clientQp.state());
            }
        }
    }

    private void writeAndRead(final IbvQueuePair qp)
    {
        final byte[] data = new byte[1000];
        for (int i = 0; i < data.length; i++)
        {
            data[i] = (byte)(i * 13 + 1);
        }
        MemorySegment.copy(data, 0, local, JAVA_BYTE, 0, data.length);
        sends.at(0).wrId(1).sendFlags(SendFlags.SIGNALED)
            .rdmaWrite(local.address(), data.length, localMr.lkey(), remoteMr.address() + 64, remoteMr.rkey());
        assertEquals(0, qp.postSend(sends.at(0)));
        awaitOne(WcOpcode.RDMA_WRITE);
        assertArrayEquals(data, remote.asSlice(64, data.length).toArray(JAVA_BYTE));

        sends.at(0).wrId(2).sendFlags(SendFlags.SIGNALED)
            .rdmaRead(local.address() + 4096, data.length, localMr.lkey(), remoteMr.address() + 64, remoteMr.rkey());
        assertEquals(0, qp.postSend(sends.at(0)));
        awaitOne(WcOpcode.RDMA_READ);
        assertArrayEquals(data, local.asSlice(4096, data.length).toArray(JAVA_BYTE));
    }

    private void awaitOne(final int opcode)
    {
        final long deadline = System.nanoTime() + TIMEOUT;
        int n = 0;
        while (n == 0)
        {
            final long left = deadline - System.nanoTime();
            assertTrue(left > 0, "no completion in time");
            n = cq.await(completions, left);
            assertTrue(n >= 0, "await failed: " + n);
        }
        final WorkCompletion wc = completions.at(0);
        assertEquals(WcStatus.SUCCESS, wc.statusEnum());
        assertEquals(opcode, wc.opcode());
    }

    @Test
    void aRequestTheListenerRefusesIsRejected() throws Exception
    {
        try (IbvQueuePair clientQp = newQueuePair();
             RdmaCmListener listener = RdmaCmListener.listen(new InetSocketAddress(address, 0), 4))
        {
            // the listener keeps waiting after a rejection, until its deadline: long enough for the request
            // to arrive under emulation, short enough not to hold the test up for long
            final CompletableFuture<RdmaCmConnection> accepted = CompletableFuture.supplyAsync(() ->
                listener.accept(TimeUnit.SECONDS.toNanos(15), ConnectOptions.DEFAULT, (data, peer, device) -> null));
            // not assertThrows: on loopback without a route, connect() aborts the test (TestAbortedException)
            RdmaCmException e = null;
            try
            {
                connect(clientQp, listener, "wrong secret".getBytes(StandardCharsets.US_ASCII), accepted).close();
            }
            catch (final RdmaCmException refused)
            {
                e = refused;
            }
            assertNotNull(e, "a request the listener refuses does not connect");
            assertTrue(e.rejected(), e.getMessage());
            System.out.println("rejected: " + e.getMessage());
            assertEquals(null, accepted.get(TIMEOUT, TimeUnit.NANOSECONDS));
            assertEquals(1, listener.rejectedCount());
        }
    }
}
