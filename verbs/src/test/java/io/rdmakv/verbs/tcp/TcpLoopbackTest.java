package io.rdmakv.verbs.tcp;

import io.rdmakv.verbs.AccessFlags;
import io.rdmakv.verbs.CompletionQueue;
import io.rdmakv.verbs.ConnectOptions;
import io.rdmakv.verbs.Context;
import io.rdmakv.verbs.MemoryRegion;
import io.rdmakv.verbs.ProtectionDomain;
import io.rdmakv.verbs.Providers;
import io.rdmakv.verbs.QpState;
import io.rdmakv.verbs.QueuePair;
import io.rdmakv.verbs.QueuePairConfig;
import io.rdmakv.verbs.ReceiveWorkRequests;
import io.rdmakv.verbs.SendFlags;
import io.rdmakv.verbs.SendWorkRequests;
import io.rdmakv.verbs.VerbsConfig;
import io.rdmakv.verbs.WcOpcode;
import io.rdmakv.verbs.WcStatus;
import io.rdmakv.verbs.WorkCompletions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The tcp provider's own smoke test: one queue pair pair on loopback, each operation once. */
class TcpLoopbackTest
{
    private final Arena arena = Arena.ofShared();
    private Context serverCtx;
    private Context clientCtx;
    private ProtectionDomain serverPd;
    private ProtectionDomain clientPd;
    private CompletionQueue serverCq;
    private CompletionQueue clientCq;
    private MemoryRegion serverMr;
    private MemoryRegion clientMr;
    private QueuePair serverQp;
    private QueuePair clientQp;
    private final SendWorkRequests wrs = SendWorkRequests.allocate(4, 1);
    private final ReceiveWorkRequests rwrs = ReceiveWorkRequests.allocate(4, 1);
    private final WorkCompletions wcs = WorkCompletions.allocate(1);
    private final WorkCompletions wcs2 = WorkCompletions.allocate(8);
    private final WorkCompletions wcs3 = WorkCompletions.allocate(8);

    @BeforeEach
    void connect()
    {
        serverCtx = Providers.open("tcp", VerbsConfig.DEFAULT);
        clientCtx = Providers.open("tcp", VerbsConfig.DEFAULT);
        serverPd = serverCtx.allocateProtectionDomain();
        clientPd = clientCtx.allocateProtectionDomain();
        serverCq = serverCtx.createCompletionQueue(64);
        clientCq = clientCtx.createCompletionQueue(64);
        serverMr = serverPd.registerMemory(arena.allocate(4096, 64),
            AccessFlags.LOCAL_WRITE | AccessFlags.ALL_REMOTE);
        clientMr = clientPd.registerMemory(arena.allocate(4096, 64), AccessFlags.LOCAL_WRITE);
        serverQp = serverPd.createQueuePair(QueuePairConfig.of(serverCq, 16, 16));
        clientQp = clientPd.createQueuePair(QueuePairConfig.of(clientCq, 16, 16));
        serverQp.modifyToInit(ConnectOptions.DEFAULT);
        clientQp.modifyToInit(ConnectOptions.DEFAULT);
        serverQp.modifyToRtr(clientQp.localEndpoint(), ConnectOptions.DEFAULT);
        clientQp.modifyToRtr(serverQp.localEndpoint(), ConnectOptions.DEFAULT);
        serverQp.modifyToRts(ConnectOptions.DEFAULT);
        clientQp.modifyToRts(ConnectOptions.DEFAULT);
    }

    @AfterEach
    void close()
    {
        clientQp.close();
        serverQp.close();
        clientMr.close();
        serverMr.close();
        clientCq.close();
        serverCq.close();
        clientPd.close();
        serverPd.close();
        clientCtx.close();
        serverCtx.close();
        wrs.close();
        rwrs.close();
        wcs.close();
        wcs2.close();
        wcs3.close();
        arena.close();
    }

    private void awaitOne(final CompletionQueue cq, final WcStatus status, final int opcode)
    {
        final int n = cq.await(wcs, TimeUnit.SECONDS.toNanos(10));
        assertEquals(1, n, "completions");
        assertEquals(status, wcs.at(0).statusEnum());
        if (status == WcStatus.SUCCESS)
        {
            assertEquals(opcode, wcs.at(0).opcode());
        }
    }

    @Test
    void writeReadAtomicsAndSend()
    {
        final MemorySegment local = clientMr.segment();
        final MemorySegment remote = serverMr.segment();
        local.setString(0, "hello rdma");
        wrs.at(0).wrId(1).sendFlags(SendFlags.SIGNALED)
            .rdmaWrite(local.address(), 16, clientMr.lkey(), serverMr.address() + 128, serverMr.rkey()).next(null);
        assertEquals(0, clientQp.postSend(wrs.at(0)));
        awaitOne(clientCq, WcStatus.SUCCESS, WcOpcode.RDMA_WRITE);
        assertEquals("hello rdma", remote.getString(128));

        wrs.at(0).wrId(2).rdmaRead(local.address() + 1024, 16, clientMr.lkey(), serverMr.address() + 128,
            serverMr.rkey());
        assertEquals(0, clientQp.postSend(wrs.at(0)));
        awaitOne(clientCq, WcStatus.SUCCESS, WcOpcode.RDMA_READ);
        assertEquals("hello rdma", local.getString(1024));

        remote.set(ValueLayout.JAVA_LONG, 256, 41L);
        wrs.at(0).wrId(3).compareAndSwap(local.address() + 2048, clientMr.lkey(), serverMr.address() + 256,
            serverMr.rkey(), 41L, 42L);
        assertEquals(0, clientQp.postSend(wrs.at(0)));
        awaitOne(clientCq, WcStatus.SUCCESS, WcOpcode.COMP_SWAP);
        assertEquals(41L, local.get(ValueLayout.JAVA_LONG, 2048));
        assertEquals(42L, remote.get(ValueLayout.JAVA_LONG, 256));

        wrs.at(0).wrId(4).fetchAndAdd(local.address() + 2048, clientMr.lkey(), serverMr.address() + 256,
            serverMr.rkey(), 8L);
        assertEquals(0, clientQp.postSend(wrs.at(0)));
        awaitOne(clientCq, WcStatus.SUCCESS, WcOpcode.FETCH_ADD);
        assertEquals(42L, local.get(ValueLayout.JAVA_LONG, 2048));
        assertEquals(50L, remote.get(ValueLayout.JAVA_LONG, 256));

        rwrs.at(0).wrId(77).buffer(serverMr.address() + 512, 64, serverMr.lkey()).next(null);
        assertEquals(0, serverQp.postReceive(rwrs.at(0)));
        wrs.at(0).wrId(5).send(local.address(), 11, clientMr.lkey());
        assertEquals(0, clientQp.postSend(wrs.at(0)));
        awaitOne(clientCq, WcStatus.SUCCESS, WcOpcode.SEND);
        awaitOne(serverCq, WcStatus.SUCCESS, WcOpcode.RECV);
        assertEquals(77L, wcs.at(0).wrId());
        assertEquals(11, wcs.at(0).byteLen());
        assertEquals("hello rdma", remote.getString(512));
    }

    @Test
    void badRkeyFailsTheQueuePairAndFlushesTheRest()
    {
        wrs.at(0).wrId(1).sendFlags(0).rdmaRead(clientMr.address(), 8, clientMr.lkey(), serverMr.address(),
            serverMr.rkey() ^ 0x100).next(wrs.at(1));
        wrs.at(1).wrId(2).sendFlags(SendFlags.SIGNALED).rdmaRead(clientMr.address(), 8, clientMr.lkey(),
            serverMr.address(), serverMr.rkey()).next(null);
        assertEquals(0, clientQp.postSend(wrs.at(0)));
        int n = 0;
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (n < 2 && System.nanoTime() < deadline)
        {
            final int got = clientCq.poll(wcs2);
            for (int i = 0; i < got; i++)
            {
                wcs3.at(n + i).copyFrom(wcs2.at(i));
            }
            n += got;
        }
        assertEquals(2, n, "completions");
        assertEquals(WcStatus.REM_ACCESS_ERR, wcs3.at(0).statusEnum());
        assertEquals(1L, wcs3.at(0).wrId());
        assertEquals(WcStatus.WR_FLUSH_ERR, wcs3.at(1).statusEnum());
        assertEquals(2L, wcs3.at(1).wrId());
        assertEquals(QpState.ERR, clientQp.state());
    }
}
