package io.rdmakv.common.layout;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BucketDescriptorTest
{
    @Test
    void pinsBucketAndGroupLayout()
    {
        assertEquals(0, BucketDescriptor.BUCKET_HEADER_OFFSET);
        assertEquals(8, BucketDescriptor.BUCKET_HEADER_LENGTH);
        assertEquals(8, BucketDescriptor.FIRST_SLOT_OFFSET);
        assertEquals(8, BucketDescriptor.SLOT_LENGTH);
        assertEquals(7, BucketDescriptor.SLOTS_PER_BUCKET);
        assertEquals(64, BucketDescriptor.BUCKET_LENGTH);
        assertEquals(2, BucketDescriptor.BUCKETS_PER_GROUP);
        assertEquals(128, BucketDescriptor.GROUP_LENGTH);
        assertEquals(14, BucketDescriptor.SLOTS_PER_GROUP);
        assertEquals(2, BucketDescriptor.CANDIDATE_GROUPS);
    }

    @Test
    void slotOffsetsSkipTheBucketHeaders()
    {
        final int[] expected = {8, 16, 24, 32, 40, 48, 56, 72, 80, 88, 96, 104, 112, 120};
        for (int slot = 0; slot < BucketDescriptor.SLOTS_PER_GROUP; slot++)
        {
            assertEquals(expected[slot], BucketDescriptor.slotOffsetInGroup(slot), "slot " + slot);
        }
        assertEquals(8, BucketDescriptor.slotOffsetInBucket(0));
        assertEquals(56, BucketDescriptor.slotOffsetInBucket(6));
        assertEquals(0, BucketDescriptor.bucketOffsetInGroup(0));
        assertEquals(64, BucketDescriptor.bucketOffsetInGroup(1));
    }

    @Test
    void groupOffsetsFollowFromTheHash()
    {
        final long groups = 1024;
        assertEquals(0, BucketDescriptor.groupOffset(0));
        assertEquals(128L * 1023, BucketDescriptor.groupOffset(1023));
        assertEquals(5, BucketDescriptor.groupOf(1024 * 77 + 5, groups));
        assertEquals(5L * 128, BucketDescriptor.groupOffsetForHash(1024 * 77 + 5, groups));
        assertEquals(1023L * 128, BucketDescriptor.groupOffsetForHash(-1L, groups));
        assertEquals(3L * 128 + 72, BucketDescriptor.slotOffset(3, 7));
        assertEquals(512, BucketDescriptor.groupCount(1024));
    }

    @Test
    void checksBucketCounts()
    {
        BucketDescriptor.checkBucketCount(4);
        BucketDescriptor.checkBucketCount(1L << 40);
        assertTrue(assertThrows(IllegalArgumentException.class, () -> BucketDescriptor.checkBucketCount(2))
            .getMessage().contains("bucket count 2"));
        assertThrows(IllegalArgumentException.class, () -> BucketDescriptor.checkBucketCount(96));
        assertThrows(IllegalArgumentException.class, () -> BucketDescriptor.checkBucketCount(0));
    }

    @Test
    void groupFlyweightFindsSlots()
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment segment = arena.allocate(BucketDescriptor.GROUP_LENGTH * 2, 64);
            final BucketGroup group = new BucketGroup().wrap(segment, BucketDescriptor.GROUP_LENGTH);
            assertEquals(0, group.indexOfEmpty());
            assertEquals(0, group.usedSlots());
            assertEquals(BucketGroup.NONE, group.indexOfFingerprint(5, 0));

            group.slot(0, SlotWord.encode(9, 1, 1)).slot(3, SlotWord.encode(5, 1, 2)).slot(12, SlotWord.encode(5, 1, 3));
            assertEquals(1, group.indexOfEmpty());
            assertEquals(3, group.usedSlots());
            assertEquals(3, group.indexOfFingerprint(5, 0));
            assertEquals(12, group.indexOfFingerprint(5, 4));
            assertEquals(BucketGroup.NONE, group.indexOfFingerprint(5, 13));
            assertEquals(SlotWord.encode(5, 1, 3), segment.get(
                io.rdmakv.common.LittleEndian.U64, BucketDescriptor.GROUP_LENGTH + 112L));

            group.bucketHeader(1, 0x77);
            assertEquals(0x77, group.bucketHeader(1));
            assertEquals(0, group.bucketHeader(0));
            assertEquals(0x77, segment.get(io.rdmakv.common.LittleEndian.U64, BucketDescriptor.GROUP_LENGTH + 64L));

            for (int i = 0; i < BucketDescriptor.SLOTS_PER_GROUP; i++)
            {
                group.slot(i, SlotWord.encode(1, 1, i + 1));
            }
            assertEquals(BucketGroup.NONE, group.indexOfEmpty());
            assertEquals(14, group.usedSlots());
            assertEquals(0x77, group.bucketHeader(1), "slots never overwrite bucket headers");

            assertThrows(IndexOutOfBoundsException.class, () -> group.wrap(segment, 129));
        }
    }
}
