package io.rdmakv.server.cluster.map;

import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.MoveBatch;
import io.rdmakv.common.cluster.MovePhase;
import io.rdmakv.common.cluster.ReplicaGroup;
import io.rdmakv.common.hash.KeyHash;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The index-growth rule (docs/growth.md §11, {@link GrowthPlanner}): a partition its group's primary reports at or
 * above 75% moves into a segment twice its size on another group with room, through the ordinary phases, every map
 * checked by {@link PlannerRun#step} against {@link MapCheck} (a target segment of another size is accepted).
 */
class GrowthPlannerTest
{
    private static final String MIB_1 = PlannerRun.GEOMETRY;
    private static final String MIB_2 = MemberInfo.geometry(2 << 20, 4096);

    /**
     * Groups 0 [0, 1] and 1 [2, 3] (8 partitions, 4 each, segments of 256 groups in arenas of 1024), then with the
     * switch on a group of spares per geometry in {@code spares}, ids 2, 3, ...; then the switch off: nothing moves
     * by shares, and the new groups own nothing.
     */
    private static PlannerRun withEmptyGroups(final String... spares)
    {
        final PlannerRun run = new PlannerRun(2, 8);
        run.join(0, 1, 2, 3);
        run.settle();
        assertEquals(2, run.map.groups().size());
        run.auto = true;
        int id = 4;
        for (final String geometry : spares)
        {
            run.join(PlannerRun.member(id, 1000 + id, geometry)).join(PlannerRun.member(id + 1, 1001 + id, geometry));
            id += 2;
            assertNotNull(run.step(), "a new group");
        }
        run.auto = false;
        assertNull(run.step(), "with the switch off nothing moves by shares");
        assertEquals(2 + spares.length, run.map.groups().size());
        return run;
    }

    private static LoadReport.Over over(final ClusterMap map, final int partition, final long used)
    {
        return new LoadReport.Over(partition, map.segmentOf(partition), used);
    }

    private static long groups(final long segment)
    {
        return KeyHash.segmentCount(segment);
    }

    @Test
    void aPartitionOverTheThresholdMovesIntoASegmentTwiceItsSizeOnAGroupWithRoom()
    {
        final PlannerRun run = withEmptyGroups(MIB_1);
        final long before = run.map.segmentOf(0);
        assertEquals(256, groups(before));
        run.loads.add(new LoadReport(0, run.map.epoch(), List.of(over(run.map, 0, 2700))));
        final MapPlanner.Plan plan = run.step();
        assertNotNull(plan);
        assertTrue(plan.change().contains("index growth"), plan.change());
        final MoveBatch b = plan.map().moves().batches().get(0);
        assertEquals(0, b.source());
        assertEquals(2, b.target(), "the only group with room");
        assertEquals(MovePhase.COPY, b.phase());
        assertEquals(1, b.size());
        assertEquals(512, groups(b.segment(0)), "twice the segment");
        assertEquals(plan.map().fenceEpoch(), run.plans.get(run.plans.size() - 2).map().fenceEpoch(),
            "a move fences nobody");
        assertNull(run.step(), "the partition is moving: nothing more, though the report stays");
        RebalancePlannerTest.walk(run, b.id());
        assertEquals(2, run.map.groupFor(0).id());
        assertEquals(b.segment(0), run.map.segmentOf(0), "the bigger segment, in the map through SWITCH and OPEN");
        RebalancePlannerTest.reclaim(run);
        assertNotNull(run.step(), "the source's retired segment dropped");
        assertNull(run.step(), "the old report names a segment the partition no longer has: nothing moves");
    }

    @Test
    void withNoRoomAnywhereNothingMovesAndTheCoordinatorIsToldWhy()
    {
        final PlannerRun run = new PlannerRun(2, 8);
        run.join(0, 1, 2, 3);
        run.settle();
        run.loads.add(new LoadReport(0, run.map.epoch(), List.of(over(run.map, 2, 3000))));
        assertNull(run.step(), "creation gave each group's partitions its whole arena");
        final String why = MapPlanner.growthStalled(run.map, run.live.values(), run.loads, run.draining);
        assertNotNull(why);
        assertTrue(why.contains("partition 2") && why.contains("512 groups"), why);
    }

    @Test
    void onlyTheReportOfThePartitionsPrimaryForItsCurrentSegmentCounts()
    {
        final PlannerRun run = withEmptyGroups(MIB_1);
        // node 1 is group 0's backup; node 2 is group 1's primary but partition 0 is group 0's
        run.loads.add(new LoadReport(1, run.map.epoch(), List.of(over(run.map, 0, 3000))));
        run.loads.add(new LoadReport(2, run.map.epoch(), List.of(over(run.map, 0, 3000))));
        // the primary, but of a segment the partition does not have
        run.loads.add(new LoadReport(0, run.map.epoch(), List.of(new LoadReport.Over(0, KeyHash.segment(512, 256),
            3000))));
        assertNull(run.step());
        assertNull(MapPlanner.growthStalled(run.map, run.live.values(), run.loads, run.draining), "nothing to say");
    }

    @Test
    void theGroupWithTheMostFreeArenaIsChosenAndEachTargetTakesOneBatch()
    {
        // group 2 of 1 MiB nodes (arena 1024), group 3 of 2 MiB ones (2048)
        final PlannerRun run = withEmptyGroups(MIB_1, MIB_2);
        run.loads.add(new LoadReport(0, run.map.epoch(), List.of(over(run.map, 0, 2900))));
        run.loads.add(new LoadReport(2, run.map.epoch(), List.of(over(run.map, 1, 3000))));
        final MapPlanner.Plan plan = run.step();
        assertNotNull(plan);
        final List<MoveBatch> batches = plan.map().moves().batches();
        assertEquals(2, batches.size(), plan.change());
        // the most loaded first: partition 1 (group 1) takes the emptiest arena, group 3; partition 0 then group 2
        assertEquals(1, batches.get(0).partition(0));
        assertEquals(3, batches.get(0).target());
        assertEquals(0, batches.get(1).partition(0));
        assertEquals(2, batches.get(1).target());
    }

    @Test
    void oneBatchPerSourceTheOtherWaits()
    {
        final PlannerRun run = withEmptyGroups(MIB_1, MIB_1);
        run.loads.add(new LoadReport(0, run.map.epoch(), List.of(over(run.map, 0, 2900), over(run.map, 2, 3000))));
        final MapPlanner.Plan plan = run.step();
        assertEquals(1, plan.map().moves().batches().size(), plan.change());
        assertEquals(2, plan.map().moves().batches().get(0).partition(0), "the most loaded");
        final String why = MapPlanner.growthStalled(run.map, run.live.values(), run.loads, run.draining);
        assertTrue(why.contains("partition 0") && why.contains("source of a batch"), why);
        RebalancePlannerTest.walk(run, plan.map().moves().batches().get(0).id());
        final MapPlanner.Plan second = run.step();
        assertNotNull(second, "the next one once the first is open");
        final MoveBatch b = second.map().moves().batches().get(0);
        assertEquals(0, b.partition(0));
        assertEquals(512, groups(b.segment(0)));
    }

    @Test
    void aDrainingGroupTakesNothing()
    {
        final PlannerRun run = withEmptyGroups(MIB_1);
        final List<LoadReport> loads = List.of(new LoadReport(0, run.map.epoch(), List.of(over(run.map, 0, 3000))));
        final GrowthPlanner.Grown grown = GrowthPlanner.grow(run.map, java.util.Map.of(0, 1024L, 1, 1024L, 2, 1024L),
            loads, java.util.Set.of(2), new StringBuilder());
        assertTrue(grown.placement().moves().batches().isEmpty());
        assertEquals(1, grown.waits().size(), grown.waits().toString());
        assertTrue(GrowthPlanner.grow(run.map, java.util.Map.of(0, 1024L, 1, 1024L, 2, 1024L), loads,
            java.util.Set.of(), new StringBuilder()).waits().isEmpty(), "without the drain it moves");
    }
}
