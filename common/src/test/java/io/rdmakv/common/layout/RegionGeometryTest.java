package io.rdmakv.common.layout;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RegionGeometryTest
{
    private static final long MIB = 1L << 20;
    private static final long GIB = 1L << 30;

    @Test
    void sizesOneGibibyte()
    {
        final RegionGeometry g = RegionGeometry.forMemory(GIB);
        assertEquals(1L << 21, g.bucketCount());
        assertEquals(128 * MIB, g.indexLength());
        assertEquals(4096, g.indexOffset());
        assertEquals(4096, g.headerLength());
        assertEquals(128 * MIB + 4096, g.dataOffset());
        assertEquals(895 * MIB, g.dataLength());
        assertEquals(g.dataOffset() + g.dataLength(), g.regionLength());
        assertTrue(g.regionLength() <= GIB);
        assertEquals(1L << 20, g.groupCount());
        assertEquals(7L << 21, g.slotCount());
        assertEquals(895, g.chunkCount());
        assertEquals(128 * MIB + 4096, g.headerAndIndexLength());
        assertEquals(7, g.slotsPerBucket());
        assertEquals(2, g.bucketsPerGroup());
        assertEquals(KvBlockDescriptor.MAX_KEY_LENGTH, g.maxKeyLength());
        assertEquals(KvBlockDescriptor.MAX_VALUE_LENGTH, g.maxValueLength());
        assertEquals(4096 + 3 * 128 + 72, g.slotRegionOffset(3, 7));
        assertEquals(4096 + 5 * 128, g.groupRegionOffset(5));
    }

    @Test
    void indexTakesAboutAnEighth()
    {
        for (long memory = 4 * MIB; memory <= 64 * GIB; memory = memory * 3 / 2)
        {
            final RegionGeometry g = RegionGeometry.forMemory(memory);
            assertTrue(g.indexLength() <= memory / 8, "memory " + memory);
            assertTrue(g.indexLength() > memory / 16 - 4096 || g.bucketCount() == RegionGeometry.MIN_BUCKET_COUNT,
                "memory " + memory + " index " + g.indexLength());
            assertTrue(g.regionLength() <= memory);
            assertTrue(memory - g.regionLength() < g.chunkSize(), "memory " + memory);
            assertEquals(0, g.dataOffset() % 4096);
        }
    }

    @Test
    void theMinimumWorksAndOneByteLessDoesNot()
    {
        final long minimum = RegionGeometry.minimumMemory(RegionGeometry.DEFAULT_CHUNK_SIZE);
        assertEquals(8192 + 2 * MIB, minimum);
        final RegionGeometry g = RegionGeometry.forMemory(minimum);
        assertEquals(64, g.bucketCount());
        assertEquals(2 * MIB, g.dataLength());
        final String message = assertThrows(IllegalArgumentException.class, () -> RegionGeometry.forMemory(minimum - 1))
            .getMessage();
        assertEquals(
            "memory of 2105343 bytes is too small for a region: it needs at least 2105344 bytes (a 4096-byte header, " +
            "an index of at least 64 buckets and a data area of at least 2 chunks of 1048576 bytes)", message);
    }

    @Test
    void everySizeAboveTheMinimumWorks()
    {
        final int chunk = 256 * 1024;
        for (long memory = RegionGeometry.minimumMemory(chunk); memory < 64 * MIB; memory += 4096 * 7 + 1)
        {
            final RegionGeometry g = RegionGeometry.forMemory(memory, chunk);
            assertTrue(g.dataLength() >= 2L * chunk);
        }
    }

    @Test
    void rejectsBadChunkSizes()
    {
        assertThrows(IllegalArgumentException.class, () -> RegionGeometry.forMemory(GIB, 1000 * 1000));
        final String small = assertThrows(IllegalArgumentException.class, () -> RegionGeometry.forMemory(GIB, 65536))
            .getMessage();
        assertTrue(small.contains("hold the largest block (262080 bytes)"), small);
        assertThrows(IllegalArgumentException.class, () -> RegionGeometry.forMemory(GIB, Integer.MIN_VALUE));
    }

    @Test
    void constructorChecksEveryInvariant()
    {
        final RegionGeometry g = RegionGeometry.forMemory(64 * MIB);
        assertEquals(g, new RegionGeometry(
            g.regionLength(), g.headerLength(), g.indexOffset(), g.indexLength(), g.bucketCount(), g.slotsPerBucket(),
            g.bucketsPerGroup(), g.dataOffset(), g.dataLength(), g.chunkSize(), g.maxKeyLength(), g.maxValueLength()));
        assertThrows(IllegalArgumentException.class, () -> new RegionGeometry(
            g.regionLength() + 1, g.headerLength(), g.indexOffset(), g.indexLength(), g.bucketCount(),
            g.slotsPerBucket(), g.bucketsPerGroup(), g.dataOffset(), g.dataLength(), g.chunkSize(), g.maxKeyLength(),
            g.maxValueLength()));
        assertThrows(IllegalArgumentException.class, () -> new RegionGeometry(
            g.regionLength(), g.headerLength(), g.indexOffset(), g.indexLength(), g.bucketCount(), 8,
            g.bucketsPerGroup(), g.dataOffset(), g.dataLength(), g.chunkSize(), g.maxKeyLength(), g.maxValueLength()));
        assertThrows(IllegalArgumentException.class, () -> new RegionGeometry(
            g.regionLength(), g.headerLength(), g.indexOffset(), g.indexLength() * 2, g.bucketCount(),
            g.slotsPerBucket(), g.bucketsPerGroup(), g.dataOffset(), g.dataLength(), g.chunkSize(), g.maxKeyLength(),
            g.maxValueLength()));
        assertThrows(IllegalArgumentException.class, () -> new RegionGeometry(
            g.regionLength(), g.headerLength(), g.indexOffset(), g.indexLength(), g.bucketCount(), g.slotsPerBucket(),
            g.bucketsPerGroup(), g.dataOffset() - 4096, g.dataLength() + 4096, g.chunkSize(), g.maxKeyLength(),
            g.maxValueLength()));
        assertThrows(IllegalArgumentException.class, () -> new RegionGeometry(
            g.regionLength(), g.headerLength(), g.indexOffset(), g.indexLength(), g.bucketCount(), g.slotsPerBucket(),
            g.bucketsPerGroup(), g.dataOffset(), g.dataLength(), g.chunkSize(), 2000, g.maxValueLength()));
        final String message = assertThrows(IllegalArgumentException.class, () -> new RegionGeometry(
            g.regionLength(), 512, g.indexOffset(), g.indexLength(), g.bucketCount(), g.slotsPerBucket(),
            g.bucketsPerGroup(), g.dataOffset(), g.dataLength(), g.chunkSize(), g.maxKeyLength(), g.maxValueLength()))
            .getMessage();
        assertEquals("region geometry: header length 512 is not 4096", message);
    }

    @Test
    void smallerLimitsAllowSmallerChunks()
    {
        final RegionGeometry g = RegionGeometry.forMemory(64 * MIB);
        final RegionGeometry small = new RegionGeometry(
            g.dataOffset() + 8 * 4096, 4096, 4096, g.indexLength(), g.bucketCount(), 7, 2, g.dataOffset(), 8 * 4096,
            4096, 64, 1000);
        assertEquals(8, small.chunkCount());
    }
}
