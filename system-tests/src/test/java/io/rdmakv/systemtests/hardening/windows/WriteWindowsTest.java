package io.rdmakv.systemtests.hardening.windows;

import io.rdmakv.client.KvClient;
import io.rdmakv.common.protocol.AllocMessage;
import io.rdmakv.common.protocol.AllocOkMessage;
import io.rdmakv.common.protocol.StatsMessage;
import io.rdmakv.common.protocol.StatsOkMessage;
import io.rdmakv.common.protocol.wire.RemoteRegion;
import io.rdmakv.server.KvServer;
import io.rdmakv.server.config.MemoryWindowMode;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.server.control.ServerCounter;
import io.rdmakv.systemtests.Await;
import io.rdmakv.systemtests.LocalCluster;
import io.rdmakv.systemtests.peer.RawSession;
import io.rdmakv.systemtests.peer.RegionView;
import io.rdmakv.verbs.WcStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Write access per session through memory windows ({@code --memory-windows=on}): a session writes its own
 * latest grant through the window the ALLOC_OK named and nothing else. Another session's WRITE into it,
 * with that window's rkey or the data area's, fails with REM_ACCESS_ERR on the writer's own queue pair;
 * the owner's bytes stay and it keeps working. A grant stops being writable once its session moved on to
 * the next, and a fenced session's window is deallocated. Hostile sessions are {@link RawSession}s.
 */
class WriteWindowsTest
{
    private static final int PATTERN_LENGTH = 256;
    private static final byte MINE = 0x11;
    private static final byte THEIRS = (byte)0xEE;

    /** The lease of this node's sessions: the Soft-RoCE run sets a longer one (an emulated VM is slow). */
    private static final long LEASE_MS = Long.getLong("rdmakv.test.leaseMs", 1500);

    private LocalCluster cluster;
    private KvServer server;
    private RawSession owner;
    private RemoteRegion data;
    private RegionView view;

    @BeforeEach
    void start()
    {
        cluster = new LocalCluster(ServerConfig.local(LocalCluster.NODE_MEMORY).toBuilder()
            .memoryWindows(MemoryWindowMode.ON)
            .lease(TimeUnit.MILLISECONDS.toNanos(LEASE_MS), TimeUnit.MILLISECONDS.toNanos(LEASE_MS / 6)).build());
        server = cluster.server();
        owner = new RawSession(server.port());
        data = owner.hello().dataRegion();
        view = new RegionView(server);
    }

    @AfterEach
    void stop()
    {
        LocalCluster.closeAll(view, owner, cluster);
    }

    private static AllocOkMessage alloc(final RawSession session, final long bytes)
    {
        assertEquals(WcStatus.SUCCESS, session.send(new AllocMessage(1, bytes)));
        return assertInstanceOf(AllocOkMessage.class, session.receive());
    }

    /** WRITEs {@link #PATTERN_LENGTH} bytes of {@code fill} at {@code offset} of the data area. */
    private WcStatus write(final RawSession session, final long offset, final int rkey, final byte fill)
    {
        session.scratch().asSlice(0, PATTERN_LENGTH).fill(fill);
        return session.write(data.address() + offset, rkey, PATTERN_LENGTH);
    }

    /** The data area's bytes at {@code offset}, read over RDMA by the view's own session. */
    private byte[] bytes(final long offset)
    {
        return view.bytes(server.geometry().dataOffset() + offset, PATTERN_LENGTH);
    }

    private static byte[] filled(final byte fill)
    {
        final byte[] b = new byte[PATTERN_LENGTH];
        Arrays.fill(b, fill);
        return b;
    }

    @Test
    void anotherSessionCannotWriteTheOwnersGrantAndOnlyItsQueuePairFails()
    {
        final AllocOkMessage grant = alloc(owner, PATTERN_LENGTH);
        assertNotEquals(data.rkey(), grant.writeRkey(), "a grant is written through a window, not the data area");
        assertEquals(WcStatus.SUCCESS, write(owner, grant.chunkOffset(), grant.writeRkey(), MINE));
        assertArrayEquals(filled(MINE), bytes(grant.chunkOffset()));
        final long errors = server.counters().completionErrors();

        // the thieves stay open until the node has dropped them: the node must fence them for the failed WRITE
        // itself; a thief that hung up first would leave through its closed connection, with no completion error
        try (RawSession windowThief = new RawSession(server.port());
            RawSession areaThief = new RawSession(server.port()))
        {
            assertEquals(WcStatus.REM_ACCESS_ERR, write(windowThief, grant.chunkOffset(), grant.writeRkey(), THEIRS),
                "the owner's window is bound to the owner's queue pair only");
            assertEquals(WcStatus.REM_ACCESS_ERR, write(areaThief, grant.chunkOffset(), data.rkey(), THEIRS),
                "the data area itself is not remotely writable");
            assertArrayEquals(filled(MINE), bytes(grant.chunkOffset()), "the owner's bytes are intact");
            Await.until("the node drops both thieves", Duration.ofSeconds(5),
                () -> server.counters().completionErrors() == errors + 2 && server.sessionCount() == 2,
                () -> server.sessionCount() + " sessions, " + server.counters().completionErrors() + " errors");
        }
        assertEquals(WcStatus.SUCCESS, write(owner, grant.chunkOffset() + PATTERN_LENGTH, grant.writeRkey(), MINE),
            "the owner keeps writing its grant");
        assertEquals(WcStatus.SUCCESS, owner.read(data.address() + grant.chunkOffset(), data.rkey(), PATTERN_LENGTH),
            "and reading the data area");
    }

    @Test
    void aStoreClientsValueSurvivesAHostileWriteAndTheClientKeepsWorking()
    {
        final byte[] key = LocalCluster.bytes("victim");
        final byte[] value = LocalCluster.bytes("a value only its writer's window could have written");
        try (KvClient victim = LocalCluster.client(server))
        {
            victim.put(key, value);
            final RegionView.Slot slot = view.find(key);
            final long block = slot.blockOffset() - server.geometry().dataOffset();
            try (RawSession thief = new RawSession(server.port()))
            {
                final AllocOkMessage own = alloc(thief, PATTERN_LENGTH);
                assertEquals(WcStatus.REM_ACCESS_ERR, write(thief, block, own.writeRkey(), THEIRS),
                    "a session's window ends at its own grant");
            }
            assertArrayEquals(value, victim.get(key));
            victim.put(key, LocalCluster.bytes("and it writes on"));
            assertArrayEquals(LocalCluster.bytes("and it writes on"), victim.get(key));
        }
    }

    @Test
    void aGrantIsNotWritableBeyondItsEnd()
    {
        final AllocOkMessage grant = alloc(owner, PATTERN_LENGTH);
        assertEquals(WcStatus.REM_ACCESS_ERR,
            write(owner, grant.chunkOffset() + grant.chunkLength() - PATTERN_LENGTH / 2, grant.writeRkey(), MINE));
    }

    @Test
    void theGrantASessionMovedOnFromIsNoLongerWritableByIt()
    {
        final AllocOkMessage first = alloc(owner, PATTERN_LENGTH);
        assertEquals(WcStatus.SUCCESS, write(owner, first.chunkOffset(), first.writeRkey(), MINE));
        final AllocOkMessage second = alloc(owner, PATTERN_LENGTH);
        assertNotEquals(first.writeRkey(), second.writeRkey());
        assertEquals(WcStatus.SUCCESS, write(owner, second.chunkOffset(), second.writeRkey(), MINE));
        assertEquals(1, server.counters().get(ServerCounter.MEMORY_WINDOWS_BOUND),
            "the view holds no grant: one window, the owner's latest, is bound");
        assertEquals(WcStatus.REM_ACCESS_ERR, write(owner, first.chunkOffset(), first.writeRkey(), THEIRS),
            "the first grant's window was deallocated when the second was bound");
        assertArrayEquals(filled(MINE), bytes(first.chunkOffset()));
        Await.until("the node fences the owner for its bad WRITE and revokes its window", Duration.ofSeconds(5),
            () -> server.counters().get(ServerCounter.MEMORY_WINDOWS_BOUND) == 0,
            () -> server.counters().get(ServerCounter.MEMORY_WINDOWS_BOUND) + " windows bound");
    }

    @Test
    void aFencedSessionsWindowIsDeallocatedAndStatsSaySo()
    {
        try (RawSession frozen = new RawSession(server.port()))
        {
            alloc(frozen, PATTERN_LENGTH);
            alloc(owner, PATTERN_LENGTH);
            assertEquals(2, stats().writeWindows());
            frozen.stopHeartbeats();
            Await.until("the frozen session's lease expires and its window is revoked",
                Duration.ofMillis(LEASE_MS * 4 + 5_000),
                () -> server.counters().get(ServerCounter.MEMORY_WINDOW_REVOCATIONS) == 1,
                () -> server.counters().get(ServerCounter.LEASES_EXPIRED) + " leases expired");
            assertEquals(1, server.counters().get(ServerCounter.LEASES_EXPIRED));
            assertEquals(1, stats().writeWindows(), "only the owner's window is left");
            assertTrue(stats().memoryWindows());
        }
    }

    @Test
    void withoutWindowsTheDataAreaRkeyWritesAndStatsSaySo()
    {
        try (KvServer plain = LocalCluster.startNode(ServerConfig.local(LocalCluster.NODE_MEMORY)
            .withMemoryWindows(MemoryWindowMode.OFF)); RawSession session = new RawSession(plain.port()))
        {
            final AllocOkMessage grant = alloc(session, PATTERN_LENGTH);
            assertEquals(session.hello().dataRegion().rkey(), grant.writeRkey());
            session.scratch().asSlice(0, PATTERN_LENGTH).fill(MINE);
            assertEquals(WcStatus.SUCCESS, session.write(session.hello().dataRegion().address() + grant.chunkOffset(),
                grant.writeRkey(), PATTERN_LENGTH));
            assertEquals(WcStatus.SUCCESS, session.send(new StatsMessage(2)));
            final StatsOkMessage stats = assertInstanceOf(StatsOkMessage.class, session.receive());
            assertEquals(StatsOkMessage.NO_WINDOWS, stats.writeWindows());
            assertEquals(0, plain.counters().get(ServerCounter.MEMORY_WINDOWS_ENABLED));
        }
    }

    private StatsOkMessage stats()
    {
        assertEquals(WcStatus.SUCCESS, owner.send(new StatsMessage(3)));
        return assertInstanceOf(StatsOkMessage.class, owner.receive());
    }
}
