package io.rdmakv.server.cluster.map;

import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.ClusterNode;
import io.rdmakv.common.cluster.MoveBatch;
import io.rdmakv.common.cluster.MovePhase;
import io.rdmakv.common.cluster.ReplicaGroup;
import io.rdmakv.common.hash.KeyHash;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Rule 4 of docs/growth.md §12 ({@link MapPlanner}): with the switch {@code rebalance/auto} on, R live spares of one
 * geometry form a new group that owns no partition, after the spares that groups below R take and before the
 * operator's move request. Every map is checked by {@link PlannerRun#step} against {@link MapCheck}.
 */
class NewGroupPlannerTest
{
    private static final String OTHER = MemberInfo.geometry(2 << 20, 4096);

    private static ReplicaGroup group(final int id, final int... members)
    {
        return new ReplicaGroup(id, members, new int[0], false);
    }

    /** Groups 0 [0, 1] and 1 [2, 3], R = 2, 8 partitions. */
    private static PlannerRun twoGroups()
    {
        final PlannerRun run = new PlannerRun(2, 8).join(0, 1, 2, 3);
        run.settle();
        assertEquals(List.of(group(0, 0, 1), group(1, 2, 3)), run.map.groups());
        return run;
    }

    private static List<Integer> nodeIds(final ClusterMap map)
    {
        return map.nodes().stream().map(ClusterNode::id).toList();
    }

    @Test
    void withTheSwitchOffSparesStaySpares()
    {
        final PlannerRun run = twoGroups().join(4, 5);
        assertEquals(1, run.settle(), "only the node list changes");
        assertEquals(2, run.map.groups().size());
        assertEquals(List.of(0, 1, 2, 3, 4, 5), nodeIds(run.map));
        assertEquals(1, run.map.fenceEpoch());
        // and the shorter overloads plan the same (the switch off)
        run.auto = false;
        assertNull(MapPlanner.next(run.map, run.incarnations, 2, 8, run.live.values(), List.of(), true));
    }

    @Test
    void withTheSwitchOnRSparesOfOneGeometryFormANewGroupOwningNothing()
    {
        final PlannerRun run = twoGroups().join(5, 4, 6);
        run.auto = true;
        final ClusterMap before = run.map;
        final MapPlanner.Plan plan = run.step();
        assertNotNull(plan);
        final ClusterMap formed = plan.map();
        assertEquals(before.epoch() + 1, formed.epoch());
        assertEquals(List.of(group(0, 0, 1), group(1, 2, 3), group(2, 4, 5)), formed.groups(),
            "the lowest ids, ascending: 4 is the primary");
        assertEquals(before.fenceEpoch(), formed.fenceEpoch(), "a new group holding nothing fences nobody: " +
            plan.change());
        assertArrayEquals(before.partitionGroups(), formed.partitionGroups(), "no partition changes group");
        assertArrayEquals(before.segments(), formed.segments(), "nor segment");
        assertEquals(0, formed.partitionsOf(4).length);
        assertTrue(formed.moves().isEmpty());
        assertEquals(1004L, plan.incarnations().get(4));
        assertEquals(1005L, plan.incarnations().get(5));
        assertNull(formed.groupOfNode(6), "6 is still a spare");
        assertEquals(List.of(0, 1, 2, 3, 4, 5, 6), nodeIds(formed));
        assertTrue(plan.change().contains("new group 2 of spares [4, 5]"), plan.change());
        assertEquals(0, plan.failovers());
        final MapPlanner.Plan next = run.step();
        assertEquals(3, next.map().groups().size(), "one spare left: no other group: " + next.change());
        assertEquals(2, next.map().moves().batches().get(0).target(),
            "the new group gets partitions by shares from the next map on (rule 5): " + next.change());
        run.join(7);
        run.settle();
        assertEquals(group(3, 6, 7), run.map.groups().get(3), "the next one, id one above the highest");
    }

    @Test
    void onlySparesOfOneGeometryFormAGroupOnePerMap()
    {
        final PlannerRun run = twoGroups();
        run.join(PlannerRun.member(4, 1004, OTHER)).join(5).join(PlannerRun.member(6, 1006, OTHER)).join(7);
        run.auto = true;
        run.step();
        assertEquals(group(2, 4, 6), run.map.groups().get(2), "the geometry of the lowest spare first");
        assertEquals(3, run.map.groups().size(), "one new group per map");
        run.step();
        assertEquals(group(3, 5, 7), run.map.groups().get(3));
        final MapPlanner.Plan next = run.step();
        assertEquals(4, next.map().groups().size(), "no third: " + next.change());
        assertFalse(next.map().moves().batches().isEmpty(), "partitions move by shares (rule 5): " + next.change());
        // two spares of different geometries make no group
        final PlannerRun mixed = twoGroups();
        mixed.join(PlannerRun.member(4, 1004, OTHER)).join(5);
        mixed.auto = true;
        mixed.settle();
        assertEquals(2, mixed.map.groups().size());
        assertEquals(List.of(0, 1, 2, 3, 4, 5), nodeIds(mixed.map));
    }

    @Test
    void fewerThanRSparesFormNothing()
    {
        final PlannerRun run = new PlannerRun(3, 8).join(0, 1, 2);
        run.settle();
        run.auto = true;
        run.join(3, 4);
        assertEquals(1, run.settle(), "the node list only");
        assertEquals(1, run.map.groups().size());
        assertEquals(1, run.map.fenceEpoch());
        run.join(5);
        run.settle();
        assertEquals(group(1, 3, 4, 5), run.map.groups().get(1));
    }

    @Test
    void aGroupBelowRTakesSparesFirst()
    {
        final PlannerRun run = twoGroups();
        run.auto = true;
        run.leave(1);
        run.step();
        assertEquals(group(0, 0), run.map.groups().get(0));
        run.join(4, 5, 6);
        final MapPlanner.Plan first = run.step();
        assertEquals(new ReplicaGroup(0, new int[] {0}, new int[] {4}, false), first.map().groups().get(0),
            first.change());
        assertEquals(2, first.map().groups().size(), "no new group in the map that re-replicates");
        final MapPlanner.Plan second = run.step();
        assertEquals(group(2, 5, 6), second.map().groups().get(2), second.change());
        assertEquals(new ReplicaGroup(0, new int[] {0}, new int[] {4}, false), second.map().groups().get(0),
            "the copy goes on");
    }

    @Test
    void noMoreGroupsThanPartitions()
    {
        final PlannerRun run = new PlannerRun(1, 2).join(0, 1);
        run.settle();
        run.auto = true;
        run.join(2);
        run.settle();
        assertEquals(2, run.map.groups().size());
        assertNull(run.map.groupOfNode(2));
    }

    @Test
    void aMoveUnderWayGoesOnWhileANewGroupForms()
    {
        final PlannerRun run = twoGroups();
        final ClusterMap created = run.map;
        final long arena = MapPlanner.indexGroups(PlannerRun.GEOMETRY);
        run.restartFrom(created.withSegments(MapPlanner.segments(created.partitionGroups(),
            new long[] {arena / 2, arena / 2})));
        run.requestMove(1, 0).step();
        final MoveBatch copy = run.map.moves().batches().get(0);
        assertEquals(MovePhase.COPY, copy.phase());
        run.auto = true;
        run.join(4, 5);
        final MapPlanner.Plan formed = run.step();
        assertEquals(group(2, 4, 5), formed.map().groups().get(2), formed.change());
        assertEquals(List.of(copy), formed.map().moves().batches(), "the batch is not aborted: " + formed.change());
        assertTrue(formed.map().fenceEpoch() < formed.map().epoch(), "nobody fenced: the copy goes on");
        run.moved(2, copy.id(), MoveState.BULK);
        run.step();
        assertEquals(MovePhase.FREEZE, run.map.moves().batches().get(0).phase(), "and advances on its reports");
    }

    @Test
    void aMoveRequestedToTheNewGroupIsPlacedInItsEmptyArena()
    {
        // creation gives each group's partitions its whole arena: no room for a move between the two groups
        final PlannerRun run = twoGroups();
        run.requestMove(1, 0);
        assertNull(run.step());
        final String full = MapPlanner.requestRefusal(run.map, run.live.values(), run.request);
        assertTrue(full.contains("no free range"), full);
        run.request = null;
        run.auto = true;
        run.join(4, 5);
        run.step();
        assertEquals(group(2, 4, 5), run.map.groups().get(2));
        // the switch off again: no moves by shares (rule 5), only the operator's
        run.auto = false;
        assertNull(run.step());
        final long size = KeyHash.segmentCount(run.map.segmentOf(0));
        run.requestMove(2, 0, 2);
        final MapPlanner.Plan started = run.step();
        assertNotNull(started);
        assertTrue(started.tookRequest());
        final MoveBatch b = run.map.moves().batches().get(0);
        assertEquals(MovePhase.COPY, b.phase());
        assertEquals(0, b.source());
        assertEquals(2, b.target());
        assertArrayEquals(new int[] {0, 2}, b.partitions());
        assertEquals(KeyHash.segment(0, size), b.segment(0), "first fit in the empty arena");
        assertEquals(KeyHash.segment(size, size), b.segment(1));
        assertEquals(run.map.fenceEpoch(), started.map().fenceEpoch());
        assertFalse(started.map().epoch() == started.map().fenceEpoch(), "a move's start fences nobody");
    }
}
