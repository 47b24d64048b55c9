package io.rdmakv.common.hash;

import io.rdmakv.common.layout.BucketDescriptor;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * How full an index is at its first table-full insert, with the clients' placement rule (an empty slot of the
 * emptier candidate group, the first on a tie: {@code KeyLocation#emptyCandidate}) and KeyHash's candidate
 * function: one segment over the whole index (a single node, an unreplicated map), against the segments
 * {@code MapPlanner} gives 4096 partitions on one replica group. The figures are in limitations.md.
 */
class SegmentFillTest
{
    private static final int SLOTS = BucketDescriptor.SLOTS_PER_GROUP;

    /** The index load (used slots / all slots) when the first key finds both candidate groups full. */
    static double loadAtFirstFull(final long groups, final int partitions)
    {
        final long size = groups / partitions;
        final byte[] used = new byte[(int)groups];
        long inserted = 0;
        for (int i = 0; ; i++)
        {
            final long h = KeyHash.hash(("key-" + i).getBytes(StandardCharsets.UTF_8));
            final long base = partitions == 1 ? 0 : KeyHash.partition(h, partitions) * size;
            final long count = partitions == 1 ? groups : size;
            final int g1 = (int)KeyHash.group1(h, base, count);
            final int g2 = (int)KeyHash.group2(h, base, count);
            final int g = used[g1] <= used[g2] ? g1 : g2;
            if (used[g] == SLOTS)
            {
                return (double)inserted / (groups * SLOTS);
            }
            used[g]++;
            inserted++;
        }
    }

    @Test
    void smallSegmentsFillUnevenly()
    {
        // 16 MiB nodes (LocalCluster's default): 16,384 groups; 4096 partitions on one group: 4 groups each
        final double whole16 = loadAtFirstFull(16_384, 1);
        final double segmented16 = loadAtFirstFull(16_384, 4096);
        // 256 MiB (demo.sh): 262,144 groups, 64 each; 1 GiB: 1,048,576 groups, 256 each
        final double whole256 = loadAtFirstFull(262_144, 1);
        final double segmented256 = loadAtFirstFull(262_144, 4096);
        final double segmented1g = loadAtFirstFull(1 << 20, 4096);
        System.out.printf("index load at the first table-full: 16 MiB whole %.3f, 4096 segments of 4 groups %.3f; " +
            "256 MiB whole %.3f, segments of 64 %.3f; 1 GiB segments of 256 %.3f%n", whole16, segmented16, whole256,
            segmented256, segmented1g);
        assertTrue(whole16 > 0.8 && whole256 > 0.8, "two-choice over the whole index fills most of it");
        assertTrue(segmented16 < whole16 && segmented256 < whole256, "small segments fill first where keys crowd");
        assertTrue(segmented16 < segmented256 && segmented256 < segmented1g, "bigger segments fill more evenly");
    }
}
