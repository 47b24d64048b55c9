package io.rdmakv.systemtests.badinput;

import io.rdmakv.client.KvClient;
import io.rdmakv.common.protocol.wire.RemoteRegion;
import io.rdmakv.server.KvServer;
import io.rdmakv.systemtests.Await;
import io.rdmakv.systemtests.LocalCluster;
import io.rdmakv.systemtests.peer.RawSession;
import io.rdmakv.systemtests.peer.RegionView;
import io.rdmakv.verbs.WcStatus;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.function.ToLongFunction;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * One-sided operations a well-behaved client never posts: a forged R_Key, the data area's key used
 * outside the data area, the index's key used outside the index or for a WRITE it does not grant, an
 * atomic on the data area. The transport refuses each with REM_ACCESS_ERR, the node's memory is
 * unchanged there, the node drops the offending session (its queue pair is in error) and keeps serving.
 */
class ForgedAccessTest
{
    private static final byte[] KEY = LocalCluster.bytes("target");
    private static final byte[] VALUE = LocalCluster.bytes("a value no forged operation may touch or read");
    private static final byte POISON = (byte)0xEE;

    /** Sessions that stay open: the victim's and the view's. */
    private static final int SESSIONS = 2;

    private static KvServer server;
    private static KvClient victim;
    private static RegionView view;
    private static RegionView.Slot slot;

    private RawSession raw;
    private RemoteRegion index;
    private RemoteRegion data;
    private long errorsBefore;

    @BeforeAll
    static void start()
    {
        server = LocalCluster.startNode();
        victim = LocalCluster.client(server);
        victim.put(KEY, VALUE);
        view = new RegionView(server);
        slot = view.find(KEY);
    }

    @AfterAll
    static void stop()
    {
        LocalCluster.closeAll(view, victim, server);
    }

    @BeforeEach
    void open()
    {
        raw = new RawSession(server.port());
        index = raw.hello().indexRegion();
        data = raw.hello().dataRegion();
        assertEquals(server.geometry().dataOffset(), data.address() - index.address(),
            "index and data area are one contiguous region");
        raw.scratch().fill(POISON);
        errorsBefore = server.counters().completionErrors();
    }

    @AfterEach
    void nodeDropsTheSessionAndKeepsServing()
    {
        try
        {
            Await.until("the node drops the session whose queue pair failed", Duration.ofSeconds(5),
                () -> server.sessionCount() == SESSIONS && server.counters().completionErrors() == errorsBefore + 1,
                () -> server.sessionCount() + " sessions, " + server.counters().completionErrors() + " errors");
            assertArrayEquals(VALUE, victim.get(KEY), "the victim still reads its value");
            TestSupport.assertServes(server, "a forged one-sided operation");
        }
        finally
        {
            raw.close();
        }
    }

    /** The region offset a remote address of the index or data memory region stands for. */
    private long regionOffset(final long remoteAddress)
    {
        return remoteAddress - index.address();
    }

    /** Runs {@code op} against {@code length} bytes at {@code remoteAddress}; they must not change. */
    private void refused(final long remoteAddress, final int length, final ToLongFunction<RawSession> op)
    {
        final long offset = regionOffset(remoteAddress);
        final long from = Math.max(0, offset);
        final int checked = (int)Math.max(0, Math.min(offset + length, server.geometry().regionLength()) - from);
        final byte[] before = view.bytes(from, checked);
        final long status = op.applyAsLong(raw);
        assertEquals(WcStatus.REM_ACCESS_ERR.code(), status, "completion " + WcStatus.of((int)status));
        assertArrayEquals(before, view.bytes(from, checked), "the node's memory is unchanged there");
    }

    private long blockAddress()
    {
        return data.address() + slot.blockOffset() - server.geometry().dataOffset();
    }

    private long slotAddress()
    {
        return index.address() + slot.slotOffset();
    }

    @Test
    void writeWithAForgedKeyIsRefused()
    {
        final int forged = data.rkey() ^ 0x5A;
        refused(blockAddress(), 64, s -> s.write(blockAddress(), forged, 64).code());
    }

    @Test
    void writeWithAnUnknownKeyIsRefused()
    {
        refused(blockAddress(), 64, s -> s.write(blockAddress(), 0x7FFF_FF00 | (data.rkey() & 0xFF), 64).code());
    }

    @Test
    void readWithAForgedKeyDisclosesNothing()
    {
        refused(blockAddress(), 64, s -> s.read(blockAddress(), data.rkey() ^ 0x5A, 64).code());
        final byte[] scratch = raw.scratch().asSlice(0, 64).toArray(ValueLayout.JAVA_BYTE);
        for (final byte b : scratch)
        {
            assertEquals(POISON, b, "no byte of the block reached the reader");
        }
    }

    @Test
    void writeWithTheDataKeyIntoTheIndexIsRefused()
    {
        refused(slotAddress(), 8, s -> s.write(slotAddress(), data.rkey(), 8).code());
    }

    @Test
    void writeWithTheDataKeyJustBeforeTheDataAreaIsRefused()
    {
        refused(data.address() - 64, 64, s -> s.write(data.address() - 64, data.rkey(), 64).code());
    }

    @Test
    void writeWithTheDataKeyAcrossTheEndIsRefused()
    {
        final long address = data.address() + data.length() - 32;
        refused(address, 64, s -> s.write(address, data.rkey(), 64).code());
    }

    @Test
    void writeWithTheDataKeyPastTheEndIsRefused()
    {
        final long address = data.address() + data.length();
        refused(address, 64, s -> s.write(address, data.rkey(), 64).code());
    }

    @Test
    void compareAndSwapWithTheIndexKeyOnTheDataAreaIsRefused()
    {
        final long current = view.longAt(slot.blockOffset());
        refused(blockAddress(), 8, s -> s.compareAndSwap(blockAddress(), index.rkey(), current, -1L).code());
    }

    @Test
    void compareAndSwapWithTheIndexKeyPastTheIndexIsRefused()
    {
        final long address = index.address() + index.length();
        refused(address, 8, s -> s.compareAndSwap(address, index.rkey(), 0L, -1L).code());
    }

    @Test
    void compareAndSwapWithTheDataKeyIsRefused()
    {
        final long current = view.longAt(slot.blockOffset());
        refused(blockAddress(), 8, s -> s.compareAndSwap(blockAddress(), data.rkey(), current, -1L).code());
    }

    @Test
    void writeWithTheIndexKeyIsRefused()
    {
        refused(slotAddress(), 8, s -> s.write(slotAddress(), index.rkey(), 8).code());
    }
}
