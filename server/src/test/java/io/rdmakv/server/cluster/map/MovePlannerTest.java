package io.rdmakv.server.cluster.map;

import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.MoveBatch;
import io.rdmakv.common.cluster.MovePhase;
import io.rdmakv.common.cluster.RetiredSegment;
import io.rdmakv.common.hash.KeyHash;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The planner's move rules (growth.md §7, §9, §12; {@link MovePlanner}): a batch walks COPY -> FREEZE -> SWITCH ->
 * OPEN on its reports, its retired segment goes when reclaimed, departures, failed reports and cancels abort it
 * before SWITCH and never after; requests are planned first fit or refused saying why. Every map is checked by
 * {@link PlannerRun#step} against {@link MapCheck}, move rules included.
 */
class MovePlannerTest
{
    private PlannerRun run;
    /** Each partition's segment size: half of what creation gave, so every group has half its arena free. */
    private long size;
    private long arena;

    /** Groups 0 [0, 1] and 1 [2, 3]; 8 partitions, even ones on group 0; segments packed in each arena's first half. */
    @BeforeEach
    void formed()
    {
        run = new PlannerRun(2, 8).join(0, 1, 2, 3);
        run.settle();
        final ClusterMap created = run.map;
        assertEquals(2, created.groups().size());
        arena = MapPlanner.indexGroups(PlannerRun.GEOMETRY);
        final long[] halves = MapPlanner.segments(created.partitionGroups(), new long[] {arena / 2, arena / 2});
        size = KeyHash.segmentCount(halves[0]);
        run.restartFrom(created.withSegments(halves));
    }

    private MoveBatch only()
    {
        assertEquals(1, run.map.moves().batches().size(), run.map.toString());
        return run.map.moves().batches().get(0);
    }

    @Test
    void aRequestedMoveWalksItsPhasesOnItsReportsFencingNobody()
    {
        final long fence = run.map.fenceEpoch();
        final long[] before = run.map.segments();
        run.requestMove(1, 0);
        assertNotNull(run.step());
        assertNull(run.request, "the plan took the request");
        final MoveBatch copy = only();
        assertEquals(MovePhase.COPY, copy.phase());
        assertEquals(run.map.epoch(), copy.phaseEpoch());
        assertEquals(run.map.epoch() * MovePlanner.IDS_PER_EPOCH, copy.id());
        assertEquals(0, copy.source());
        assertEquals(1, copy.target());
        // first fit in group 1's arena: its own segments fill the first half
        assertEquals(KeyHash.segment(arena / 2, size), copy.segment(0));
        assertEquals(0, run.map.groupFor(0).id(), "in COPY the partition stays on its group");
        assertNull(run.step(), "nothing until the target reports");
        // a bulk report from a backup, or from the primary for another epoch, does not count
        run.moved(3, copy.id(), MoveState.BULK);
        assertNull(run.step());
        run.moveReports.put(2, new MoveReport(2, run.map.epoch() - 1, java.util.Map.of(copy.id(), MoveState.BULK)));
        assertNull(run.step());
        run.moved(2, copy.id(), MoveState.BULK);
        run.step();
        assertEquals(MovePhase.FREEZE, only().phase());
        run.moved(2, copy.id(), MoveState.FINAL);
        run.step();
        final ClusterMap switched = run.map;
        assertEquals(MovePhase.SWITCH, only().phase());
        assertEquals(1, switched.groupFor(0).id(), "at SWITCH the partition is the target's");
        assertEquals(2, switched.nodeFor(0).id());
        assertEquals(copy.segment(0), switched.segmentOf(0));
        assertEquals(List.of(new RetiredSegment(0, 0, before[0], switched.epoch(), copy.id())),
            switched.moves().retired());
        assertNull(run.step(), "open waits for the source primary's marked");
        run.moved(0, copy.id(), MoveState.MARKED);
        run.step();
        assertTrue(run.map.moves().batches().isEmpty(), "OPEN: the record is gone");
        assertEquals(1, run.map.moves().retired().size(), "the source keeps its retired segment until reclaimed");
        run.moved(0, copy.id(), MoveState.RECLAIMED);
        assertNull(run.step(), "every member of the source reclaims");
        run.moved(1, copy.id(), MoveState.RECLAIMED);
        run.step();
        assertTrue(run.map.moves().isEmpty());
        assertEquals(1, run.map.groupFor(0).id());
        for (final MapPlanner.Plan plan : run.plans)
        {
            assertEquals(fence, plan.map().fenceEpoch(), "no move fences: " + plan.change());
        }
        assertEquals(6, run.plans.size(), "COPY, FREEZE, SWITCH, OPEN, reclaim: one map each (after creation)");
        // the request is done: asking again plans nothing
        run.requestMove(1, 0);
        assertNull(run.step());
    }

    @Test
    void everyBatchWhoseReportsAreInAdvancesInOneMap()
    {
        run.request = new MoveRequest(0, List.of(new MoveRequest.Wanted(new int[] {0}, 1, 0),
            new MoveRequest.Wanted(new int[] {1, 3}, 0, 0)), List.of());
        run.step();
        assertEquals(2, run.map.moves().batches().size());
        final MoveBatch a = run.map.moves().batches().get(0);
        final MoveBatch b = run.map.moves().batches().get(1);
        assertArrayEquals(new int[] {1, 3}, b.partitions());
        assertEquals(a.id() + 1, b.id());
        run.moved(2, a.id(), MoveState.BULK).moved(0, b.id(), MoveState.BULK);
        run.step();
        assertTrue(run.map.moves().batches().stream().allMatch(x -> x.phase() == MovePhase.FREEZE));
        // and one whose report is not in stays
        run.moved(2, a.id(), MoveState.FINAL);
        run.step();
        assertEquals(MovePhase.SWITCH, run.map.moves().batch(a.id()).phase());
        assertEquals(MovePhase.FREEZE, run.map.moves().batch(b.id()).phase());
    }

    @Test
    void aDepartureBeforeSwitchAbortsTheMoveInTheFailoverMap()
    {
        // the target's primary leaves in COPY
        run.requestMove(1, 0).step();
        final MoveBatch copy = only();
        run.leave(2);
        final MapPlanner.Plan failover = run.step();
        assertTrue(failover.map().moves().batches().isEmpty(), failover.change());
        assertEquals(1, failover.failovers());
        assertTrue(failover.change().contains(copy + " aborted"), failover.change());
        assertEquals(0, failover.map().groupFor(0).id());
        assertEquals(failover.map().epoch(), failover.map().fenceEpoch(), "the failover fences, as always");
        // a spare joins group 1 as copying: no new move while it copies, the request is refused saying why
        run.join(4);
        assertEquals(1, run.step().map().groups().get(1).copyingCount());
        run.requestMove(1, 0);
        assertNull(run.step());
        assertTrue(MapPlanner.requestRefusal(run.map, run.live.values(), run.request).contains("copying"),
            MapPlanner.requestRefusal(run.map, run.live.values(), run.request));
    }

    @Test
    void aSpareStartingToCopyIntoAGroupOfAMoveAbortsIt()
    {
        // group 1 loses its backup (no failover, nothing to copy yet): a move into it may start
        run.leave(3).step();
        run.requestMove(1, 0).step();
        final MoveBatch copy = only();
        run.join(4);
        final MapPlanner.Plan spare = run.step();
        assertArrayEquals(new int[] {4}, spare.map().groups().get(1).copying());
        assertTrue(spare.map().moves().batches().isEmpty(), "aborted in the map that makes 4 copying: " + spare.change());
        assertTrue(spare.change().contains(copy + " aborted: group 1 changed"), spare.change());
    }

    @Test
    void theSourcesPrimaryLeavingInFreezeAbortsToo()
    {
        run.requestMove(1, 0).step();
        run.moved(2, only().id(), MoveState.BULK).step();
        assertEquals(MovePhase.FREEZE, only().phase());
        run.leave(0);
        final MapPlanner.Plan failover = run.step();
        assertTrue(failover.map().moves().batches().isEmpty(), failover.change());
        assertEquals(1, failover.map().groupFor(0).primary());
    }

    @Test
    void fromSwitchOnADepartureKeepsTheMoveAndTheNewPrimaryFinishesIt()
    {
        run.requestMove(1, 0).step();
        final long id = only().id();
        run.moved(2, id, MoveState.BULK).step();
        run.moved(2, id, MoveState.FINAL).step();
        assertEquals(MovePhase.SWITCH, only().phase());
        run.moved(0, id, MoveState.MARKED);
        run.leave(0);
        final MapPlanner.Plan failover = run.step();
        assertEquals(MovePhase.SWITCH, only().phase(), "a move is finished from SWITCH on: " + failover.change());
        assertEquals(1, failover.map().groupFor(0).id());
        // the old primary's marked was for the epoch before: the new primary (1) must mark and say so
        assertNull(run.step());
        run.moved(1, id, MoveState.MARKED).step();
        assertTrue(run.map.moves().batches().isEmpty());
    }

    @Test
    void aFailedReportOrACancelAbortsBeforeSwitchAndACancelAfterIsRefused()
    {
        run.requestMove(1, 0).step();
        run.moved(2, only().id(), MoveState.FAILED);
        final MapPlanner.Plan aborted = run.step();
        assertTrue(aborted.map().moves().batches().isEmpty(), aborted.change());
        assertTrue(aborted.change().contains("aborted: a copy failed"), aborted.change());
        // a cancel
        run.requestMove(1, 2).step();
        final long id = only().id();
        run.request = new MoveRequest(0, List.of(), List.of(id));
        final MapPlanner.Plan cancelled = run.step();
        assertTrue(cancelled.map().moves().batches().isEmpty(), cancelled.change());
        assertTrue(cancelled.tookRequest());
        // from SWITCH on a cancel is refused and changes nothing
        run.requestMove(1, 4).step();
        final long late = only().id();
        run.moved(2, late, MoveState.BULK).step();
        run.moved(2, late, MoveState.FINAL).step();
        run.request = new MoveRequest(0, List.of(), List.of(late));
        assertNull(run.step());
        assertTrue(MapPlanner.requestRefusal(run.map, run.live.values(), run.request).contains("past FREEZE"));
        // a failed report after SWITCH changes nothing either
        run.moved(2, late, MoveState.FAILED);
        assertNull(run.step());
    }

    @Test
    void aBatchTheCoordinatorFindsStuckIsAbortedBeforeSwitchOnlyAndInFreezeFences()
    {
        final long fence = run.map.fenceEpoch();
        run.requestMove(1, 0).step();
        run.stuck = Set.of(only().id());
        final MapPlanner.Plan atCopy = run.step();
        assertTrue(atCopy.map().moves().batches().isEmpty(), atCopy.change());
        assertTrue(atCopy.change().contains("aborted: no phase change within --move-stuck-ms"), atCopy.change());
        assertEquals(fence, atCopy.map().fenceEpoch(), "nothing was frozen: nobody is fenced");
        // in FREEZE: aborted, and the abort fences (the source primary may still be CASing its backups)
        run.stuck = Set.of();
        run.requestMove(1, 2).step();
        final long freeze = only().id();
        run.moved(2, freeze, MoveState.BULK).step();
        assertEquals(MovePhase.FREEZE, only().phase());
        run.stuck = Set.of(freeze);
        final MapPlanner.Plan atFreeze = run.step();
        assertTrue(atFreeze.map().moves().batches().isEmpty(), atFreeze.change());
        assertEquals(atFreeze.map().epoch(), atFreeze.map().fenceEpoch(), "the abort in FREEZE fences");
        // from SWITCH on a batch is finished whatever: a stuck one changes nothing
        run.stuck = Set.of();
        run.requestMove(1, 4).step();
        final long late = only().id();
        run.moved(2, late, MoveState.BULK).step();
        run.moved(2, late, MoveState.FINAL).step();
        assertEquals(MovePhase.SWITCH, only().phase());
        run.stuck = Set.of(late);
        assertNull(run.step(), "a batch in SWITCH is not aborted");
        // another batch's id changes nothing
        run.stuck = Set.of(late + 1);
        run.moved(0, late, MoveState.MARKED).step();
        assertTrue(run.map.moves().batches().isEmpty(), "the batch opened");
    }

    @Test
    void anAbortInCopyFencesNobodyButAnAbortInFreezeFences()
    {
        final long fence = run.map.fenceEpoch();
        run.requestMove(1, 0).step();
        run.moved(2, only().id(), MoveState.FAILED);
        final MapPlanner.Plan atCopy = run.step();
        assertTrue(atCopy.map().moves().batches().isEmpty(), atCopy.change());
        assertEquals(fence, atCopy.map().fenceEpoch(), "nothing was frozen: nobody is fenced");
        // in FREEZE the source primary may still be CASing its backups: the abort fences them from it
        run.requestMove(1, 2).step();
        run.moved(2, only().id(), MoveState.BULK).step();
        assertEquals(MovePhase.FREEZE, only().phase());
        run.moved(0, only().id(), MoveState.FAILED);
        final MapPlanner.Plan atFreeze = run.step();
        assertTrue(atFreeze.map().moves().batches().isEmpty(), atFreeze.change());
        assertEquals(atFreeze.map().epoch(), atFreeze.map().fenceEpoch(), "the abort in FREEZE fences");
        // a cancel in FREEZE too
        run.requestMove(1, 4).step();
        run.moved(2, only().id(), MoveState.BULK).step();
        run.request = new MoveRequest(0, List.of(), List.of(only().id()));
        final MapPlanner.Plan cancelled = run.step();
        assertTrue(cancelled.map().moves().batches().isEmpty(), cancelled.change());
        assertEquals(cancelled.map().epoch(), cancelled.map().fenceEpoch(), "the cancel in FREEZE fences");
    }

    @Test
    void aRequestIsRefusedWithoutRoomOrForAMovingPartitionAndNothingOfItStarts()
    {
        // a segment larger than the free half of group 1's arena
        run.request = new MoveRequest(0, List.of(new MoveRequest.Wanted(new int[] {0}, 1, arena / 2 + 1)), List.of());
        assertNull(run.step());
        final String room = MapPlanner.requestRefusal(run.map, run.live.values(), run.request);
        assertTrue(room.contains("no free range of " + (arena / 2 + 1)), room);
        // the free half holds only so many segments of the partition's size: a request for more starts none
        final int fit = (int) ((arena - arena / 2) / size);
        run.request = new MoveRequest(0, List.of(new MoveRequest.Wanted(new int[] {0, 2, 4, 6}, 1, 0)), List.of());
        if (fit < 4)
        {
            assertNull(run.step(), "all or nothing");
        }
        run.requestMove(1, 0).step();
        run.requestMove(1, 2, 0);
        run.request = new MoveRequest(0, List.of(new MoveRequest.Wanted(new int[] {0}, 0, 0)), List.of());
        assertNull(run.step());
        assertTrue(MapPlanner.requestRefusal(run.map, run.live.values(), run.request).contains("is moving"));
        // a group that does not exist
        run.requestMove(7, 2);
        assertNull(run.step());
        assertTrue(MapPlanner.requestRefusal(run.map, run.live.values(), run.request).contains("does not exist"));
    }

    @Test
    void targetSegmentsAvoidOwnedIncomingAndRetiredOnesAndPlanningIsDeterministic()
    {
        run.requestMove(1, 0).step();
        final long first = only().segment(0);
        run.requestMove(1, 2);
        final MapPlanner.Plan again = MapPlanner.next(run.map, run.incarnations, 2, 8, run.live.values(),
            run.reports.values(), run.moveReports.values(), run.request, true);
        assertEquals(again, MapPlanner.next(run.map, run.incarnations, 2, 8, run.live.values(), run.reports.values(),
            run.moveReports.values(), run.request, true), "the same inputs, the same plan");
        run.step();
        final long second = run.map.moves().batchOf(2).segment(0);
        assertEquals(KeyHash.segment(KeyHash.segmentBase(first) + size, size), second, "after the incoming one");
        // a partition back to group 0 goes past group 0's retired segment of partition 0 once that one switched
        final long id = run.map.moves().batchOf(0).id();
        run.moved(2, id, MoveState.BULK).step();
        run.moved(2, id, MoveState.FINAL).step();
        run.moved(0, id, MoveState.MARKED).step();
        run.requestMove(0, 1).step();
        final long back = run.map.moves().batchOf(1).segment(0);
        assertFalse(KeyHash.segmentBase(back) < arena / 2, "not over group 0's own or retired segments: " +
            KeyHash.segmentBase(back));
    }

    @Test
    void theArenaAllocatorIsFirstFit()
    {
        final ArenaSpace space = new ArenaSpace(100);
        space.take(KeyHash.segment(0, 10));
        space.take(KeyHash.segment(20, 10));
        space.take(KeyHash.segment(25, 10));
        assertEquals(KeyHash.segment(10, 10), space.allocate(10), "the gap that fits");
        assertEquals(KeyHash.segment(35, 20), space.allocate(20), "past overlapping ranges");
        assertEquals(45, space.largestFree());
        assertEquals(-1, space.allocate(46));
        assertEquals(KeyHash.segment(55, 45), space.allocate(45));
        assertEquals(-1, space.allocate(2));
    }
}
