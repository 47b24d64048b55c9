package io.rdmakv.server.cluster.map;

import io.rdmakv.common.hash.KeyHash;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** How creation sizes index segments ({@link MapPlanner#segments}): any size, contiguous, no overlap, at least 2. */
class SegmentPlanTest
{
    private static void assertPlan(final int[] partitionGroups, final long[] arenas)
    {
        final long[] segments = MapPlanner.segments(partitionGroups, arenas);
        assertEquals(partitionGroups.length, segments.length);
        final int[] onGroup = new int[arenas.length];
        for (final int g : partitionGroups)
        {
            onGroup[g]++;
        }
        final long[] next = new long[arenas.length];
        for (int p = 0; p < partitionGroups.length; p++)
        {
            final int g = partitionGroups[p];
            final long size = arenas[g] / onGroup[g];
            // the partitions of a group, in order, one after another from group 0: contiguous, never overlapping
            assertEquals(KeyHash.segment(next[g], size), segments[p], "partition " + p);
            next[g] += size;
        }
        for (int g = 0; g < arenas.length; g++)
        {
            assertTrue(next[g] <= arenas[g], "group " + g + " fits its arena");
            if (onGroup[g] > 0)
            {
                assertTrue(arenas[g] - next[g] < onGroup[g], "under one group per partition left over on " + g +
                    ": " + (arenas[g] - next[g]));
            }
        }
    }

    private static int[] roundRobin(final int partitions, final int groups)
    {
        final int[] partitionGroups = new int[partitions];
        for (int p = 0; p < partitions; p++)
        {
            partitionGroups[p] = p % groups;
        }
        return partitionGroups;
    }

    @Test
    void segmentsOfAnySizeFillEachGroupsArena()
    {
        // 4096 partitions over 3 groups: 1366, 1365 and 1365 partitions; arenas of a 16 MiB and a 64 MiB node
        assertPlan(roundRobin(4096, 3), new long[] {16384, 16384, 16384});
        assertPlan(roundRobin(4096, 3), new long[] {65536, 16384, 1 << 20});
        assertPlan(roundRobin(8, 1), new long[] {1024});
        assertPlan(roundRobin(6, 2), new long[] {1024, 1024});
        assertPlan(roundRobin(4096, 1), new long[] {8192});
        // uneven placements: a group with most partitions, one with none
        assertPlan(new int[] {0, 0, 0, 1, 0, 0, 2}, new long[] {100, 7, 3});
        assertPlan(new int[] {0, 0, 0}, new long[] {100, 50});
        final long[] segments = MapPlanner.segments(roundRobin(4096, 3), new long[] {16384, 16384, 16384});
        assertEquals(KeyHash.segment(0, 11), segments[0]);
        assertEquals(KeyHash.segment(11, 11), segments[3]);
        assertEquals(KeyHash.segment(0, 12), segments[1]);
        assertEquals(KeyHash.segment(1365 * 11, 11), segments[4095]);
    }

    @Test
    void fewerThanTwoGroupsPerPartitionIsRefusedNamingTheOptions()
    {
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> MapPlanner.segments(roundRobin(4096, 1), new long[] {8191}));
        assertTrue(e.getMessage().contains("--partitions") && e.getMessage().contains("--memory") &&
            e.getMessage().contains("4096 partitions") && e.getMessage().contains("8191 bucket groups"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> MapPlanner.segments(roundRobin(4, 2), new long[] {4, 3}));
        // exactly 2 each is enough
        assertPlan(roundRobin(4, 2), new long[] {4, 4});
    }

    @Test
    void aMembersGeometryGivesItsIndexsGroupCount()
    {
        assertEquals(io.rdmakv.common.layout.RegionGeometry.forMemory(16 << 20, 1 << 18).groupCount(),
            MapPlanner.indexGroups(MemberInfo.geometry(16 << 20, 1 << 18)));
        assertEquals(16384, MapPlanner.indexGroups(MemberInfo.geometry(16 << 20, 1 << 18)));
        assertEquals(io.rdmakv.common.layout.RegionGeometry.forMemory(1L << 30, 1 << 20).groupCount(),
            MapPlanner.indexGroups(MemberInfo.geometry(1L << 30, 1 << 20)));
        // the planner does not judge a chunk size (the tests' members say 4096): the index is sized as for any
        assertEquals(16384, MapPlanner.indexGroups(MemberInfo.geometry(16 << 20, 4096)));
        assertEquals(1024, MapPlanner.indexGroups(PlannerRun.GEOMETRY));
    }
}
