package io.rdmakv.server.cluster;

import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.ClusterNode;
import io.rdmakv.common.cluster.MapMoves;
import io.rdmakv.common.cluster.MoveBatch;
import io.rdmakv.common.cluster.MovePhase;
import io.rdmakv.common.cluster.ReplicaGroup;
import io.rdmakv.common.cluster.RetiredSegment;
import io.rdmakv.common.hash.KeyHash;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

/**
 * Which segments a replica marks MOVED and which it opens when it applies a map (growth.md §7 and §9): partition 1
 * moves from group 0 (nodes 1, 2; node 5 copying) to group 1 (nodes 3, 4), from segment (8, 8) there to (16, 8).
 */
class MoveMarksTest
{
    private static final long X_A = KeyHash.segment(8, 8);
    private static final long X_B = KeyHash.segment(16, 8);
    private static final long BATCH = 2000;

    private static ClusterMap map(final long epoch, final int groupOfPartition1, final MapMoves moves)
    {
        final List<ClusterNode> nodes = new ArrayList<>();
        for (int id = 1; id <= 5; id++)
        {
            nodes.add(new ClusterNode(id, "127.0.0.1", 7000 + id));
        }
        final long[] segments = {KeyHash.segment(0, 8), groupOfPartition1 == 0 ? X_A : X_B, KeyHash.segment(0, 8),
            KeyHash.segment(8, 8)};
        return new ClusterMap(epoch, 1, 4, nodes, 2, List.of(new ReplicaGroup(0, new int[] {1, 2}, new int[] {5}, false),
            new ReplicaGroup(1, new int[] {3, 4}, null, false)), new int[] {0, groupOfPartition1, 1, 1}, segments)
            .withMoves(moves);
    }

    private static MapMoves batch(final MovePhase phase, final RetiredSegment... retired)
    {
        return new MapMoves(List.of(new MoveBatch(BATCH, 0, 1, phase, 2, new int[] {1}, new long[] {X_B})),
            List.of(retired));
    }

    private static final ClusterMap COPY = map(2, 0, batch(MovePhase.COPY));
    private static final ClusterMap FREEZE = map(3, 0, batch(MovePhase.FREEZE));
    private static final RetiredSegment RETIRED = new RetiredSegment(0, 1, X_A, 4, BATCH);
    private static final ClusterMap SWITCH = map(4, 1, batch(MovePhase.SWITCH, RETIRED));
    private static final ClusterMap OPEN = map(5, 1, new MapMoves(List.of(), List.of(RETIRED)));
    private static final ClusterMap ABORTED = map(4, 0, MapMoves.NONE);

    @Test
    void atSwitchTheSourceReplicasMarkTheRetiredSegmentAndNoOneOpensAnything()
    {
        for (final int sourceReplica : new int[] {1, 2})
        {
            final MoveMarks marks = MoveMarks.between(FREEZE, SWITCH, sourceReplica);
            assertArrayEquals(new long[] {X_A}, marks.moved());
            assertArrayEquals(new long[] {4}, marks.movedEpochs(), "with the switch epoch");
            assertArrayEquals(new long[0], marks.opened());
        }
        assertSame(MoveMarks.NONE, MoveMarks.between(FREEZE, SWITCH, 3), "the target waits for OPEN");
        assertSame(MoveMarks.NONE, MoveMarks.between(FREEZE, SWITCH, 5), "a copying node copies its primary's marks");
    }

    @Test
    void atOpenTheTargetReplicasOpenTheirSegmentAndTheSourceKeepsItsMarks()
    {
        for (final int targetReplica : new int[] {3, 4})
        {
            final MoveMarks marks = MoveMarks.between(SWITCH, OPEN, targetReplica);
            assertArrayEquals(new long[] {X_B}, marks.opened());
            assertArrayEquals(new long[0], marks.moved());
        }
        assertArrayEquals(new long[] {X_A}, MoveMarks.between(SWITCH, OPEN, 1).moved(), "marked again: idempotent");
        assertArrayEquals(new long[0], MoveMarks.between(SWITCH, OPEN, 1).opened());
        assertArrayEquals(new long[] {X_B}, MoveMarks.between(FREEZE, OPEN, 3).opened(),
            "a target replica that missed SWITCH opens as well");
    }

    @Test
    void aNodeServingTheSourceLaterMarksItsRetiredSegmentsBeforeItServes()
    {
        assertArrayEquals(new long[] {X_A}, MoveMarks.between(null, OPEN, 2).moved(), "a promoted or restarted node");
    }

    @Test
    void anAbortBeforeSwitchOpensTheSourceSegmentOnItsReplicasOnly()
    {
        for (final ClusterMap before : new ClusterMap[] {COPY, FREEZE})
        {
            assertArrayEquals(new long[] {X_A}, MoveMarks.between(before, ABORTED, 1).opened());
            assertArrayEquals(new long[] {X_A}, MoveMarks.between(before, ABORTED, 2).opened());
            assertSame(MoveMarks.NONE, MoveMarks.between(before, ABORTED, 3), "the target's segment is its copier's");
        }
        assertSame(MoveMarks.NONE, MoveMarks.between(COPY, FREEZE, 1), "a phase change opens nothing");
    }
}
