package io.rdmakv.server.cluster.map;

import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.ClusterNode;
import io.rdmakv.common.cluster.ReplicaGroup;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The rules a map read from ZooKeeper must keep ({@link MapCheck}), on maps a forger could write; that every map
 * the planner writes keeps them is checked by every {@link PlannerRun} step.
 */
class MapCheckTest
{
    private static final ClusterSettings SETTINGS = new ClusterSettings(2, 8);

    /**
     * Group 0 is [0, 1], node 2 a spare; epoch 2 (created, then the spare listed, which fences nobody: fence
     * epoch 1), held by every node.
     */
    private StoredMap held;

    @BeforeEach
    void formed()
    {
        final PlannerRun run = new PlannerRun(2, 8).join(0, 1);
        run.settle();
        run.join(2);
        run.settle();
        held = run.held;
        assertEquals(2, held.map().epoch());
        assertEquals(List.of(0, 1, 2), held.map().nodes().stream().map(ClusterNode::id).toList());
        assertEquals(1, held.map().fenceEpoch(), "a spare joining fences nobody");
    }

    /** {@code held}'s map with {@code groups} at {@code epoch}. */
    private StoredMap forged(final long epoch, final List<ReplicaGroup> groups, final Map<Integer, Long> incarnations)
    {
        final ClusterMap m = held.map();
        return new StoredMap(new ClusterMap(epoch, m.partitionCount(), m.nodes(), m.replicationFactor(), groups,
            m.partitionGroups()).withSegments(m.segments()), incarnations).after(held);
    }

    private static MapCheck.Refusal check(final StoredMap next, final StoredMap held)
    {
        return MapCheck.check(SETTINGS, next, (int) (next.map().epoch() - 1), held);
    }

    private static void refused(final MapRefusal reason, final MapCheck.Refusal refusal)
    {
        assertNotNull(refusal, "refused");
        assertEquals(reason, refusal.reason(), refusal.toString());
    }

    @Test
    void anEpochAtTheEndOfTheRangeIsRefusedAtTheZnodesVersion()
    {
        final StoredMap top = held.withEpoch(Long.MAX_VALUE).after(null);
        refused(MapRefusal.EPOCH, MapCheck.check(SETTINGS, top, 2, held));
        refused(MapRefusal.EPOCH, MapCheck.check(SETTINGS, top, 2, null));
        assertTrue(MapCheck.check(SETTINGS, top, 2, held).detail().contains("expected 3"));
    }

    @Test
    void anEpochThatJumpsAWriteOrGoesBackIsRefused()
    {
        refused(MapRefusal.EPOCH, MapCheck.check(SETTINGS, held.withEpoch(4).after(held), 2, held));
        refused(MapRefusal.EPOCH, MapCheck.check(SETTINGS, held.withEpoch(2), 1, held));
        // a previous that is not one epoch below
        refused(MapRefusal.EPOCH, check(held.withEpoch(3).after(held.withEpoch(1)), held));
    }

    @Test
    void aMapOfOtherPartitionsFactorOrGroupsIsRefused()
    {
        final ClusterMap m = held.map();
        final StoredMap wider = new StoredMap(new ClusterMap(3, 16, m.nodes(), 2, m.groups(), new int[16]),
            held.incarnations()).after(held);
        refused(MapRefusal.GEOMETRY, check(wider, held));
        final StoredMap factor = new StoredMap(new ClusterMap(3, 8, m.nodes(), 3, m.groups(), m.partitionGroups()),
            held.incarnations()).after(held);
        refused(MapRefusal.GEOMETRY, check(factor, held));
        final Map<Integer, Long> all = new HashMap<>(held.incarnations());
        all.put(2, 1002L);
        refused(MapRefusal.GEOMETRY, check(forged(3, List.of(new ReplicaGroup(0, new int[] {0, 1}, new int[] {2},
            false)), all), held));
        refused(MapRefusal.GEOMETRY, check(forged(3, List.of(new ReplicaGroup(0, new int[] {0}, new int[] {2},
            false)), held.incarnations()), held));
        final int[] toGroupOne = new int[8];
        java.util.Arrays.fill(toGroupOne, 1);
        final StoredMap renamed = new StoredMap(new ClusterMap(3, 8, m.nodes(), 2, List.of(new ReplicaGroup(1,
            new int[] {0, 1}, new int[0], false)), toGroupOne), held.incarnations()).after(held);
        refused(MapRefusal.GEOMETRY, check(renamed, held));
    }

    @Test
    void aGroupEmptiedOfItsReplicasInFavourOfAnEmptyNodeIsRefused()
    {
        // the spare, never copied, as the group's only member
        refused(MapRefusal.PROMOTION, check(forged(3, List.of(new ReplicaGroup(0, new int[] {2}, new int[0], false)),
            Map.of(2, 1002L)), held));
        // node 1 restarted empty (another incarnation) named the only member
        refused(MapRefusal.PROMOTION, check(forged(3, List.of(new ReplicaGroup(0, new int[] {1}, new int[0], false)),
            Map.of(1, 77L)), held));
        // the same map without a previous, read by a node that holds the map before it
        final StoredMap bare = forged(3, List.of(new ReplicaGroup(0, new int[] {2}, new int[0], false)),
            Map.of(2, 1002L)).withoutPrevious();
        refused(MapRefusal.PROMOTION, check(bare, held));
        // a previous that makes the spare a copying node, read by a node that holds the real one
        final StoredMap lie = forged(2, List.of(new ReplicaGroup(0, new int[] {0}, new int[] {2}, false)),
            Map.of(0, 1000L, 2, 1002L)).withoutPrevious();
        final StoredMap chained = forged(3, List.of(new ReplicaGroup(0, new int[] {2}, new int[0], false)),
            Map.of(2, 1002L)).withoutPrevious().after(lie);
        refused(MapRefusal.PROMOTION, check(chained, held));
    }

    @Test
    void aLostGroupStaysLost()
    {
        final StoredMap lost = forged(3, List.of(new ReplicaGroup(0, new int[0], new int[0], false)), Map.of());
        assertNull(check(lost, held), "losing every member is a change the planner makes");
        final StoredMap revived = new StoredMap(new ClusterMap(4, 8, held.map().nodes(), 2,
            List.of(new ReplicaGroup(0, new int[] {2}, new int[0], false)), held.map().partitionGroups()),
            Map.of(2, 1002L)).after(lost);
        refused(MapRefusal.PROMOTION, check(revived, lost));
        assertTrue(check(revived, lost).detail().contains("which was lost"), check(revived, lost).detail());
    }

    @Test
    void aMapThatChangesAGroupButKeepsAnOlderFenceEpochIsRefused()
    {
        // the backup lost, the spare copying in its place
        final StoredMap copying = forged(3, List.of(new ReplicaGroup(0, new int[] {0}, new int[] {2}, false)),
            Map.of(0, held.incarnations().get(0), 2, 1002L));
        assertNull(check(copying, held), "fencing at its own epoch: accepted");
        final StoredMap unfenced = new StoredMap(copying.map().withFenceEpoch(1), copying.incarnations()).after(held);
        refused(MapRefusal.FENCE, check(unfenced, held));
        refused(MapRefusal.FENCE, check(new StoredMap(copying.map().withFenceEpoch(2), copying.incarnations())
            .after(held), held));
        // a reader that missed maps and is given no previous: a group change must fence above what it holds
        refused(MapRefusal.FENCE, MapCheck.check(SETTINGS, unfenced.withoutPrevious(), 2, held));
        // the same placement (the spare leaves again) may keep the fence epoch, or fence anyway
        final StoredMap sparesOnly = new StoredMap(new ClusterMap(3, 1, 8, held.map().nodes().subList(0, 2), 2,
            held.map().groups(), held.map().partitionGroups(), held.map().segments()), held.incarnations()).after(held);
        assertNull(check(sparesOnly, held));
        assertNull(check(new StoredMap(sparesOnly.map().withFenceEpoch(3), held.incarnations()).after(held), held));
        refused(MapRefusal.FENCE, check(new StoredMap(sparesOnly.map().withFenceEpoch(0), held.incarnations())
            .after(held), held));
    }

    @Test
    void theCoordinatorsRestoreOverARefusedMapIsAccepted()
    {
        // a refused map took version 2 (epoch 3): the restore is held's groups at epoch 4, replacing themselves
        final StoredMap base = held.withoutPrevious();
        final StoredMap restored = base.withEpoch(4).after(base.withEpoch(3));
        assertNull(MapCheck.check(SETTINGS, restored, 3, held));
        assertNull(MapCheck.check(SETTINGS, restored, 3, null));
        assertEquals(restored, StoredMap.fromJson(restored.toJson()), "JSON round trip with a previous");
    }

    @Test
    void aReaderThatMissedMapsChecksTheStepTheMapRecords()
    {
        final StoredMap older = new PlannerRun(2, 8).join(0, 1).settleAndHold();
        assertEquals(1, older.map().epoch());
        assertNull(check(held.withEpoch(3).after(held), older), "a gap, a recorded step that keeps the rules");
        refused(MapRefusal.PROMOTION, check(forged(3, List.of(new ReplicaGroup(0, new int[] {2}, new int[0],
            false)), Map.of(2, 1002L)), older));
    }

    /** {@code held}'s map one epoch up, keeping its fence epoch, with the segment table {@code segments}. */
    private StoredMap withSegments(final long[] segments)
    {
        final ClusterMap m = held.map();
        return new StoredMap(new ClusterMap(3, m.fenceEpoch(), m.partitionCount(), m.nodes(), m.replicationFactor(),
            m.groups(), m.partitionGroups(), segments), held.incarnations()).after(held);
    }

    @Test
    void thePlannersSegmentsAreAcceptedAndKept()
    {
        assertTrue(held.map().hasSegments(), "created with a segment table");
        assertNull(check(withSegments(held.map().segments()), held), "the same table one epoch up");
    }

    @Test
    void aSegmentOfFewerThanTwoGroupsIsRefused()
    {
        for (final long count : new long[] {0, 1})
        {
            final long[] segments = held.map().segments();
            segments[3] = io.rdmakv.common.hash.KeyHash.segment(io.rdmakv.common.hash.KeyHash.segmentBase(segments[3]),
                count);
            final MapCheck.Refusal refusal = check(withSegments(segments), held);
            refused(MapRefusal.SEGMENTS, refusal);
            assertTrue(refusal.detail().contains("partition 3's index segment has " + count + " groups"), refusal.detail());
            // also without a map to compare with: the rule is the map's own
            refused(MapRefusal.SEGMENTS, MapCheck.check(SETTINGS, withSegments(segments).withoutPrevious(), 2, null));
        }
    }

    @Test
    void overlappingSegmentsOfOneGroupAreRefused()
    {
        final long[] segments = held.map().segments();
        // partition 5's segment starts one group before partition 4's ends (one group holds all 8)
        final long end4 = io.rdmakv.common.hash.KeyHash.segmentBase(segments[4]) +
            io.rdmakv.common.hash.KeyHash.segmentCount(segments[4]);
        segments[5] = io.rdmakv.common.hash.KeyHash.segment(end4 - 1,
            io.rdmakv.common.hash.KeyHash.segmentCount(segments[5]));
        final MapCheck.Refusal refusal = MapCheck.check(SETTINGS, withSegments(segments).withoutPrevious(), 2, null);
        refused(MapRefusal.SEGMENTS, refusal);
        assertTrue(refusal.detail().contains("partitions 4 and 5 of group 0 have overlapping"), refusal.detail());
        // the same segment twice
        final long[] twice = held.map().segments();
        twice[7] = twice[0];
        refused(MapRefusal.SEGMENTS, MapCheck.check(SETTINGS, withSegments(twice).withoutPrevious(), 2, null));
        // touching is not overlapping: a segment that ends where the next starts, and one of two groups
        final long[] shrunk = held.map().segments();
        shrunk[0] = io.rdmakv.common.hash.KeyHash.segment(0, 2);
        assertNull(MapCheck.check(SETTINGS, withSegments(shrunk).withoutPrevious(), 2, null));
    }

    @Test
    void aSegmentThatChangesOrATableThatAppearsOrVanishesIsRefused()
    {
        final long[] shrunk = held.map().segments();
        shrunk[0] = io.rdmakv.common.hash.KeyHash.segment(0, 2);
        final MapCheck.Refusal refusal = check(withSegments(shrunk), held);
        refused(MapRefusal.SEGMENTS, refusal);
        assertTrue(refusal.detail().contains("partition 0's index segment is base 0, 2 groups"), refusal.detail());
        // the same map read by a node that holds the map before it, without a previous
        refused(MapRefusal.SEGMENTS, check(withSegments(shrunk).withoutPrevious(), held));
        final MapCheck.Refusal vanished = check(withSegments(null), held);
        refused(MapRefusal.SEGMENTS, vanished);
        assertTrue(vanished.detail().contains("vanishes"), vanished.detail());
    }

    /** Group 0 [0, 1], spares 2 and 3; epoch 2. */
    private static StoredMap twoSpares()
    {
        final PlannerRun run = new PlannerRun(2, 8).join(0, 1);
        run.settle();
        run.join(2, 3);
        return run.settleAndHold();
    }

    /**
     * {@code base}'s map one epoch up (fencing at its own epoch) with {@code groups}, partitions on {@code
     * partitionGroups}, and incarnations for the nodes of {@code groups} (each node's 1000 + id, as {@link PlannerRun}
     * joins it).
     */
    private static StoredMap grown(final StoredMap base, final List<ReplicaGroup> groups, final int[] partitionGroups,
        final io.rdmakv.common.cluster.MapMoves moves)
    {
        final ClusterMap m = base.map();
        final Map<Integer, Long> incarnations = new HashMap<>();
        for (final ReplicaGroup g : groups)
        {
            for (final int id : g.members())
            {
                incarnations.put(id, 1000L + id);
            }
            for (final int id : g.copying())
            {
                incarnations.put(id, 1000L + id);
            }
        }
        final long epoch = m.epoch() + 1;
        return new StoredMap(new ClusterMap(epoch, epoch, m.partitionCount(), m.nodes(), m.replicationFactor(), groups,
            partitionGroups, m.segments(), moves), incarnations).after(base);
    }

    @Test
    void aNewGroupOfSparesOwningNothingIsAcceptedAndNeedNotFence()
    {
        final StoredMap base = twoSpares();
        final ReplicaGroup zero = base.map().groups().get(0);
        final List<ReplicaGroup> groups = List.of(zero, new ReplicaGroup(1, new int[] {2, 3}, new int[0], false));
        final StoredMap formed = grown(base, groups, base.map().partitionGroups(),
            io.rdmakv.common.cluster.MapMoves.NONE);
        assertNull(check(formed, base), "spares forming a group that owns no partition: the promotion rule's exception");
        assertNull(check(formed.withoutPrevious(), base), "read by a node that holds the map before it");
        // a new group holding nothing fences nobody: the map may keep the fence epoch (or fence anyway)
        assertNull(check(new StoredMap(formed.map().withFenceEpoch(base.map().fenceEpoch()),
            formed.incarnations()).after(base), base));
        // but a change of an existing group still must fence
        final StoredMap changed = grown(base, List.of(new ReplicaGroup(0, new int[] {zero.member(0)}, new int[0],
            false), new ReplicaGroup(1, new int[] {2, 3}, new int[0], false)), base.map().partitionGroups(),
            io.rdmakv.common.cluster.MapMoves.NONE);
        refused(MapRefusal.FENCE, check(new StoredMap(changed.map().withFenceEpoch(base.map().fenceEpoch()),
            changed.incarnations()).after(base), base));
        // a new group of one spare is safe too (empty); the other spare stays one
        assertNull(check(grown(base, List.of(zero, new ReplicaGroup(4, new int[] {3}, new int[0], false)),
            base.map().partitionGroups(), io.rdmakv.common.cluster.MapMoves.NONE), base));
    }

    @Test
    void aNewGroupOfANodeFromAnotherGroupIsRefused()
    {
        final StoredMap base = twoSpares();
        // node 1 leaves group 0 for a new group with spare 2: group 0 would lose a replica to an empty group
        final MapCheck.Refusal refusal = check(grown(base, List.of(new ReplicaGroup(0, new int[] {0}, new int[0],
            false), new ReplicaGroup(1, new int[] {1, 2}, new int[0], false)), base.map().partitionGroups(),
            io.rdmakv.common.cluster.MapMoves.NONE), base);
        refused(MapRefusal.PROMOTION, refusal);
        assertTrue(refusal.detail().contains("node 1 is a member of new group 1 but was in group 0"), refusal.detail());
    }

    @Test
    void aNewGroupThatOwnsAPartitionIsRefused()
    {
        final StoredMap base = twoSpares();
        final int[] partitionGroups = base.map().partitionGroups();
        partitionGroups[5] = 1;
        final MapCheck.Refusal refusal = check(grown(base, List.of(base.map().groups().get(0),
            new ReplicaGroup(1, new int[] {2, 3}, new int[0], false)), partitionGroups,
            io.rdmakv.common.cluster.MapMoves.NONE), base);
        refused(MapRefusal.PLACEMENT, refusal);
        assertTrue(refusal.detail().contains("new group 1 owns partition 5"), refusal.detail());
    }

    @Test
    void aNewGroupWithACopyingNodeOrASealOrNoMemberIsRefused()
    {
        final StoredMap base = twoSpares();
        final ReplicaGroup zero = base.map().groups().get(0);
        final int[] partitionGroups = base.map().partitionGroups();
        final io.rdmakv.common.cluster.MapMoves none = io.rdmakv.common.cluster.MapMoves.NONE;
        refused(MapRefusal.GEOMETRY, check(grown(base, List.of(zero, new ReplicaGroup(1, new int[] {2},
            new int[] {3}, false)), partitionGroups, none), base));
        refused(MapRefusal.GEOMETRY, check(grown(base, List.of(zero, new ReplicaGroup(1, new int[] {2, 3},
            new int[0], true)), partitionGroups, none), base));
        refused(MapRefusal.GEOMETRY, check(grown(base, List.of(zero, new ReplicaGroup(1, new int[0],
            new int[0], false)), partitionGroups, none), base));
        // a new group listed before an old one: the old groups keep their places
        refused(MapRefusal.GEOMETRY, check(grown(base, List.of(new ReplicaGroup(1, new int[] {2, 3}, new int[0],
            false), zero), partitionGroups, none), base));
    }

    @Test
    void aNewGroupIsNoMovesTargetInTheMapItAppearsIn()
    {
        final StoredMap base = twoSpares();
        final long epoch = base.map().epoch() + 1;
        final io.rdmakv.common.cluster.MapMoves moves = new io.rdmakv.common.cluster.MapMoves(List.of(
            new io.rdmakv.common.cluster.MoveBatch(epoch * 1000, 0, 1, io.rdmakv.common.cluster.MovePhase.COPY,
                epoch, new int[] {0}, new long[] {io.rdmakv.common.hash.KeyHash.segment(0, 8)})), List.of());
        final MapCheck.Refusal refusal = check(grown(base, List.of(base.map().groups().get(0),
            new ReplicaGroup(1, new int[] {2, 3}, new int[0], false)), base.map().partitionGroups(), moves), base);
        refused(MapRefusal.MOVE_START, refusal);
        assertTrue(refusal.detail().contains("the map that forms its target"), refusal.detail());
    }

    @Test
    void aGroupOwningNothingMayBeDissolvedFromAnyPlaceFencingNobody()
    {
        final StoredMap base = twoSpares();
        final ReplicaGroup zero = base.map().groups().get(0);
        final ReplicaGroup one = new ReplicaGroup(1, new int[] {2}, new int[0], false);
        final ReplicaGroup two = new ReplicaGroup(2, new int[] {3}, new int[0], false);
        final io.rdmakv.common.cluster.MapMoves none = io.rdmakv.common.cluster.MapMoves.NONE;
        final StoredMap three = grown(base, List.of(zero, one, two), base.map().partitionGroups(), none);
        assertNull(check(three, base), "two new groups of one spare each, owning nothing");
        // group 1, in the middle of the list, is dissolved: node 2 becomes a spare, group 2 keeps its id
        final StoredMap middle = grown(three, List.of(zero, two), three.map().partitionGroups(), none);
        assertNull(check(middle, three), "a group owning nothing, in no batch, with no retired segment");
        assertNull(check(middle.withoutPrevious(), three), "read by a node that holds the map before it");
        assertNull(middle.map().groupOfNode(2));
        assertNull(check(new StoredMap(middle.map().withFenceEpoch(three.map().fenceEpoch()),
            middle.incarnations()).after(three), three), "a group dissolved holding nothing fences nobody");
        assertNull(check(grown(three, List.of(zero, one), three.map().partitionGroups(), none), three),
            "the last group");
        // the others keep their order
        refused(MapRefusal.GEOMETRY, check(grown(three, List.of(two, zero), three.map().partitionGroups(), none),
            three));
    }

    @Test
    void aForgedDissolutionOfAGroupThatOwnsMovesOrRetiresSomethingIsRefused()
    {
        final StoredMap base = twoSpares();
        final ReplicaGroup zero = base.map().groups().get(0);
        final ReplicaGroup one = new ReplicaGroup(1, new int[] {2, 3}, new int[0], false);
        final io.rdmakv.common.cluster.MapMoves none = io.rdmakv.common.cluster.MapMoves.NONE;
        // group 1 owns partition 5 (a map a forger wrote before; as the base here only its content counts)
        final int[] withFive = base.map().partitionGroups();
        withFive[5] = 1;
        final StoredMap owning = grown(base, List.of(zero, one), withFive, none);
        final MapCheck.Refusal refusal = check(grown(owning, List.of(zero), base.map().partitionGroups(), none),
            owning);
        refused(MapRefusal.GEOMETRY, refusal);
        assertTrue(refusal.detail().contains("group 1 vanishes after epoch 3, in which it owns partition 5: a group " +
            "is dissolved only when it owns nothing"), refusal.detail());

        // group 1 is the target of a batch in COPY: it vanishes with the batch
        final StoredMap formed = grown(base, List.of(zero, one), base.map().partitionGroups(), none);
        final long epoch = formed.map().epoch() + 1;
        final io.rdmakv.common.cluster.MapMoves toOne = new io.rdmakv.common.cluster.MapMoves(List.of(
            new io.rdmakv.common.cluster.MoveBatch(epoch * 1000, 0, 1, io.rdmakv.common.cluster.MovePhase.COPY,
                epoch, new int[] {0}, new long[] {io.rdmakv.common.hash.KeyHash.segment(0, 8)})), List.of());
        final ClusterMap f = formed.map();
        final StoredMap moving = new StoredMap(new ClusterMap(epoch, f.fenceEpoch(), f.partitionCount(), f.nodes(),
            f.replicationFactor(), f.groups(), f.partitionGroups(), f.segments(), toOne), formed.incarnations())
            .after(formed);
        assertNull(check(moving, formed), "a batch to the new group starts in the next map");
        final MapCheck.Refusal target = check(grown(moving, List.of(zero), f.partitionGroups(), none), moving);
        refused(MapRefusal.GEOMETRY, target);
        assertTrue(target.detail().contains("in which it is the target of"), target.detail());
    }
}
