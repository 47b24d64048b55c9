package io.rdmakv.client.internal.lane;

import io.rdmakv.common.hash.KeyHash;
import io.rdmakv.common.layout.BucketDescriptor;
import io.rdmakv.common.layout.RegionGeometry;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A lane aims a key inside its partition's segment, the whole index for none, and never outside the index. */
class KeyLocationSegmentTest
{
    private static final RegionGeometry GEOMETRY = RegionGeometry.forMemory(16 << 20);
    private static final long INDEX = 1L << 40;

    @Test
    void aimsInsideTheSegmentOrTheWholeIndexAndRefusesASegmentPastTheIndex()
    {
        final RemoteIndex remote = new RemoteIndex(INDEX, 1, 1L << 41, 2, GEOMETRY);
        final MemorySegment mem = Arena.ofAuto().allocate(2 * BucketDescriptor.GROUP_LENGTH, 64);
        final KeyLocation key = new KeyLocation(remote, mem, 0);
        final long groups = GEOMETRY.groupCount();
        for (int i = 0; i < 1000; i++)
        {
            final long h = KeyHash.hash(("k" + i).getBytes(StandardCharsets.UTF_8));
            key.aim(h, 2, KeyHash.segment(1000, 7));
            assertEquals(KeyHash.group1(h, 1000, 7), key.group(0));
            assertEquals(KeyHash.group2(h, 1000, 7), key.group(BucketDescriptor.SLOTS_PER_GROUP));
            assertEquals(INDEX + GEOMETRY.groupRegionOffset(key.group(0)), key.group1Address());
            assertTrue(key.group(0) >= 1000 && key.group(0) < 1007);
            key.aim(h, 2, KeyHash.WHOLE_INDEX);
            assertEquals(KeyHash.group1(h, groups), key.group(0));
            assertEquals(KeyHash.group2(h, groups), key.group(BucketDescriptor.SLOTS_PER_GROUP));
        }
        key.aim(1, 2, KeyHash.segment(groups - 2, 2));
        assertThrows(IllegalStateException.class, () -> key.aim(1, 2, KeyHash.segment(groups - 1, 2)));
        assertThrows(IllegalStateException.class, () -> key.aim(1, 2, KeyHash.segment(0, 1)));
    }
}
