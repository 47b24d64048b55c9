package io.rdmakv.server.cluster.map;

import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.MoveBatch;
import io.rdmakv.common.cluster.MovePhase;
import io.rdmakv.common.cluster.ReplicaGroup;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Drains (docs/growth.md §12 "Drain", {@link MapPlanner} with {@code draining}): a group with a draining member counts
 * as zero capacity, so rule 5 moves its partitions to the others by shares (with the switch off too, then only the
 * draining group's); once it owns nothing, is in no batch and has no retired segment it is dissolved and its nodes
 * become spares; a draining spare joins no group and forms none. Every map is checked by {@link PlannerRun#step}
 * against {@link MapCheck}.
 */
class DrainPlannerTest
{
    /** Groups 0 [0, 1], 1 [2, 3], 2 [4, 5], 12 partitions round-robin (4 each), R = 2, the switch off. */
    private static PlannerRun threeGroups()
    {
        final PlannerRun run = new PlannerRun(2, 12).join(0, 1, 2, 3, 4, 5);
        run.settle();
        assertEquals(List.of(0, 1, 2), run.map.groups().stream().map(ReplicaGroup::id).toList());
        assertEquals(List.of(4, 4, 4), owned(run.map));
        return run;
    }

    /** Partitions owned by each group of {@code map}, in list order. */
    private static List<Integer> owned(final ClusterMap map)
    {
        return map.groups().stream().map(g ->
        {
            int n = 0;
            for (final int p : map.partitionGroups())
            {
                n += p == g.id() ? 1 : 0;
            }
            return n;
        }).toList();
    }

    /**
     * Groups 0 [0, 1] and 1 [2, 3] (8 partitions, R = 2), then spares 4 and 5 with the switch on: group 2 of them takes
     * its share (owned 3, 3, 2), every retired segment reclaimed; then the switch off. The old groups' arenas have room
     * again: a group made at creation has its whole arena in segments, so a partition can move onto it only once one
     * moved away (rule 5 keeps a partition's segment size).
     */
    private static PlannerRun grown()
    {
        final PlannerRun run = new PlannerRun(2, 8).join(0, 1, 2, 3);
        run.settle();
        run.auto = true;
        run.join(4, 5);
        RebalancePlannerTest.rebalance(run);
        assertEquals(List.of(3, 3, 2), owned(run.map));
        assertTrue(run.map.moves().isEmpty());
        run.auto = false;
        return run;
    }

    @Test
    void aDrainedGroupGivesItsPartitionsAwayBySharesAndIsDissolvedWithTheSwitchOff()
    {
        final PlannerRun run = grown();
        assertNull(run.step(), "nothing to do before the drain");
        run.draining.add(1);
        final MapPlanner.Plan first = run.step();
        assertNotNull(first, "a drain moves partitions with the switch off");
        assertEquals(1, first.map().moves().batches().size(), "one batch per source: " + first.change());
        final MoveBatch a = first.map().moves().batches().get(0);
        assertEquals(0, a.source());
        assertEquals(2, a.target(), "targets 0, 4, 4: group 2 is the most under (2), group 1 one under");
        assertEquals(2, a.size(), "as many as the target is under");
        assertTrue(first.change().contains("draining groups [0], switch off: drains only"), first.change());

        final List<MoveBatch> started = RebalancePlannerTest.rebalance(run);
        assertEquals(1, started.size(), "then the last one to group 1: " + started);
        assertEquals(1, started.get(0).target());
        assertTrue(run.plans.stream().flatMap(p -> p.map().moves().batches().stream())
                .filter(b -> b.phaseEpoch() > a.phaseEpoch() - 1).allMatch(b -> b.source() == 0),
            "the switch is off: only the draining group gives");

        final ClusterMap done = run.map;
        assertEquals(List.of(1, 2), done.groups().stream().map(ReplicaGroup::id).toList(), "group 0 is dissolved");
        assertEquals(List.of(4, 4), owned(done));
        assertNull(done.groupOfNode(0), "its members become spares");
        assertNull(done.groupOfNode(1));
        assertNotNull(done.node(1), "the drained node is listed while live: a spare, safe to stop");
        assertTrue(done.fenceEpoch() < done.epoch(), "a group dissolved holding nothing fences nobody");
        final MapPlanner.Plan dissolution = run.plans.get(run.plans.size() - 1);
        assertTrue(dissolution.change().contains("group 0 drained and dissolved: [0, 1] to spares"),
            dissolution.change());
        assertFalse(dissolution.incarnations().containsKey(1), "a spare has no place, so no placed incarnation");
        assertNull(run.step(), "settled: the spares wait (the switch is off)");

        run.leave(1);
        assertNotNull(run.step(), "the drained node stops: the node list drops it, nothing else changes");
        assertEquals(List.of(4, 4), owned(run.map));
        assertNull(run.map.node(1));
    }

    @Test
    void withTheSwitchOnTheDrainedNodesGroupMateFormsAGroupOnlyWithAnotherSpare()
    {
        final PlannerRun run = grown();
        run.auto = true;
        assertNull(run.step(), "balanced");
        run.draining.add(0);
        RebalancePlannerTest.rebalance(run);
        assertEquals(List.of(1, 2), run.map.groups().stream().map(ReplicaGroup::id).toList());
        assertEquals(List.of(4, 4), owned(run.map));
        assertNull(run.step(), "spares 0 (draining) and 1: rule 4 needs R spares that are not draining");

        run.join(6);
        final MapPlanner.Plan formed = run.step();
        assertEquals(new ReplicaGroup(3, new int[] {1, 6}, new int[0], false),
            formed.map().groups().get(formed.map().groups().size() - 1), formed.change());
        assertNull(formed.map().groupOfNode(0), "the draining spare stays out");
    }

    @Test
    void aDrainedSpareReplacesNoFailedMember()
    {
        final PlannerRun run = threeGroups();
        run.join(6).join(7);
        run.settle();
        run.draining.add(6);
        run.leave(1);
        run.settle();
        assertEquals(new ReplicaGroup(0, new int[] {0}, new int[] {7}, false), run.map.groups().get(0),
            "spare 7 copies into group 0, not 6, the lower id, which is being drained");
        assertNull(run.map.groupOfNode(6));
    }

    @Test
    void aDrainingCopyingNodeLeavesItsGroupWhichIsNotDrained()
    {
        final PlannerRun run = threeGroups();
        run.join(6);
        run.leave(1);
        run.settle();
        assertEquals(new ReplicaGroup(0, new int[] {0}, new int[] {6}, false), run.map.groups().get(0));
        run.draining.add(6);
        final MapPlanner.Plan out = run.step();
        assertEquals(new ReplicaGroup(0, new int[] {0}, new int[0], false), out.map().groups().get(0), out.change());
        assertTrue(out.change().contains("copying [6] draining, to spares"), out.change());
        assertNull(run.step(), "group 0 is not drained: its member 0 is not draining, and 6 joins nothing");
        assertEquals(List.of(4, 4, 4), owned(run.map));
    }

    @Test
    void cancellingADrainStopsFurtherMovesAndKeepsTheGroup()
    {
        final PlannerRun run = grown();
        run.draining.add(0);
        final MoveBatch a = run.step().map().moves().batches().get(0);
        run.draining.clear();
        assertNull(run.step(), "the batch under way goes on; nothing new starts");
        RebalancePlannerTest.walk(run, a.id());
        RebalancePlannerTest.reclaim(run);
        run.settle();
        assertTrue(run.map.moves().isEmpty());
        assertEquals(List.of(0, 1, 2), run.map.groups().stream().map(ReplicaGroup::id).toList(), "not dissolved");
        assertEquals(List.of(1, 3, 4), owned(run.map), "what moved stays moved; the switch is off");
    }

    @Test
    void aGroupOwningNothingDissolvesAtOnceAndAMoveToADrainingGroupIsRefused()
    {
        final PlannerRun run = new PlannerRun(2, 8).join(0, 1, 2, 3);
        run.settle();
        run.auto = true;
        run.join(4, 5);
        run.step();
        assertEquals(3, run.map.groups().size(), "group 2 of spares 4, 5, owning nothing");
        final MoveRequest toTwo = new MoveRequest(0, List.of(new MoveRequest.Wanted(new int[] {0}, 2, 0)), List.of());
        assertNull(MapPlanner.requestRefusal(run.map, run.live.values(), toTwo, java.util.Set.of()));
        final String refusal = MapPlanner.requestRefusal(run.map, run.live.values(), toTwo, java.util.Set.of(5));
        assertNotNull(refusal);
        assertTrue(refusal.contains("group 2 is being drained"), refusal);
        run.draining.add(5);
        final MapPlanner.Plan dissolved = run.step();
        assertEquals(List.of(0, 1), dissolved.map().groups().stream().map(ReplicaGroup::id).toList(),
            dissolved.change());
        assertNull(run.step(), "4 alone is not R spares: no group forms again");
    }

    @Test
    void aDrainWaitsWhileItsGroupIsTheSourceOfABatch()
    {
        final PlannerRun run = grown();
        final int p = partitionOf(run.map, 0);
        run.requestMove(1, p);
        final MoveBatch asked = run.step().map().moves().batches().get(0);
        assertEquals(0, asked.source());
        run.draining.add(0);
        assertNull(run.step(), "group 0 is the source of a batch already: one per source");
        RebalancePlannerTest.walk(run, asked.id());
        final MapPlanner.Plan next = run.step();
        assertNotNull(next);
        final MoveBatch drain = next.map().moves().batches().get(0);
        assertEquals(MovePhase.COPY, drain.phase());
        assertEquals(0, drain.source(), next.change());
        assertEquals(2, drain.target(), "group 1 has its share now (4 of 4): the rest go to group 2");
    }

    private static int partitionOf(final ClusterMap map, final int group)
    {
        for (int p = 0; p < map.partitionCount(); p++)
        {
            if (map.groupFor(p).id() == group)
            {
                return p;
            }
        }
        throw new AssertionError("group " + group + " owns nothing");
    }
}
