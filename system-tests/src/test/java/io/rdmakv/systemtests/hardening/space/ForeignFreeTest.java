package io.rdmakv.systemtests.hardening.space;

import io.rdmakv.client.KvClient;
import io.rdmakv.common.protocol.AllocMessage;
import io.rdmakv.common.protocol.AllocOkMessage;
import io.rdmakv.common.protocol.FreeMessage;
import io.rdmakv.common.protocol.StatsMessage;
import io.rdmakv.common.protocol.StatsOkMessage;
import io.rdmakv.server.KvServer;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.server.control.ServerCounter;
import io.rdmakv.server.control.ServerCounters;
import io.rdmakv.systemtests.LocalCluster;
import io.rdmakv.systemtests.peer.RawSession;
import io.rdmakv.systemtests.peer.RegionView;
import io.rdmakv.verbs.WcStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A raw peer session FREEs another session's space: every block the victim wrote (acknowledged, so
 * referenced) and the unused tail of its extent. The node frees none of it (the tail is refused as
 * another's; blocks of the victim's latest extent are held until it moves on, then refused as live);
 * after the grace period the victim keeps writing into that tail and every acknowledged write reads back.
 * And the other side: blocks one client supersedes of another's are still given back.
 */
class ForeignFreeTest
{
    private static final long GRACE_NANOS = TimeUnit.MILLISECONDS.toNanos(20);
    private static final int KEYS = 200;

    private KvServer server;
    private KvClient victim;
    private RawSession rogue;

    @AfterEach
    void stop()
    {
        LocalCluster.closeAll(rogue, victim, server);
    }

    private static byte[] key(final int i)
    {
        return LocalCluster.bytes("victim-" + i);
    }

    private static byte[] value(final int i)
    {
        return LocalCluster.bytes("acknowledged value " + i + " ".repeat(i % 300));
    }

    @Test
    void blocksSupersededByAnotherSessionAreStillGivenBack() throws Exception
    {
        server = LocalCluster.startNode(ServerConfig.local(LocalCluster.MEMORY).withGraceNanos(GRACE_NANOS));
        victim = LocalCluster.client(server);
        try (KvClient other = LocalCluster.client(server))
        {
            final byte[] v = new byte[1024];
            for (int i = 0; i < 12_000; i++)
            {
                (i % 2 == 0 ? victim : other).put(key(i % 50), v); // each write supersedes the other's block
            }
            TimeUnit.MILLISECONDS.sleep(600); // due FREEs go (janitor), then the grace period passes
            final long used = server.geometry().dataLength() - server.freeBytes() - server.graceBytes();
            final long chunk = server.geometry().chunkSize();
            assertTrue(used <= 4 * chunk + 50 * 2048, used + " bytes still held after " + 12_000 * 1024L +
                " written: at most two extents per session (the last ones, with held FREEs) and the live blocks");
            assertEquals(0, server.counters().get(ServerCounter.FREES_REFUSED_FOREIGN));
        }
    }

    @Test
    void aRawPeerCannotFreeAnotherSessionsBlocksOrTheTailOfItsExtent() throws Exception
    {
        server = LocalCluster.startNode(ServerConfig.local(LocalCluster.MEMORY).withGraceNanos(GRACE_NANOS));
        victim = LocalCluster.client(server);
        for (int i = 0; i < KEYS; i++)
        {
            victim.put(key(i), value(i));
        }
        rogue = new RawSession(server.port());
        assertEquals(WcStatus.SUCCESS, rogue.send(new AllocMessage(1, 4096)));
        assertInstanceOf(AllocOkMessage.class, rogue.receive());

        final List<long[]> targets = new ArrayList<>();
        long end = 0;
        try (RegionView view = new RegionView(server))
        {
            final long dataOffset = server.geometry().dataOffset();
            for (int i = 0; i < KEYS; i++)
            {
                final RegionView.Slot slot = view.find(key(i));
                targets.add(new long[] {slot.blockOffset() - dataOffset, slot.blockLength()});
                end = Math.max(end, slot.blockOffset() - dataOffset + slot.blockLength());
            }
        }
        targets.add(new long[] {end, 64 * 1024}); // the unused tail of the victim's extent
        final ServerCounters c = server.counters();
        for (int from = 0; from < targets.size(); from += FreeMessage.MAX_ENTRIES)
        {
            final int n = Math.min(FreeMessage.MAX_ENTRIES, targets.size() - from);
            final long[] offsets = new long[n];
            final int[] lengths = new int[n];
            for (int i = 0; i < n; i++)
            {
                offsets[i] = targets.get(from + i)[0];
                lengths[i] = (int)targets.get(from + i)[1];
            }
            assertEquals(WcStatus.SUCCESS, rogue.send(new FreeMessage(2, offsets, lengths)));
        }
        assertEquals(WcStatus.SUCCESS, rogue.send(new StatsMessage(3)));
        assertInstanceOf(StatsOkMessage.class, rogue.receive(), "a session's requests are served in order");

        assertEquals(0, c.freedBlocks(), "nothing of the victim's was freed");
        assertEquals(1, c.get(ServerCounter.FREES_REFUSED_FOREIGN), "the tail of the victim's extent");
        assertEquals(targets.size() - 1, c.get(ServerCounter.FREES_DEFERRED) + c.get(ServerCounter.FREES_REFUSED_LIVE),
            "blocks of the victim's latest extent are held until it moves on, then refused as live");

        TimeUnit.NANOSECONDS.sleep(4 * GRACE_NANOS);
        for (int i = KEYS; i < 2 * KEYS; i++)
        {
            victim.put(key(i), value(i)); // into the tail the rogue tried to free
        }
        for (int i = 0; i < 2 * KEYS; i++)
        {
            assertArrayEquals(value(i), victim.get(key(i)), "key victim-" + i);
        }
        assertEquals(0, c.freedBlocks(), "the held entries, checked again, freed nothing either");
    }
}
