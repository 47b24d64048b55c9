package io.rdmakv.systemtests.badinput;

import io.rdmakv.client.KvClient;
import io.rdmakv.common.layout.RegionGeometry;
import io.rdmakv.common.protocol.AllocMessage;
import io.rdmakv.common.protocol.AllocOkMessage;
import io.rdmakv.common.protocol.CodedRefusalMessage;
import io.rdmakv.common.protocol.ControlMessage;
import io.rdmakv.common.protocol.FreeMessage;
import io.rdmakv.common.protocol.StatsMessage;
import io.rdmakv.common.protocol.StatsOkMessage;
import io.rdmakv.common.protocol.wire.MessageType;
import io.rdmakv.common.protocol.wire.ReasonCode;
import io.rdmakv.server.KvServer;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.server.control.ServerCounter;
import io.rdmakv.server.control.ServerCounters;
import io.rdmakv.systemtests.Await;
import io.rdmakv.systemtests.LocalCluster;
import io.rdmakv.systemtests.peer.RawSession;
import io.rdmakv.systemtests.peer.RegionView;
import io.rdmakv.verbs.WcStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

/**
 * FREE and ALLOC requests that are well-formed but wrong: space never granted, freed twice, granted to
 * someone else, more than exists. The node refuses and counts them and never hands out space a slot
 * still references.
 */
class SpaceAbuseTest
{
    private static final int CHUNK = 1 << 18;
    private static final long GRACE_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    private KvServer server;
    private RawSession raw;

    @AfterEach
    void stop()
    {
        LocalCluster.closeAll(raw, server);
    }

    private void start(final long memory)
    {
        // a session may hold the whole data area here (the default quota is a quarter of it)
        server = LocalCluster.startNode(ServerConfig.local(memory).toBuilder().chunkSize(CHUNK).graceNanos(GRACE_NANOS)
            .sessionQuotaBytes(memory).build());
        raw = new RawSession(server.port());
    }

    /** A STATS round trip: the node's agent handled everything sent before it. */
    private void sync()
    {
        assertEquals(WcStatus.SUCCESS, raw.send(new StatsMessage(999)));
        assertInstanceOf(StatsOkMessage.class, raw.receive());
    }

    private void free(final long offset, final int length)
    {
        assertEquals(WcStatus.SUCCESS, raw.send(new FreeMessage(5, new long[] {offset}, new int[] {length})));
    }

    @Test
    void freesOfSpaceNeverGrantedAreRefused()
    {
        start(8L << 20);
        final ServerCounters c = server.counters();
        final long dataLength = server.geometry().dataLength();
        final long free = server.freeBytes();
        final long[] offsets = {0, 100, 64, dataLength - 64, dataLength};
        final int[] lengths = {64, 64, 100, 64, 64};
        assertEquals(WcStatus.SUCCESS, raw.send(new FreeMessage(6, offsets, lengths)));
        sync();
        assertEquals(offsets.length, c.refusedFrees(), "reserved unit, misaligned offset, misaligned length, " +
            "never granted, past the end");
        assertEquals(0, c.freedBlocks());
        assertEquals(free, server.freeBytes());
        TestSupport.assertServes(server, "refused frees");
    }

    @Test
    void secondFreeOfTheSameBlockIsRefused()
    {
        start(8L << 20);
        final ServerCounters c = server.counters();
        assertEquals(WcStatus.SUCCESS, raw.send(new AllocMessage(1, 4096)));
        final AllocOkMessage grant = assertInstanceOf(AllocOkMessage.class, raw.receive());
        free(grant.chunkOffset(), 128);
        sync();
        if (server.memoryWindows())
        {
            // inside the sender's latest extent, still writable through its window: held until it moves on
            assertEquals(0, c.freedBlocks());
            assertEquals(WcStatus.SUCCESS, raw.send(new AllocMessage(2, 4096)));
            assertInstanceOf(AllocOkMessage.class, raw.receive());
            sync();
        }
        assertEquals(1, c.freedBlocks());
        free(grant.chunkOffset(), 128);
        free(grant.chunkOffset() + 64, 64);
        sync();
        assertEquals(1, c.freedBlocks());
        assertEquals(2, c.refusedFrees(), "the same block, and a block inside it");
    }

    @Test
    void freeOfAnotherClientsLiveBlockIsRefused()
    {
        start(RegionGeometry.minimumMemory(CHUNK));
        final ServerCounters c = server.counters();
        final byte[] key = LocalCluster.bytes("victim");
        final byte[] value = LocalCluster.bytes("acknowledged, and referenced by a slot");
        try (KvClient victim = LocalCluster.client(server))
        {
            victim.put(key, value);
            assertEquals(WcStatus.SUCCESS, raw.send(new AllocMessage(1, CHUNK - 64)));
            assertInstanceOf(AllocOkMessage.class, raw.receive(), "the rogue takes the rest of the data area");
            final RegionView.Slot block;
            try (RegionView view = new RegionView(server))
            {
                block = view.find(key);
            }
            final long blockOffset = block.blockOffset() - server.geometry().dataOffset();
            free(blockOffset, block.blockLength());
            sync();
            assertEquals(0, c.freedBlocks(), "the block was granted to another session and is live");
            assertEquals(1, c.refusedFrees() + c.get(ServerCounter.FREES_DEFERRED),
                "refused, or held until the victim moves on to another extent (then refused as live)");
            final long wait = System.nanoTime() + 4 * GRACE_NANOS;
            Await.until("four grace periods pass", Duration.ofSeconds(2), () -> System.nanoTime() - wait > 0);
            assertEquals(WcStatus.SUCCESS, raw.send(new AllocMessage(2, 64)));
            final ControlMessage reply = raw.receive();
            assertNotNull(CodedRefusalMessage.as(MessageType.ALLOC_FAILED, reply),
                "nothing is free but the victim's block: " + reply);
            assertArrayEquals(value, victim.get(key));
        }
    }

    @Test
    void allocOfMoreThanExistsIsRefusedAndTheNodeKeepsServing()
    {
        start(8L << 20);
        for (final long requested : new long[] {server.geometry().dataLength() + 64, 1L << 62, Long.MAX_VALUE - 63,
            Long.MAX_VALUE})
        {
            assertEquals(WcStatus.SUCCESS, raw.send(new AllocMessage(3, requested)));
            final ControlMessage reply = raw.receive(Duration.ofSeconds(2));
            final CodedRefusalMessage failed = CodedRefusalMessage.as(MessageType.ALLOC_FAILED, reply);
            assertNotNull(failed, "ALLOC of " + requested + " bytes answered with " + reply);
            assertEquals(ReasonCode.REQUEST_TOO_LARGE.code(), failed.code(), failed.text());
        }
        assertEquals(0, server.counters().allocRequests() - server.counters().allocFailures());
        TestSupport.assertServes(server, "impossible ALLOCs");
    }
}
