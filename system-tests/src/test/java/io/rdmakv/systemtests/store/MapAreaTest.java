package io.rdmakv.systemtests.store;

import io.rdmakv.client.KvClient;
import io.rdmakv.common.LittleEndian;
import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.layout.MapAreaDescriptor;
import io.rdmakv.common.layout.RegionHeaderDescriptor;
import io.rdmakv.common.protocol.HelloOkMessage;
import io.rdmakv.common.protocol.wire.ClusterMapCodec;
import io.rdmakv.common.protocol.wire.RemoteRegion;
import io.rdmakv.server.KvServer;
import io.rdmakv.systemtests.LocalCluster;
import io.rdmakv.systemtests.peer.RawSession;
import io.rdmakv.verbs.WcStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

import static io.rdmakv.systemtests.LocalCluster.bytes;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A node's map area over the wire: HELLO_OK names it, a client READs the map the node serves from it (and the
 * applied epoch from the region header's {@code map_epoch} word with one 8-byte READ), and a WRITE to it is
 * refused with REM_ACCESS_ERR, as a real NIC refuses a WRITE to a region registered for remote READ only. Then a
 * node that misbehaves: it says (in its heartbeat answers) that it applied a far newer map than its area holds, its
 * area holds another cluster's map, or a map whose bytes fail their CRC. The client reads each once, ignores it
 * (the rate-limited log says why), keeps its map and goes on serving, and does not read it again.
 */
class MapAreaTest
{
    private KvServer server;
    private KvClient client;

    @AfterEach
    void stop()
    {
        LocalCluster.closeAll(client, server);
    }

    @Test
    void aClientReadsTheMapAreaAndCannotWriteIt()
    {
        server = LocalCluster.startNode();
        try (RawSession raw = new RawSession(server.port(), "", 17 * RawSession.BUFFER))
        {
            final HelloOkMessage hello = raw.hello();
            final RemoteRegion area = hello.mapArea();
            assertNotNull(area, "HELLO_OK names the map area");
            assertEquals(MapAreaDescriptor.LENGTH, area.length());
            assertEquals(server.mapArea().remote(), area);

            final ClusterMap served = server.clusterMap();
            assertEquals(served, readMap(raw, area), "the map HELLO_OK carries");

            final ClusterMap newer = ClusterMap.of(7, served.nodes());
            server.mapArea().publish(newer); // as the node does when it applies a map
            assertEquals(newer, readMap(raw, area));
            assertEquals(WcStatus.SUCCESS, raw.read(hello.indexRegion().address() +
                RegionHeaderDescriptor.MAP_EPOCH_OFFSET, hello.indexRegion().rkey(), 8));
            assertEquals(7L, raw.scratch().get(LittleEndian.U64, 0), "map_epoch: one 8-byte READ");

            final byte[] before = server.mapArea().segment().asSlice(0, 4096).toArray(ValueLayout.JAVA_BYTE);
            raw.scratch().asSlice(0, 64).fill((byte)0x5A);
            assertEquals(WcStatus.REM_ACCESS_ERR, raw.write(area.address(), area.rkey(), 64),
                "the map area is registered for remote READ only");
            assertArrayEquals(before, server.mapArea().segment().asSlice(0, 4096).toArray(ValueLayout.JAVA_BYTE),
                "and nothing of it changed");
        }
    }

    @Test
    void aClientIgnoresWhatAMisbehavingNodeOffersAndKeepsServing() throws Exception
    {
        server = LocalCluster.startNode();
        client = LocalCluster.client(server);
        client.put(bytes("k"), bytes("v0"));
        final ClusterMap held = client.clusterMap();
        final MemorySegment area = server.mapArea().segment();

        // 1. it says it applied epoch 10^12 (its heartbeat answers name the area's published epoch) but its area
        //    holds an older map than that
        server.mapArea().publish(ClusterMap.of(1_000_000_000_000L, held.nodes()));
        MapAreaDescriptor.publish(area, ClusterMapCodec.encode(ClusterMap.of(5, held.nodes())), 5);
        awaitReads(1, 1);
        // 2. another cluster's map: another partition count
        server.mapArea().publish(new ClusterMap(2_000_000_000_000L, 16, held.nodes(), null));
        awaitReads(2, 2);
        // 3. a map whose bytes fail their CRC: read again (bounded), then the nodes are asked the old way (HELLO_OK)
        server.mapArea().publish(ClusterMap.of(3_000_000_000_000L, held.nodes()));
        final int buffer = MapAreaDescriptor.buffer(area, 0);
        final long at = MapAreaDescriptor.bufferOffset(buffer) + 10;
        area.set(ValueLayout.JAVA_BYTE, at, (byte)(area.get(ValueLayout.JAVA_BYTE, at) ^ 0x40));
        awaitReads(3, 2);

        Thread.sleep(2_000); // four heartbeat intervals: none of them is read again
        assertEquals("[3, 2]", Arrays.toString(client.mapAreaReads()), "each claim read once, never a spin");
        assertEquals(held, client.clusterMap(), "the client keeps the map it has");
        client.put(bytes("k"), bytes("v1"));
        assertArrayEquals(bytes("v1"), client.get(bytes("k")), "and serves with it");
    }

    private void awaitReads(final long reads, final long ignored) throws InterruptedException
    {
        final long deadline = System.nanoTime() + 10_000_000_000L;
        while (System.nanoTime() < deadline)
        {
            final long[] now = client.mapAreaReads();
            if (now[0] == reads && now[1] == ignored)
            {
                return;
            }
            assertTrue(now[0] <= reads && now[1] <= ignored, "read more than expected: " + Arrays.toString(now));
            Thread.sleep(20);
        }
        assertEquals("[" + reads + ", " + ignored + "]", Arrays.toString(client.mapAreaReads()));
    }

    /** READs the header, then the buffer it names, as a client does; checks the header again and the CRC. */
    private static ClusterMap readMap(final RawSession raw, final RemoteRegion area)
    {
        final MemorySegment scratch = raw.scratch();
        assertEquals(WcStatus.SUCCESS, raw.read(area.address(), area.rkey(), MapAreaDescriptor.HEADER_LENGTH));
        final MemorySegment header = MemorySegment.ofArray(scratch.asSlice(0, 64).toArray(ValueLayout.JAVA_BYTE));
        final int length = MapAreaDescriptor.length(header, 0);
        assertEquals(WcStatus.SUCCESS, raw.read(area.address() +
            MapAreaDescriptor.bufferOffset(MapAreaDescriptor.buffer(header, 0)), area.rkey(), length));
        final byte[] map = scratch.asSlice(0, length).toArray(ValueLayout.JAVA_BYTE);
        assertEquals(null, MapAreaDescriptor.check(header, header, MemorySegment.ofArray(map)));
        return ClusterMapCodec.decode(map);
    }
}
