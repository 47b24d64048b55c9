package io.rdmakv.common.layout;

import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.ClusterNode;
import io.rdmakv.common.cluster.MapMoves;
import io.rdmakv.common.cluster.MoveBatch;
import io.rdmakv.common.cluster.MovePhase;
import io.rdmakv.common.cluster.ReplicaGroup;
import io.rdmakv.common.cluster.RetiredSegment;
import io.rdmakv.common.hash.KeyHash;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A node's view of the segment table: its group's partitions in their segments, the rest nowhere. */
class IndexSegmentsTest
{
    private static final List<ClusterNode> NODES = List.of(new ClusterNode(1, "h1", 1), new ClusterNode(2, "h2", 1),
        new ClusterNode(3, "h3", 1), new ClusterNode(4, "h4", 1), new ClusterNode(5, "h5", 1));
    private static final List<ReplicaGroup> GROUPS = List.of(new ReplicaGroup(0, new int[] {1, 2}, new int[0], false),
        new ReplicaGroup(1, new int[] {3}, new int[] {4}, false));

    /** 4 partitions, even ones on group 0, odd ones on group 1; segments of 10 and 30 groups. */
    private static ClusterMap map(final long[] segments)
    {
        return new ClusterMap(3, 3, 4, NODES, 2, GROUPS, new int[] {0, 1, 0, 1}, segments);
    }

    private static final long[] TABLE = {KeyHash.segment(0, 10), KeyHash.segment(0, 30), KeyHash.segment(10, 10),
        KeyHash.segment(30, 30)};

    private static long keyOf(final int partition, final int n)
    {
        for (int i = n; ; i++)
        {
            final long h = KeyHash.hash(("k" + i).getBytes(StandardCharsets.UTF_8));
            if (KeyHash.partition(h, 4) == partition)
            {
                return h;
            }
        }
    }

    @Test
    void aNodeUsesItsGroupsSegmentsAndNoneOfTheOthers()
    {
        final IndexSegments segments = new IndexSegments(64);
        segments.use(map(TABLE), 2);
        for (int i = 0; i < 200; i++)
        {
            final long own = keyOf(2, i);
            assertEquals(TABLE[2], segments.segmentOf(own));
            assertEquals(KeyHash.group1(own, 10, 10), segments.group1(own));
            assertEquals(KeyHash.group2(own, 10, 10), segments.group2(own));
            assertTrue(segments.isCandidateGroup(own, segments.group1(own)));
            for (long g = 0; g < 64; g++)
            {
                assertEquals(g == segments.group1(own) || g == segments.group2(own), segments.isCandidateGroup(own, g));
            }
            final long other = keyOf(1, i);
            assertEquals(IndexSegments.NONE, segments.segmentOf(other));
            assertEquals(-1, segments.group1(other));
            assertEquals(-1, segments.group2(other));
            for (long g = 0; g < 64; g++)
            {
                assertFalse(segments.isCandidateGroup(other, g), "another group's partition has no group here");
            }
        }
        // a copying node takes its group's segments; a spare none
        segments.use(map(TABLE), 4);
        assertEquals(TABLE[3], segments.segmentOf(keyOf(3, 0)));
        segments.use(map(TABLE), 5);
        assertEquals(IndexSegments.NONE, segments.segmentOf(keyOf(0, 0)));
        // a map without a table: the whole index again
        segments.use(map(null), 2);
        assertEquals(KeyHash.segment(0, 64), segments.segmentOf(keyOf(1, 0)));
        assertEquals(KeyHash.group1(keyOf(1, 0), 64), segments.group1(keyOf(1, 0)));
    }

    @Test
    void misfitNamesASegmentOfTheNodesGroupThatTheIndexCannotHold()
    {
        assertNull(IndexSegments.misfit(map(TABLE), 1, 20), "group 0's segments end at 20");
        assertTrue(IndexSegments.misfit(map(TABLE), 1, 19).contains("partition 2's index segment (base 10, 10 groups)"));
        assertNull(IndexSegments.misfit(map(TABLE), 3, 60));
        assertTrue(IndexSegments.misfit(map(TABLE), 4, 59).contains("partition 3"));
        assertNull(IndexSegments.misfit(map(TABLE), 5, 2), "a spare holds nothing");
        assertNull(IndexSegments.misfit(map(null), 1, 2), "no table: the whole index");
        final long[] one = TABLE.clone();
        one[0] = KeyHash.segment(0, 1);
        assertTrue(IndexSegments.misfit(map(one), 2, 64).contains("1 groups"));
    }

    @Test
    void incomingAndRetiredSegmentsOfTheNodesGroupMustFitItsIndexToo()
    {
        // partition 1 moving from group 1 to group 0 into (20, 10); group 0 retired (40, 10) of partition 0
        final MapMoves moves = new MapMoves(
            List.of(new MoveBatch(4000, 1, 0, MovePhase.COPY, 4, new int[] {1}, new long[] {KeyHash.segment(20, 10)})),
            List.of(new RetiredSegment(0, 0, KeyHash.segment(40, 10), 3, 2000)));
        final ClusterMap moving = map(TABLE).withMoves(moves);
        assertNull(IndexSegments.misfit(moving, 1, 50), "an index of 50 groups holds owned, incoming and retired");
        assertTrue(IndexSegments.misfit(moving, 1, 49).contains("partition 0's retired segment (base 40, 10 groups)"),
            IndexSegments.misfit(moving, 1, 49));
        assertTrue(IndexSegments.misfit(moving, 2, 29).contains("move batch 4000's target segment of partition 1"),
            IndexSegments.misfit(moving, 2, 29));
        assertNull(IndexSegments.misfit(moving, 3, 60), "the source's own segments only: the target's are not its");
        // incoming and retired segments are not the node's to serve: keys of partition 1 have no segment on group 0
        final IndexSegments segments = new IndexSegments(64);
        segments.use(moving, 1);
        assertEquals(IndexSegments.NONE, segments.segmentOf(keyOf(1, 0)));
    }
}
