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
import io.rdmakv.verbs.resource.VerbsException;
import org.agrona.CloseHelper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A tcp device opened with {@code rdmakv.tcp.atomics=NONE} plays a device without remote atomics: it reports
 * atomic capability NONE, and its responder answers a CAS or fetch-and-add as an RC responder that does not
 * support them (an Invalid Request NAK: {@code REM_INV_REQ_ERR} at the requester, the queue pair to ERR, the
 * word untouched), while READ, WRITE and SEND work as before.
 */
class TcpNoAtomicsTest
{
    private final Arena arena = Arena.ofShared();
    private final SendWorkRequests wrs = SendWorkRequests.allocate(2, 1);
    private final WorkCompletions wcs = WorkCompletions.allocate(8);
    private final ReceiveWorkRequests rwrs = ReceiveWorkRequests.allocate(1, 1);
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

    /** Opens the node-side device with {@code atomics} as its capability property, the client's with the default. */
    private void connect(final String atomics)
    {
        final String before = System.getProperty(TcpContext.ATOMICS_PROPERTY);
        System.setProperty(TcpContext.ATOMICS_PROPERTY, atomics);
        try
        {
            serverCtx = Providers.open("tcp", VerbsConfig.DEFAULT);
        }
        finally
        {
            restore(before);
        }
        clientCtx = Providers.open("tcp", VerbsConfig.DEFAULT);
        serverPd = serverCtx.allocateProtectionDomain();
        clientPd = clientCtx.allocateProtectionDomain();
        serverCq = serverCtx.createCompletionQueue(64);
        clientCq = clientCtx.createCompletionQueue(64);
        serverMr = serverPd.registerMemory(arena.allocate(4096, 64), AccessFlags.LOCAL_WRITE | AccessFlags.ALL_REMOTE);
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

    private static void restore(final String before)
    {
        if (before == null)
        {
            System.clearProperty(TcpContext.ATOMICS_PROPERTY);
        }
        else
        {
            System.setProperty(TcpContext.ATOMICS_PROPERTY, before);
        }
    }

    @AfterEach
    void close()
    {
        closeDevices();
        wrs.close();
        wcs.close();
        rwrs.close();
        arena.close();
    }

    private void closeDevices()
    {
        CloseHelper.quietCloseAll(clientQp, serverQp, clientMr, serverMr, clientCq, serverCq, clientPd, serverPd,
            clientCtx, serverCtx);
        clientQp = serverQp = null;
        clientMr = serverMr = null;
        clientCq = serverCq = null;
        clientPd = serverPd = null;
        clientCtx = serverCtx = null;
    }

    private int awaitOne(final WcStatus status)
    {
        final int n = clientCq.await(wcs, TimeUnit.SECONDS.toNanos(10));
        assertEquals(1, n, "completions");
        assertEquals(status, wcs.at(0).statusEnum());
        return wcs.at(0).opcode();
    }

    @Test
    void reportsNoAtomicsAndRefusesCompareAndSwapAsAnInvalidRequest()
    {
        connect("NONE");
        assertEquals("NONE", serverCtx.attributes().atomicCapability());
        assertEquals("GLOB", clientCtx.attributes().atomicCapability(), "the property is read when a device opens");
        final MemorySegment remote = serverMr.segment();
        final MemorySegment local = clientMr.segment();
        local.setString(0, "still writable");
        wrs.at(0).wrId(1).sendFlags(SendFlags.SIGNALED)
            .rdmaWrite(local.address(), 16, clientMr.lkey(), serverMr.address() + 128, serverMr.rkey()).next(null);
        assertEquals(0, clientQp.postSend(wrs.at(0)));
        assertEquals(WcOpcode.RDMA_WRITE, awaitOne(WcStatus.SUCCESS));
        assertEquals("still writable", remote.getString(128));

        remote.set(ValueLayout.JAVA_LONG, 256, 41L);
        local.set(ValueLayout.JAVA_LONG, 2048, -1L);
        wrs.at(0).wrId(2).compareAndSwap(local.address() + 2048, clientMr.lkey(), serverMr.address() + 256,
            serverMr.rkey(), 41L, 42L);
        assertEquals(0, clientQp.postSend(wrs.at(0)));
        awaitOne(WcStatus.REM_INV_REQ_ERR);
        assertEquals(2L, wcs.at(0).wrId());
        assertEquals(41L, remote.get(ValueLayout.JAVA_LONG, 256), "the word is untouched");
        assertEquals(-1L, local.get(ValueLayout.JAVA_LONG, 2048), "no original value lands");
        assertEquals(QpState.ERR, clientQp.state());
    }

    @Test
    void refusesFetchAndAddAndFlushesWhatFollows()
    {
        connect("NONE");
        serverMr.segment().set(ValueLayout.JAVA_LONG, 256, 7L);
        wrs.at(0).wrId(1).sendFlags(0).fetchAndAdd(clientMr.address(), clientMr.lkey(), serverMr.address() + 256,
            serverMr.rkey(), 1L).next(wrs.at(1));
        wrs.at(1).wrId(2).sendFlags(SendFlags.SIGNALED).rdmaRead(clientMr.address() + 8, 8, clientMr.lkey(),
            serverMr.address(), serverMr.rkey()).next(null);
        assertEquals(0, clientQp.postSend(wrs.at(0)));
        int n = 0;
        final long[] ids = new long[2];
        final WcStatus[] statuses = new WcStatus[2];
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (n < 2 && System.nanoTime() < deadline)
        {
            final int got = clientCq.poll(wcs);
            for (int i = 0; i < got && n < 2; i++, n++)
            {
                ids[n] = wcs.at(i).wrId();
                statuses[n] = wcs.at(i).statusEnum();
            }
        }
        assertEquals(2, n, "completions");
        assertEquals(WcStatus.REM_INV_REQ_ERR, statuses[0]);
        assertEquals(1L, ids[0]);
        assertEquals(WcStatus.WR_FLUSH_ERR, statuses[1]);
        assertEquals(7L, serverMr.segment().get(ValueLayout.JAVA_LONG, 256));
    }

    /**
     * The NAK fails the node's queue pair too, and the tcp provider then ends its connections; RC has no wire
     * signal for that, so the requester's queue pair fails from the NAK: in a completion queue it shares with
     * its receives, the refused CAS comes first and the flushed receive after it. (The emulation used to fail
     * the queue pair at the connection's end, and the flush overtook the NAK in about two tries of three, so a
     * store client saw CONNECTION_LOST instead of the remote error.) Many tries, since it was a race.
     */
    @Test
    void theRefusedCasCompletesBeforeTheReceivesItsFailureFlushes()
    {
        for (int attempt = 0; attempt < 40; attempt++)
        {
            connect("NONE");
            rwrs.at(0).wrId(90).buffer(clientMr.address() + 1024, 64, clientMr.lkey()).next(null);
            assertEquals(0, clientQp.postReceive(rwrs.at(0)));
            wrs.at(0).wrId(91).sendFlags(SendFlags.SIGNALED).compareAndSwap(clientMr.address(), clientMr.lkey(),
                serverMr.address() + 256, serverMr.rkey(), 0L, 1L).next(null);
            assertEquals(0, clientQp.postSend(wrs.at(0)));
            final long[] ids = new long[2];
            final WcStatus[] statuses = new WcStatus[2];
            int n = 0;
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (n < 2 && System.nanoTime() < deadline)
            {
                final int got = clientCq.await(wcs, TimeUnit.MILLISECONDS.toNanos(100));
                for (int i = 0; i < got && n < 2; i++, n++)
                {
                    ids[n] = wcs.at(i).wrId();
                    statuses[n] = wcs.at(i).statusEnum();
                }
            }
            assertEquals(2, n, "completions, attempt " + attempt);
            assertEquals(91L, ids[0], "the CAS completes first, attempt " + attempt + ": " + statuses[0]);
            assertEquals(WcStatus.REM_INV_REQ_ERR, statuses[0], "attempt " + attempt);
            assertEquals(90L, ids[1]);
            assertEquals(WcStatus.WR_FLUSH_ERR, statuses[1]);
            closeDevices();
        }
    }

    @Test
    void globIsTheDefaultAndExecutesAtomics()
    {
        connect("GLOB");
        assertEquals("GLOB", serverCtx.attributes().atomicCapability());
        serverMr.segment().set(ValueLayout.JAVA_LONG, 256, 41L);
        wrs.at(0).wrId(1).sendFlags(SendFlags.SIGNALED).compareAndSwap(clientMr.address(), clientMr.lkey(),
            serverMr.address() + 256, serverMr.rkey(), 41L, 42L).next(null);
        assertEquals(0, clientQp.postSend(wrs.at(0)));
        assertEquals(WcOpcode.COMP_SWAP, awaitOne(WcStatus.SUCCESS));
        assertEquals(42L, serverMr.segment().get(ValueLayout.JAVA_LONG, 256));
    }

    @Test
    void aBadValueFailsTheOpenNamingTheProperty()
    {
        final String before = System.getProperty(TcpContext.ATOMICS_PROPERTY);
        System.setProperty(TcpContext.ATOMICS_PROPERTY, "HCA");
        try
        {
            final VerbsException e = assertThrows(VerbsException.class, () -> Providers.open("tcp", VerbsConfig.DEFAULT));
            assertTrue(e.getMessage().contains(TcpContext.ATOMICS_PROPERTY), e.getMessage());
        }
        finally
        {
            restore(before);
        }
    }
}
