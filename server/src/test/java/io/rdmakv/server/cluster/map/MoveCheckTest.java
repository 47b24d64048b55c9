package io.rdmakv.server.cluster.map;

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
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link MapCheck}'s move rules ({@link MoveCheck}, docs/growth.md §12) on forged maps: one case per rule that a
 * coordinator never breaks, beside the walk a coordinator writes (COPY, FREEZE, SWITCH, OPEN, reclaim; aborts).
 */
class MoveCheckTest
{
    private static final ClusterSettings SETTINGS = new ClusterSettings(2, 8);
    private static final Map<Integer, Long> INCARNATIONS = Map.of(0, 1000L, 1, 1001L, 2, 1002L, 3, 1003L);
    private static final List<ReplicaGroup> GROUPS = List.of(new ReplicaGroup(0, new int[] {0, 1}, new int[0], false),
        new ReplicaGroup(1, new int[] {2, 3}, new int[0], false));
    /** Where partition 0 goes on group 1: past group 1's own segments (0..32). */
    private static final long X_B = KeyHash.segment(40, 8);
    private static final long X_A = KeyHash.segment(0, 8);

    /** Groups 0 [0, 1] and 1 [2, 3]; 8 partitions, even ones on group 0, odd ones on group 1, segments of 8 from 0. */
    private static ClusterMap base()
    {
        final List<ClusterNode> nodes = new ArrayList<>();
        for (int id = 0; id < 4; id++)
        {
            nodes.add(new ClusterNode(id, "10.0.0." + (id + 1), 7400));
        }
        final int[] groups = new int[8];
        final long[] segments = new long[8];
        for (int p = 0; p < 8; p++)
        {
            groups[p] = p % 2;
            segments[p] = KeyHash.segment(8L * (p / 2), 8);
        }
        return new ClusterMap(5, 5, 8, nodes, 2, GROUPS, groups, segments);
    }

    private static MoveBatch batch(final MovePhase phase, final long epoch)
    {
        return new MoveBatch(6000, 0, 1, phase, epoch, new int[] {0}, new long[] {X_B});
    }

    /** {@code map} one epoch up (fence kept), partition 0 on {@code group} at {@code segment}, with {@code moves}. */
    private static ClusterMap next(final ClusterMap map, final int group, final long segment, final MapMoves moves)
    {
        final int[] groups = map.partitionGroups();
        groups[0] = group;
        final long[] segments = map.segments();
        segments[0] = segment;
        return new ClusterMap(map.epoch() + 1, map.fenceEpoch(), 8, map.nodes(), 2, map.groups(), groups, segments,
            moves);
    }

    private static MapMoves moves(final MoveBatch b, final RetiredSegment... retired)
    {
        return new MapMoves(b == null ? List.of() : List.of(b), List.of(retired));
    }

    private static MapCheck.Refusal check(final ClusterMap before, final ClusterMap after)
    {
        final StoredMap held = new StoredMap(before, INCARNATIONS);
        final StoredMap next = new StoredMap(after, INCARNATIONS).after(held);
        // the same answer with the previous recorded, and for a node holding the map before without it
        final MapCheck.Refusal refusal = MapCheck.check(SETTINGS, next, (int) (after.epoch() - 1), held);
        final MapCheck.Refusal bare = MapCheck.check(SETTINGS, next.withoutPrevious(), (int) (after.epoch() - 1), held);
        assertEquals(refusal == null ? null : refusal.reason(), bare == null ? null : bare.reason());
        return refusal;
    }

    private static void refused(final MapRefusal reason, final MapCheck.Refusal refusal)
    {
        assertNotNull(refusal, "refused");
        assertEquals(reason, refusal.reason(), refusal.toString());
    }

    /** The coordinator's walk, each step accepted, fencing nobody; the maps of it. */
    private static List<ClusterMap> walk()
    {
        final ClusterMap e5 = base();
        final ClusterMap copy = next(e5, 0, X_A, moves(batch(MovePhase.COPY, 6)));
        final ClusterMap freeze = next(copy, 0, X_A, moves(batch(MovePhase.FREEZE, 7)));
        final RetiredSegment retired = new RetiredSegment(0, 0, X_A, 8, 6000);
        final ClusterMap sw = next(freeze, 1, X_B, moves(batch(MovePhase.SWITCH, 8), retired));
        final ClusterMap open = next(sw, 1, X_B, moves(null, retired));
        final ClusterMap reclaimed = next(open, 1, X_B, MapMoves.NONE);
        return List.of(e5, copy, freeze, sw, open, reclaimed);
    }

    @Test
    void theCoordinatorsWalkAndAbortsAreAcceptedAndFenceNobody()
    {
        final List<ClusterMap> maps = walk();
        for (int i = 1; i < maps.size(); i++)
        {
            assertNull(check(maps.get(i - 1), maps.get(i)), "step " + i + ": " + maps.get(i));
            assertEquals(5, maps.get(i).fenceEpoch());
        }
        assertEquals(2, maps.get(3).nodeFor(0).id(), "at SWITCH partition 0 is served by group 1's primary");
        // aborts from COPY and FREEZE: the record vanishes, the partition stays on group 0 at its segment; an abort
        // in FREEZE fences (the source primary's freeze may still CAS its backups), one in COPY need not
        assertNull(check(maps.get(1), next(maps.get(1), 0, X_A, MapMoves.NONE)));
        final ClusterMap abortInFreeze = next(maps.get(2), 0, X_A, MapMoves.NONE);
        assertNull(check(maps.get(2), abortInFreeze.withFenceEpoch(abortInFreeze.epoch())));
        refused(MapRefusal.FENCE, check(maps.get(2), abortInFreeze));
        // a batch may stay in its phase (another change, another batch)
        assertNull(check(maps.get(1), next(maps.get(1), 0, X_A, moves(batch(MovePhase.COPY, 6)))));
    }

    @Test
    void aPartitionChangesGroupOnlyAtItsSwitchOntoTheMovesSegment()
    {
        final List<ClusterMap> maps = walk();
        // no move at all
        refused(MapRefusal.PLACEMENT, check(maps.get(0), next(maps.get(0), 1, X_B, MapMoves.NONE)));
        // at COPY -> FREEZE
        refused(MapRefusal.PLACEMENT, check(maps.get(1), next(maps.get(1), 1, KeyHash.segment(56, 8),
            moves(batch(MovePhase.FREEZE, 7)))));
        // at SWITCH, onto another segment than the move's
        final RetiredSegment retired = new RetiredSegment(0, 0, X_A, 8, 6000);
        refused(MapRefusal.PLACEMENT, check(maps.get(2), next(maps.get(2), 1, KeyHash.segment(48, 8),
            moves(batch(MovePhase.SWITCH, 8), retired))));
        // a segment that changes on its own group, without a move
        refused(MapRefusal.SEGMENTS, check(maps.get(0), next(maps.get(0), 0, KeyHash.segment(0, 4), MapMoves.NONE)));
    }

    @Test
    void aMoveAppearsOnlyInCopyForAPartitionWithNone()
    {
        final ClusterMap e5 = base();
        refused(MapRefusal.MOVE_START, check(e5, next(e5, 0, X_A, moves(batch(MovePhase.FREEZE, 6)))));
        refused(MapRefusal.MOVE_START, check(e5, next(e5, 0, X_A, moves(batch(MovePhase.COPY, 5)))));
        // from a group the partition is not on
        refused(MapRefusal.MOVE_START, check(e5, next(e5, 0, X_A, moves(
            new MoveBatch(6000, 1, 0, MovePhase.COPY, 6, new int[] {0}, new long[] {X_B})))));
        // a second batch for a partition already moving (the old one gone in the same map, a new id)
        final ClusterMap copy = walk().get(1);
        refused(MapRefusal.MOVE_START, check(copy, next(copy, 0, X_A, moves(
            new MoveBatch(7000, 0, 1, MovePhase.COPY, 7, new int[] {0}, new long[] {X_B})))));
    }

    @Test
    void aTargetSegmentOverlapsNothingOfItsGroup()
    {
        final ClusterMap e5 = base();
        // group 1's partition 1 holds (0, 8)
        final MapCheck.Refusal owned = check(e5, next(e5, 0, X_A, moves(
            new MoveBatch(6000, 0, 1, MovePhase.COPY, 6, new int[] {0}, new long[] {KeyHash.segment(4, 8)}))));
        refused(MapRefusal.MOVE_SEGMENT, owned);
        assertTrue(owned.detail().contains("overlap on group 1"), owned.detail());
        // two incoming ones
        refused(MapRefusal.MOVE_SEGMENT, check(e5, next(e5, 0, X_A, moves(new MoveBatch(6000, 0, 1, MovePhase.COPY, 6,
            new int[] {0, 2}, new long[] {X_B, KeyHash.segment(44, 8)})))));
        // a retired one of the target
        final ClusterMap withRetired = next(e5, 0, X_A, moves(null, new RetiredSegment(1, 1, KeyHash.segment(40, 8),
            3, 3000)));
        final ClusterMap retiredBase = new ClusterMap(5, 5, 8, withRetired.nodes(), 2, GROUPS, e5.partitionGroups(),
            e5.segments(), withRetired.moves());
        refused(MapRefusal.MOVE_SEGMENT, check(retiredBase, next(retiredBase, 0, X_A, new MapMoves(
            List.of(batch(MovePhase.COPY, 6)), retiredBase.moves().retired()))));
        // a segment of one group: a key needs two candidate groups
        refused(MapRefusal.MOVE_SEGMENT, check(e5, next(e5, 0, X_A, moves(
            new MoveBatch(6000, 0, 1, MovePhase.COPY, 6, new int[] {0}, new long[] {KeyHash.segment(40, 1)})))));
        // the rule is the map's own: a reader without the map before refuses it too
        final StoredMap alone = new StoredMap(next(e5, 0, X_A, moves(new MoveBatch(6000, 0, 1, MovePhase.COPY, 6,
            new int[] {0}, new long[] {KeyHash.segment(4, 8)}))), INCARNATIONS);
        refused(MapRefusal.MOVE_SEGMENT, MapCheck.check(SETTINGS, alone, 5, null));
    }

    @Test
    void aMoveAdvancesOnePhaseAtATimeAndKeepsWhatItMoves()
    {
        final List<ClusterMap> maps = walk();
        final ClusterMap copy = maps.get(1);
        final RetiredSegment retired = new RetiredSegment(0, 0, X_A, 7, 6000);
        // COPY -> SWITCH, skipping FREEZE
        refused(MapRefusal.MOVE_PHASE, check(copy, next(copy, 1, X_B, moves(batch(MovePhase.SWITCH, 7), retired))));
        // back from FREEZE to COPY
        refused(MapRefusal.MOVE_PHASE, check(maps.get(2), next(maps.get(2), 0, X_A, moves(batch(MovePhase.COPY, 8)))));
        // a phase entered without its epoch
        refused(MapRefusal.MOVE_PHASE, check(copy, next(copy, 0, X_A, moves(batch(MovePhase.FREEZE, 6)))));
        // the target segment changed on the way
        refused(MapRefusal.MOVE_PHASE, check(copy, next(copy, 0, X_A, moves(
            new MoveBatch(6000, 0, 1, MovePhase.FREEZE, 7, new int[] {0}, new long[] {KeyHash.segment(48, 8)})))));
    }

    @Test
    void aMoveVanishesOnlyByAnAbortBeforeSwitchOrAtOpen()
    {
        final List<ClusterMap> maps = walk();
        // from SWITCH, the partition given back to the source: an abort after SWITCH
        final MapCheck.Refusal back = check(maps.get(3), next(maps.get(3), 0, X_A, MapMoves.NONE));
        refused(MapRefusal.MOVE_END, back);
        assertTrue(back.detail().contains("OPEN"), back.detail());
        // from FREEZE, the partition left on the target: a switch without SWITCH
        refused(MapRefusal.MOVE_END, check(maps.get(2), next(maps.get(2), 1, X_B, MapMoves.NONE)));
    }

    @Test
    void aGroupRetiresASegmentOnlyAtSwitchAndKeepsItUntilOpen()
    {
        final List<ClusterMap> maps = walk();
        final RetiredSegment retired = new RetiredSegment(0, 0, X_A, 8, 6000);
        // SWITCH without retiring the source segment
        refused(MapRefusal.RETIRED, check(maps.get(2), next(maps.get(2), 1, X_B, moves(batch(MovePhase.SWITCH, 8)))));
        // retiring at another epoch than the switch
        refused(MapRefusal.RETIRED, check(maps.get(2), next(maps.get(2), 1, X_B, moves(batch(MovePhase.SWITCH, 8),
            new RetiredSegment(0, 0, X_A, 7, 6000)))));
        // a retired segment out of nowhere
        refused(MapRefusal.RETIRED, check(maps.get(0), next(maps.get(0), 0, X_A, moves(null,
            new RetiredSegment(0, 2, KeyHash.segment(40, 8), 6, 1)))));
        // dropped while the batch is in SWITCH: the group has not applied OPEN, nobody reclaimed
        refused(MapRefusal.RETIRED, check(maps.get(3), next(maps.get(3), 1, X_B, moves(batch(MovePhase.SWITCH, 8)))));
        // kept at OPEN and after is fine (walk), and changing it is not
        refused(MapRefusal.RETIRED, check(maps.get(4), next(maps.get(4), 1, X_B, moves(null,
            new RetiredSegment(0, 0, KeyHash.segment(0, 6), 8, 6000)))));
        assertNull(check(maps.get(4), next(maps.get(4), 1, X_B, moves(null, retired))));
    }

    @Test
    void aMapThatChangesAPrimaryWithAMoveStillFences()
    {
        final List<ClusterMap> maps = walk();
        final ClusterMap freeze = maps.get(2);
        final RetiredSegment retired = new RetiredSegment(0, 0, X_A, 8, 6000);
        final ClusterMap sw = next(freeze, 1, X_B, moves(batch(MovePhase.SWITCH, 8), retired));
        final List<ReplicaGroup> swapped = List.of(GROUPS.get(0), new ReplicaGroup(1, new int[] {3, 2}, new int[0], false));
        final ClusterMap failover = new ClusterMap(sw.epoch(), freeze.fenceEpoch(), 8, sw.nodes(), 2, swapped,
            sw.partitionGroups(), sw.segments(), sw.moves());
        refused(MapRefusal.FENCE, check(freeze, failover));
        assertNull(check(freeze, failover.withFenceEpoch(failover.epoch())));
    }
}
