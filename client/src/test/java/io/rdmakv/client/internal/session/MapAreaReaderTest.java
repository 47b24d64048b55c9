package io.rdmakv.client.internal.session;

import io.rdmakv.client.internal.lane.LaneBuffers;
import io.rdmakv.common.LittleEndian;
import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.ClusterNode;
import io.rdmakv.common.cluster.ReplicaGroup;
import io.rdmakv.common.layout.MapAreaDescriptor;
import io.rdmakv.common.protocol.wire.ClusterMapCodec;
import io.rdmakv.common.protocol.wire.RemoteRegion;
import io.rdmakv.peer.Status;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The client's READs of a node's map area, against a fake queue pair over an area in local memory that the test
 * publishes into between the READs: a torn read (the sequence moved) is read again; a CRC that does not hold, a
 * length or buffer no node writes, bytes that are no map, or a header epoch that is not the map's are refused; the
 * reads are bounded.
 */
class MapAreaReaderTest
{
    private static final RemoteRegion AREA = new RemoteRegion(0x10_000, MapAreaDescriptor.LENGTH, 7);

    private final Arena arena = Arena.ofConfined();
    private final MemorySegment area = arena.allocate(MapAreaDescriptor.LENGTH, 64);
    private final MemorySegment lane = arena.allocate(LaneBuffers.LENGTH, 4096);

    @AfterEach
    void close()
    {
        arena.close();
    }

    @Test
    void readsTheMapTheNodePublished()
    {
        MapAreaDescriptor.publish(area, ClusterMapCodec.encode(map(5, 3)), 5);
        MapAreaDescriptor.publish(area, ClusterMapCodec.encode(map(6, 3)), 6);
        final FakeReads reads = new FakeReads(null);
        final MapAreaReader.Fetched fetched = MapAreaReader.fetch(AREA, reads);
        assertNull(fetched.why());
        assertEquals(map(6, 3), fetched.map());
        assertEquals(2, reads.rings, "header, then buffer and header in one doorbell");
        assertTrue(reads.closed);
    }

    @Test
    void readsAgainWhenTheSequenceMovedBetweenTheHeaderAndTheBuffer()
    {
        MapAreaDescriptor.publish(area, ClusterMapCodec.encode(map(5, 3)), 5);
        final int[] publishes = {6};
        // after the first header READ, two more publishes: the buffer the header named is rewritten (torn)
        final FakeReads reads = new FakeReads(ring ->
        {
            if (ring == 1)
            {
                MapAreaDescriptor.publish(area, ClusterMapCodec.encode(map(publishes[0], 3)), publishes[0]++);
                MapAreaDescriptor.publish(area, ClusterMapCodec.encode(map(publishes[0], 3)), publishes[0]++);
            }
        });
        final MapAreaReader.Fetched fetched = MapAreaReader.fetch(AREA, reads);
        assertNull(fetched.why());
        assertEquals(map(7, 3), fetched.map(), "the second attempt's whole read");
        assertEquals(4, reads.rings);
    }

    @Test
    void givesUpAfterItsAttemptsWhileEveryReadIsTorn()
    {
        MapAreaDescriptor.publish(area, ClusterMapCodec.encode(map(5, 3)), 5);
        final long[] epoch = {6};
        final FakeReads reads = new FakeReads(ring ->
        {
            if (ring % 2 == 1)
            {
                MapAreaDescriptor.publish(area, ClusterMapCodec.encode(map(epoch[0], 3)), epoch[0]++);
            }
        });
        final MapAreaReader.Fetched fetched = MapAreaReader.fetch(AREA, reads);
        assertNull(fetched.map());
        assertTrue(fetched.why().contains("published another map") && fetched.why().endsWith("4 times"),
            fetched.why());
        assertEquals(2 * MapAreaReader.ATTEMPTS, reads.rings, "bounded: never a spin");
    }

    @Test
    void readsAgainWhileTheNodeWritesTheHeaderAndWhileNothingIsPublished()
    {
        final FakeReads empty = new FakeReads(null);
        assertEquals("its map area holds no map yet, 4 times", MapAreaReader.fetch(AREA, empty).why());
        assertEquals(MapAreaReader.ATTEMPTS, empty.rings);

        MapAreaDescriptor.publish(area, ClusterMapCodec.encode(map(5, 3)), 5);
        area.set(LittleEndian.U64, MapAreaDescriptor.SEQUENCE_OFFSET, 3L);
        final FakeReads writing = new FakeReads(ring -> area.set(LittleEndian.U64, 0, 4L));
        final MapAreaReader.Fetched fetched = MapAreaReader.fetch(AREA, writing);
        assertEquals(map(5, 3), fetched.map(), "read again once the header was whole: " + fetched.why());
    }

    @Test
    void refusesABadCrcABadLengthABadBufferAndBytesThatAreNoMap()
    {
        MapAreaDescriptor.publish(area, ClusterMapCodec.encode(map(5, 3)), 5);
        area.set(ValueLayout.JAVA_BYTE, MapAreaDescriptor.bufferOffset(0) + 3, (byte)0x55);
        MapAreaReader.Fetched fetched = MapAreaReader.fetch(AREA, new FakeReads(null));
        assertNull(fetched.map());
        assertTrue(fetched.why().contains("CRC-32C"), fetched.why());

        MapAreaDescriptor.publish(area, ClusterMapCodec.encode(map(6, 3)), 6);
        area.set(LittleEndian.U32, MapAreaDescriptor.LENGTH_OFFSET, MapAreaDescriptor.BUFFER_LENGTH + 64);
        final FakeReads tooLong = new FakeReads(null);
        fetched = MapAreaReader.fetch(AREA, tooLong);
        assertTrue(fetched.why().contains("65600 bytes"), fetched.why());
        assertEquals(1, tooLong.rings, "a header no node writes is not read again");

        MapAreaDescriptor.publish(area, ClusterMapCodec.encode(map(7, 3)), 7);
        area.set(LittleEndian.U32, MapAreaDescriptor.BUFFER_OFFSET, 2);
        assertTrue(MapAreaReader.fetch(AREA, new FakeReads(null)).why().contains("buffer 2"));

        MapAreaDescriptor.publish(area, new byte[] {9, 9, 9, 9}, 8);
        fetched = MapAreaReader.fetch(AREA, new FakeReads(null));
        assertTrue(fetched.why().contains("no map this build reads"), fetched.why());

        MapAreaDescriptor.publish(area, ClusterMapCodec.encode(map(9, 3)), 10);
        fetched = MapAreaReader.fetch(AREA, new FakeReads(null));
        assertEquals("its map area's header says epoch 10, the map in it 9", fetched.why());
    }

    @Test
    void reportsAFailedRead()
    {
        MapAreaDescriptor.publish(area, ClusterMapCodec.encode(map(5, 3)), 5);
        final FakeReads failing = new FakeReads(null);
        failing.status = Status.CONNECTION_LOST;
        assertTrue(MapAreaReader.fetch(AREA, failing).why().contains("failed (status"));
    }

    static ClusterMap map(final long epoch, final int nodes)
    {
        final List<ClusterNode> list = new java.util.ArrayList<>();
        for (int i = 0; i < nodes; i++)
        {
            list.add(new ClusterNode(i, "127.0.0.1", 7000 + i));
        }
        return new ClusterMap(epoch, 1, 64, list, 2, List.of(new ReplicaGroup(0, new int[] {0, 1}, null, false)),
            new int[64]);
    }

    /** READs served from {@link #area}, posted on ring; {@code beforeRing} runs with the ring's number (1..). */
    private final class FakeReads implements MapAreaReader.Reads
    {
        private final java.util.function.IntConsumer afterRing;
        private final List<long[]> posted = new java.util.ArrayList<>();
        int rings;
        int status = Status.OK;
        boolean closed;

        FakeReads(final java.util.function.IntConsumer afterRing)
        {
            this.afterRing = afterRing;
        }

        @Override
        public void read(final int offset, final int length, final long remoteAddress, final int rkey)
        {
            assertEquals(AREA.rkey(), rkey);
            assertTrue(AREA.contains(remoteAddress - AREA.address(), length), "inside the area");
            posted.add(new long[] {offset, length, remoteAddress - AREA.address()});
        }

        @Override
        public int ring()
        {
            rings++;
            for (final long[] p : posted)
            {
                MemorySegment.copy(area, p[2], lane, p[0], p[1]);
            }
            posted.clear();
            if (afterRing != null)
            {
                afterRing.accept(rings);
            }
            return status;
        }

        @Override
        public MemorySegment memory()
        {
            return lane;
        }

        @Override
        public void close()
        {
            closed = true;
        }
    }
}
