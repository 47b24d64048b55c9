package io.rdmakv.server.cluster.map;

import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.MapMoves;
import io.rdmakv.common.cluster.MoveBatch;
import io.rdmakv.common.cluster.MovePhase;
import io.rdmakv.common.cluster.ReplicaGroup;
import io.rdmakv.common.cluster.RetiredSegment;
import io.rdmakv.common.hash.KeyHash;
import io.rdmakv.common.layout.BucketDescriptor;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Rule 5 of docs/growth.md §12 ({@link MapPlanner}, {@link MovePlanner#newMoves}, {@link Shares}): with the switch
 * {@code rebalance/auto} on, partitions move by shares of the arenas, from the most over-target group to the most
 * under-target one, within the limits (one batch per source and per target, 4 in the map, 16,384 slots per batch,
 * room in the target's arena), until every group is within one partition of its share. Every map is checked by
 * {@link PlannerRun#step} against {@link MapCheck}.
 */
class RebalancePlannerTest
{
    private static final String MIB_2 = MemberInfo.geometry(2 << 20, 4096);
    private static final String MIB_16 = MemberInfo.geometry(16 << 20, 4096);
    private static final String MIB_32 = MemberInfo.geometry(32 << 20, 4096);
    private static final String MIB_256 = MemberInfo.geometry(256 << 20, 4096);

    /**
     * Groups 0 [0, 1] and 1 [2, 3] of geometry {@code old} (8 partitions, R = 2), then spares 4 and 5 of geometry
     * {@code spares} with the switch on: the first map forms group 2 of them, owning nothing and moving nothing.
     */
    private static PlannerRun grown(final String old, final String spares)
    {
        final PlannerRun run = new PlannerRun(2, 8);
        for (int id = 0; id < 4; id++)
        {
            run.join(PlannerRun.member(id, 1000 + id, old));
        }
        run.settle();
        assertEquals(2, run.map.groups().size());
        run.auto = true;
        run.join(PlannerRun.member(4, 1004, spares)).join(PlannerRun.member(5, 1005, spares));
        final MapPlanner.Plan formed = run.step();
        assertEquals(new ReplicaGroup(2, new int[] {4, 5}, new int[0], false), formed.map().groups().get(2),
            formed.change());
        assertTrue(formed.map().moves().isEmpty(), "a group formed in this map gets moves from the next on");
        return run;
    }

    private static MoveBatch only(final ClusterMap map)
    {
        assertEquals(1, map.moves().batches().size(), map.toString());
        return map.moves().batches().get(0);
    }

    /** Batch {@code id} through FREEZE, SWITCH and OPEN on its primaries' reports, one map each. */
    static void walk(final PlannerRun run, final long id)
    {
        final MoveBatch b = run.map.moves().batch(id);
        final int target = run.map.groupById(b.target()).primary();
        final int source = run.map.groupById(b.source()).primary();
        run.moved(target, id, MoveState.BULK);
        assertEquals(MovePhase.FREEZE, run.step().map().moves().batch(id).phase());
        run.moved(target, id, MoveState.FINAL);
        assertEquals(MovePhase.SWITCH, run.step().map().moves().batch(id).phase());
        run.moved(source, id, MoveState.MARKED);
        assertNull(run.step().map().moves().batch(id), "open");
    }

    /** Every member of a group with retired segments of finished batches reports them reclaimed. */
    static void reclaim(final PlannerRun run)
    {
        for (final RetiredSegment r : run.map.moves().retired())
        {
            for (final int member : run.map.groupById(r.group()).members())
            {
                run.moved(member, r.batch(), MoveState.RECLAIMED);
            }
        }
    }

    /**
     * Plans, walks every batch to OPEN (the first in the map each time) and reclaims, until nothing more is planned;
     * the batches started, in order.
     */
    static List<MoveBatch> rebalance(final PlannerRun run)
    {
        final List<MoveBatch> started = new ArrayList<>();
        for (int i = 0; i < 200; i++)
        {
            final MapPlanner.Plan plan = run.step();
            if (plan != null)
            {
                plan.map().moves().batches().stream()
                    .filter(b -> b.phase() == MovePhase.COPY && b.phaseEpoch() == plan.map().epoch())
                    .forEach(started::add);
                continue;
            }
            if (!run.map.moves().batches().isEmpty())
            {
                walk(run, run.map.moves().batches().get(0).id());
            }
            else if (!run.map.moves().retired().isEmpty())
            {
                reclaim(run);
            }
            else
            {
                return started;
            }
        }
        throw new AssertionError("rebalancing does not end: " + run.plans);
    }

    /** In every map planned: at most one batch per source and per target, at most 4, each within the slot cap. */
    private static void assertLimits(final PlannerRun run)
    {
        for (final MapPlanner.Plan plan : run.plans)
        {
            final List<MoveBatch> batches = plan.map().moves().batches();
            assertTrue(batches.size() <= 4, plan.change());
            final Set<Integer> sources = new HashSet<>();
            final Set<Integer> targets = new HashSet<>();
            for (final MoveBatch b : batches)
            {
                assertTrue(sources.add(b.source()), "one batch per source: " + plan.change());
                assertTrue(targets.add(b.target()), "one batch per target: " + plan.change());
                long slots = 0;
                for (final long segment : b.segments())
                {
                    slots += KeyHash.segmentCount(segment) * BucketDescriptor.SLOTS_PER_GROUP;
                }
                assertTrue(b.size() == 1 || slots <= 16_384, b + ": " + slots + " slots");
            }
        }
    }

    private static int owned(final ClusterMap map, final int group)
    {
        int n = 0;
        for (final int g : map.partitionGroups())
        {
            n += g == group ? 1 : 0;
        }
        return n;
    }

    @Test
    void aNewGroupTakesItsShareOneBatchAtATimeFromTwoSources()
    {
        final PlannerRun run = grown(PlannerRun.GEOMETRY, PlannerRun.GEOMETRY);
        final long fence = run.map.fenceEpoch();
        final List<MoveBatch> dryRun = MapPlanner.plannedMoves(run.map, run.live.values());
        final MapPlanner.Plan first = run.step();
        assertNotNull(first);
        // shares 8/3 each: targets 3, 3, 2 (the remainders tie: the lower ids get the two left over)
        final MoveBatch a = only(first.map());
        assertEquals(List.of(a), dryRun, "the dry run shows what the planner does");
        assertEquals(first.map().epoch() * MovePlanner.IDS_PER_EPOCH, a.id());
        assertEquals(MovePhase.COPY, a.phase());
        assertEquals(0, a.source(), "groups 0 and 1 are both one over: the lower id first");
        assertEquals(2, a.target());
        assertArrayEquals(new int[] {0}, a.partitions(), "one over, the lowest partition");
        final long size = KeyHash.segmentCount(run.map.segmentOf(0));
        assertEquals(KeyHash.segment(0, size), a.segment(0), "first fit in the new group's empty arena");
        assertEquals(fence, first.map().fenceEpoch(), "a move's start fences nobody");
        assertTrue(first.change().contains("rebalance: " + a + " started"), first.change());
        assertFalse(first.tookRequest());
        assertNull(run.step(), "group 2 receives one batch at a time: group 1 waits");
        assertTrue(MapPlanner.plannedMoves(run.map, run.live.values()).isEmpty());

        walk(run, a.id());
        assertEquals(2, run.map.groupFor(0).id());
        final MapPlanner.Plan second = run.step();
        final MoveBatch b = only(second.map());
        assertEquals(1, b.source(), "now group 1 is the one over (4 of 3)");
        assertEquals(2, b.target());
        assertArrayEquals(new int[] {1}, b.partitions());
        assertEquals(KeyHash.segment(size, size), b.segment(0), "clear of the segment group 2 owns");
        walk(run, b.id());
        assertNull(run.step(), "the shares are met; the old groups still hold their retired segments");
        reclaim(run);
        run.step();
        assertTrue(run.map.moves().isEmpty());
        assertNull(run.step(), "nothing more is planned");
        assertTrue(MapPlanner.plannedMoves(run.map, run.live.values()).isEmpty());
        assertEquals(List.of(3, 3, 2), List.of(owned(run.map, 0), owned(run.map, 1), owned(run.map, 2)));
        for (final MapPlanner.Plan plan : run.plans)
        {
            assertEquals(plan.map().fenceEpoch() == plan.map().epoch(), plan.map().epoch() <= 1,
                "only creation fences (a new group holding nothing fences nobody): " + plan.change());
        }
        assertLimits(run);
    }

    @Test
    void targetsAddUpToPByLargestRemainderTiesToTheLowerId()
    {
        assertEquals(Map.of(0, 3, 1, 3, 2, 2), Shares.targets(8, Map.of(0, 1024L, 1, 1024L, 2, 1024L)));
        assertEquals(Map.of(0, 2, 1, 6), Shares.targets(8, Map.of(0, 1L, 1, 3L)));
        // 8 × 2048 / 36864 = 0.44 twice, 8 × 32768 / 36864 = 7.11: floors 0, 0, 7, the one left to group 0
        assertEquals(Map.of(0, 1, 1, 0, 2, 7), Shares.targets(8, Map.of(0, 2048L, 1, 2048L, 2, 32768L)));
        // 16 × 1/6 = 2.67, 2.67, 10.67: floors 2, 2, 10, remainders equal, the two left to the lower ids
        assertEquals(Map.of(3, 3, 5, 3, 9, 10), Shares.targets(16, Map.of(9, 4096L, 3, 1024L, 5, 1024L)));
        assertEquals(Map.of(), Shares.targets(8, Map.of()));
        for (int p = 1; p <= 64; p++)
        {
            final Map<Integer, Integer> t = Shares.targets(p, Map.of(0, 3L, 1, 5L, 2, 7L, 4, 11L));
            assertEquals(p, t.values().stream().mapToInt(Integer::intValue).sum(), "P = " + p + ": " + t);
        }
    }

    @Test
    void sparesOfABiggerGeometryTakeMoreInBatchesWithinTheSlotCap()
    {
        // arenas 2048, 2048 and 32768 bucket groups: targets 1, 0, 7; each old partition's segment is 512 groups,
        // 7168 slots, so at most two go in one batch
        final PlannerRun run = grown(MIB_2, MIB_32);
        final long size = KeyHash.segmentCount(run.map.segmentOf(0));
        assertEquals(512, size);
        final List<MoveBatch> started = rebalance(run);
        assertEquals(List.of(1, 0, 7), List.of(owned(run.map, 0), owned(run.map, 1), owned(run.map, 2)),
            "the bigger group takes its larger share");
        final List<String> moves = started.stream()
            .map(b -> b.source() + "->" + b.target() + " " + java.util.Arrays.toString(b.partitions())).toList();
        // group 1 is 4 over, group 0 3 over: the most over first, two partitions a batch (the cap), one at a time
        // into group 2, the most over again after each
        assertEquals(List.of("1->2 [1, 3]", "0->2 [0, 2]", "1->2 [5, 7]", "0->2 [4]"), moves);
        assertLimits(run);
        assertTrue(run.map.moves().isEmpty());
        assertTrue(MapPlanner.plannedMoves(run.map, run.live.values()).isEmpty());
        for (final MoveBatch b : started)
        {
            assertTrue(b.size() <= 2);
        }
    }

    @Test
    void aPartitionAboveTheSlotCapMovesAlone()
    {
        // segments of 4096 groups (57,344 slots each); arenas 16384, 16384, 262144: targets 1, 0, 7
        final PlannerRun run = grown(MIB_16, MIB_256);
        final MoveBatch b = only(run.step().map());
        assertEquals(1, b.source());
        assertArrayEquals(new int[] {1}, b.partitions(), "4 over, but one partition fills the batch");
    }

    @Test
    void withTheSwitchOffNothingMovesByItself()
    {
        final PlannerRun run = grown(PlannerRun.GEOMETRY, PlannerRun.GEOMETRY);
        run.auto = false;
        assertNull(run.step(), "switch off: no automatic moves");
        assertNull(MapPlanner.next(run.map, run.incarnations, 2, 8, run.live.values(), List.of(), List.of(), null, true),
            "nor with the overloads that plan with it off");
        final List<MoveBatch> dryRun = MapPlanner.plannedMoves(run.map, run.live.values());
        assertEquals(1, dryRun.size(), "the dry run still shows what rule 5 would start");
        // the operator's request still works with it off
        run.requestMove(2, 1);
        final MapPlanner.Plan requested = run.step();
        assertTrue(requested.tookRequest());
        assertEquals(1, only(requested.map()).source());
        // on again: group 1 is the source of a batch and group 2 its target, so nothing more starts
        run.auto = true;
        assertNull(run.step());
        // without the move, on again starts just what the dry run showed
        final PlannerRun other = grown(PlannerRun.GEOMETRY, PlannerRun.GEOMETRY);
        other.auto = false;
        assertNull(other.step());
        other.auto = true;
        assertEquals(dryRun, other.step().map().moves().batches());
    }

    @Test
    void aGroupWithCopyingNodesIsNeitherTargetNorSource()
    {
        // the new group loses a member before any move: it re-replicates from spare 6, taking nothing meanwhile
        final PlannerRun run = grown(PlannerRun.GEOMETRY, PlannerRun.GEOMETRY);
        run.join(6);
        run.leave(5);
        assertEquals(new ReplicaGroup(2, new int[] {4}, new int[0], false), run.step().map().groups().get(2));
        assertEquals(new ReplicaGroup(2, new int[] {4}, new int[] {6}, false), run.step().map().groups().get(2));
        // group 2 counts as zero: groups 0 and 1 at their targets of 4, nothing moves
        assertNull(run.step());
        assertTrue(MapPlanner.plannedMoves(run.map, run.live.values()).isEmpty());
        run.report(6, SyncPhase.BULK).step();
        assertTrue(run.map.groups().get(2).sealed());
        assertNull(run.step(), "nor while sealed");
        run.report(6, SyncPhase.FINAL).step();
        final MoveBatch b = only(run.step().map());
        assertEquals(2, b.target(), "in sync again, it takes its share");

        // an old group re-replicating gives nothing: group 0 loses backup 1 and spare 6 copies into it
        final PlannerRun source = grown(PlannerRun.GEOMETRY, PlannerRun.GEOMETRY);
        source.join(6);
        source.leave(1);
        source.step();
        assertEquals(new ReplicaGroup(0, new int[] {0}, new int[] {6}, false), source.step().map().groups().get(0));
        // group 0 counts as zero: groups 1 and 2 share 8 (4 each) and group 1 holds 4 already; without the rule,
        // targets 3, 3, 2 would move a partition of group 0
        assertNull(source.step());
        assertTrue(MapPlanner.plannedMoves(source.map, source.live.values()).isEmpty());
        source.report(6, SyncPhase.BULK).step();
        source.report(6, SyncPhase.FINAL).step();
        final MoveBatch c = only(source.step().map());
        assertEquals(0, c.source(), "in sync again, it gives its partition");
    }

    @Test
    void atMostFourBatchesInTheMap()
    {
        // R = 1: five groups of four partitions, five spares form five groups (one per map), then every old group is
        // two over and every new one two under: five pairs, four batches
        final PlannerRun run = new PlannerRun(1, 20).join(0, 1, 2, 3, 4);
        run.settle();
        run.auto = true;
        run.join(5, 6, 7, 8, 9);
        for (int g = 5; g < 10; g++)
        {
            assertEquals(g + 1, run.step().map().groups().size());
        }
        final ClusterMap started = run.step().map();
        final List<MoveBatch> batches = started.moves().batches();
        assertEquals(4, batches.size());
        for (int i = 0; i < 4; i++)
        {
            assertEquals(i, batches.get(i).source());
            assertEquals(5 + i, batches.get(i).target());
            assertEquals(2, batches.get(i).size());
            assertEquals(started.epoch() * MovePlanner.IDS_PER_EPOCH + i, batches.get(i).id());
        }
        assertNull(run.step(), "four in the map: the fifth waits");
        walk(run, batches.get(0).id());
        final MoveBatch fifth = run.step().map().moves().batches().get(3);
        assertEquals(4, fifth.source());
        assertEquals(9, fifth.target());
        assertLimits(run);
    }

    @Test
    void noBatchWithoutRoomInTheTargetsArena()
    {
        // group 2's arena taken but for fewer groups than a segment (a retired segment it has not reclaimed)
        final PlannerRun run = grown(PlannerRun.GEOMETRY, PlannerRun.GEOMETRY);
        final long arena = MapPlanner.indexGroups(PlannerRun.GEOMETRY);
        final long size = KeyHash.segmentCount(run.map.segmentOf(0));
        final RetiredSegment held = new RetiredSegment(2, 0, KeyHash.segment(0, arena - size + 1), run.map.epoch(),
            run.map.epoch() * MovePlanner.IDS_PER_EPOCH - 1);
        run.restartFrom(run.map.withMoves(new MapMoves(List.of(), List.of(held))));
        assertTrue(MapPlanner.plannedMoves(run.map, run.live.values()).isEmpty());
        assertNull(run.step(), "no free range of " + size + " groups: nothing starts");
        run.moved(4, held.batch(), MoveState.RECLAIMED).moved(5, held.batch(), MoveState.RECLAIMED);
        assertTrue(run.step().map().moves().isEmpty(), "reclaimed");
        final MoveBatch b = only(run.step().map());
        assertEquals(KeyHash.segment(0, size), b.segment(0));
    }

    @Test
    void countsAtTheFloorOrCeilingOfTheirSharesMoveNothing()
    {
        // R = 1, three groups as creation deals 8 partitions: 3, 3, 2, each arena half free
        final PlannerRun run = new PlannerRun(1, 8).join(0, 1, 2);
        run.settle();
        final long arena = MapPlanner.indexGroups(PlannerRun.GEOMETRY);
        run.restartFrom(run.map.withSegments(MapPlanner.segments(run.map.partitionGroups(),
            new long[] {arena / 2, arena / 2, arena / 2})));
        run.auto = true;
        assertNull(run.step(), "targets 3, 3, 2 met");
        // the operator moves partition 0 to group 2: counts 2, 3, 3 against targets 3, 3, 2, each within one of
        // the exact share 8/3; rule 5 moves nothing back for the rounding
        run.auto = false;
        run.requestMove(2, 0).step();
        walk(run, only(run.map).id());
        assertEquals(List.of(2, 3, 3), List.of(owned(run.map, 0), owned(run.map, 1), owned(run.map, 2)));
        run.auto = true;
        assertTrue(MapPlanner.plannedMoves(run.map, run.live.values()).isEmpty());
        assertNull(run.step());
        // and one more makes group 2 over by 1.33 of its share: one partition goes back, to group 0 (most under)
        run.auto = false;
        run.requestMove(2, 1).step();
        walk(run, only(run.map).id());
        run.auto = true;
        final MoveBatch back = only(run.step().map());
        assertEquals(2, back.source());
        assertEquals(0, back.target());
        assertArrayEquals(new int[] {0}, back.partitions(), "the lowest partition of group 2 not moving");
    }

    @Test
    void theSamePlanFromTheSameInput()
    {
        final PlannerRun one = grown(MIB_2, MIB_32);
        final PlannerRun two = grown(MIB_2, MIB_32);
        final List<MemberInfo> reversed = new ArrayList<>(one.live.values());
        java.util.Collections.reverse(reversed);
        final List<MoveBatch> dryRun = MapPlanner.plannedMoves(one.map, one.live.values());
        assertEquals(dryRun, MapPlanner.plannedMoves(one.map, reversed), "members in any order");
        assertEquals(dryRun, MapPlanner.plannedMoves(two.map, two.live.values()));
        final MapPlanner.Plan a = MapPlanner.next(one.map, one.incarnations, 2, 8, one.live.values(), List.of(),
            List.of(), null, true, true);
        final MapPlanner.Plan b = MapPlanner.next(one.map, one.incarnations, 2, 8, reversed, List.of(), List.of(), null,
            true, true);
        assertEquals(a.map(), b.map());
        assertEquals(a.change(), b.change());
        assertEquals(dryRun, a.map().moves().batches());
        assertEquals(rebalance(one), rebalance(two));
        assertEquals(one.map, two.map);
    }
}
