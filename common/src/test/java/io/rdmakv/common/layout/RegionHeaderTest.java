package io.rdmakv.common.layout;

import io.rdmakv.common.LittleEndian;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RegionHeaderTest
{
    @Test
    void pinsHeaderOffsets()
    {
        assertEquals(0, RegionHeaderDescriptor.MAGIC_OFFSET);
        assertEquals(8, RegionHeaderDescriptor.LAYOUT_VERSION_OFFSET);
        assertEquals(12, RegionHeaderDescriptor.HEADER_LENGTH_OFFSET);
        assertEquals(16, RegionHeaderDescriptor.NODE_ID_OFFSET);
        assertEquals(20, RegionHeaderDescriptor.SLOTS_PER_BUCKET_OFFSET);
        assertEquals(24, RegionHeaderDescriptor.BUCKETS_PER_GROUP_OFFSET);
        assertEquals(28, RegionHeaderDescriptor.CHUNK_SIZE_OFFSET);
        assertEquals(32, RegionHeaderDescriptor.REGION_LENGTH_OFFSET);
        assertEquals(40, RegionHeaderDescriptor.INDEX_OFFSET_OFFSET);
        assertEquals(48, RegionHeaderDescriptor.INDEX_LENGTH_OFFSET);
        assertEquals(56, RegionHeaderDescriptor.BUCKET_COUNT_OFFSET);
        assertEquals(64, RegionHeaderDescriptor.DATA_OFFSET_OFFSET);
        assertEquals(72, RegionHeaderDescriptor.DATA_LENGTH_OFFSET);
        assertEquals(80, RegionHeaderDescriptor.MAX_KEY_LENGTH_OFFSET);
        assertEquals(84, RegionHeaderDescriptor.MAX_VALUE_LENGTH_OFFSET);
        assertEquals(128, RegionHeaderDescriptor.MAP_EPOCH_OFFSET);
        assertEquals(136, RegionHeaderDescriptor.USED_LENGTH);
        assertEquals(4096, RegionHeaderDescriptor.HEADER_LENGTH);
        assertEquals(2, RegionHeaderDescriptor.LAYOUT_VERSION);
    }

    @Test
    void magicIsRdmakvZeroOneInMemoryOrder()
    {
        final MemorySegment segment = MemorySegment.ofArray(new byte[8]);
        segment.set(LittleEndian.U64, 0, RegionHeaderDescriptor.MAGIC);
        assertArrayEquals(
            "RDMAKV\0\1".getBytes(StandardCharsets.US_ASCII), segment.toArray(ValueLayout.JAVA_BYTE));
    }

    @Test
    void writesAndReadsBackAGeometry()
    {
        final RegionGeometry geometry = RegionGeometry.forMemory(64L << 20);
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment segment = arena.allocate(RegionHeaderDescriptor.HEADER_LENGTH, 4096);
            segment.fill((byte)0x33);
            final RegionHeader header = new RegionHeader().wrap(segment).initialise(geometry, 7);
            assertEquals(RegionHeaderDescriptor.MAGIC, header.magic());
            assertEquals(2, header.layoutVersion());
            assertEquals(7, header.nodeId());
            assertEquals(0, header.mapEpoch());
            assertEquals(geometry, header.check().geometry());
            assertEquals(0, segment.get(ValueLayout.JAVA_BYTE, 100), "gap zeroed");
            assertEquals(0, segment.get(ValueLayout.JAVA_BYTE, 4095), "tail zeroed");

            assertEquals(geometry.bucketCount(), segment.get(LittleEndian.U64, 56));
            assertEquals(geometry.dataOffset(), segment.get(LittleEndian.U64, 64));
            assertEquals(geometry.chunkSize(), segment.get(LittleEndian.U32, 28));

            header.mapEpoch(0x1234);
            assertEquals(0x1234, segment.get(LittleEndian.U64, 128));
            assertEquals(0x1234, RegionHeader.mapEpoch(segment, 0));
            assertEquals(RegionHeaderDescriptor.MAGIC, RegionHeader.magic(segment, 0));
            assertEquals(2, RegionHeader.layoutVersion(segment, 0));
            assertTrue(header.toString().contains("nodeId=7"));
        }
    }

    @Test
    void versionMismatchNamesBothVersions()
    {
        final MemorySegment segment = MemorySegment.ofArray(new byte[4096]);
        final RegionHeader header = new RegionHeader().wrap(segment).initialise(RegionGeometry.forMemory(8 << 20), 1);
        header.layoutVersion(1);
        final String message = assertThrows(RegionLayoutException.class, header::checkVersion).getMessage();
        assertEquals(
            "region layout version 1 is not supported: this build of rdmakv reads layout version 2", message);
        assertThrows(RegionLayoutException.class, header::geometry);
        assertThrows(RegionLayoutException.class, () -> RegionHeaderDescriptor.checkVersion(0));
    }

    @Test
    void badMagicIsNotARegion()
    {
        final MemorySegment segment = MemorySegment.ofArray(new byte[4096]);
        final RegionHeader header = new RegionHeader().wrap(segment).initialise(RegionGeometry.forMemory(8 << 20), 1);
        header.magic(0x1234);
        final String message = assertThrows(RegionLayoutException.class, header::check).getMessage();
        assertTrue(message.startsWith("not an rdmakv region: magic 0x1234"), message);
    }

    @Test
    void inconsistentGeometryIsALayoutError()
    {
        final MemorySegment segment = MemorySegment.ofArray(new byte[4096]);
        final RegionHeader header = new RegionHeader().wrap(segment).initialise(RegionGeometry.forMemory(8 << 20), 3);
        header.bucketCount(header.bucketCount() + 1);
        final String message = assertThrows(RegionLayoutException.class, header::geometry).getMessage();
        assertTrue(message.startsWith("region header of node 3: bucket count"), message);
    }

    @Test
    void refusesSegmentsTooSmallForTheHeader()
    {
        assertThrows(IndexOutOfBoundsException.class, () -> new RegionHeader().wrap(MemorySegment.ofArray(new byte[100])));
    }
}
