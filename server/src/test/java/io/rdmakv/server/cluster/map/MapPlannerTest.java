package io.rdmakv.server.cluster.map;

import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.ClusterNode;
import io.rdmakv.common.cluster.ReplicaGroup;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The coordinator's rules, without ZooKeeper: creation, failover, re-replication, restarts, lost groups. */
class MapPlannerTest
{
    private static ReplicaGroup group(final int id, final int[] members, final int[] copying, final boolean sealed)
    {
        return new ReplicaGroup(id, members, copying, sealed);
    }

    private static int[] ids(final int... ids)
    {
        return ids;
    }

    private static List<Integer> nodeIds(final ClusterMap map)
    {
        return map.nodes().stream().map(ClusterNode::id).toList();
    }

    @Test
    void sparesJoiningOrLeavingKeepTheFenceEpochAndEveryGroupChangeMovesIt()
    {
        final PlannerRun run = new PlannerRun(2, 8).join(0, 1);
        run.settle();
        assertEquals(1, run.map.fenceEpoch());
        run.join(2, 3);
        run.settle();
        assertEquals(List.of(0, 1, 2, 3), nodeIds(run.map));
        assertEquals(1, run.map.fenceEpoch(), "spares joining fence nobody: " + run.plans);
        run.leave(3);
        run.settle();
        assertEquals(1, run.map.fenceEpoch(), "a spare leaving fences nobody");
        final long before = run.map.epoch();
        run.leave(1);
        run.step();
        assertEquals(before + 1, run.map.epoch());
        assertEquals(run.map.epoch(), run.map.fenceEpoch(), "a backup lost (and a spare taken to copy) fences: " +
            run.plans.getLast().change());
    }

    @Test
    void creationMakesGroupsOfRInIdOrderAndLeavesTheRestSpare()
    {
        for (int nodes = 1; nodes <= 4; nodes++)
        {
            for (int replicas = 1; replicas <= 3; replicas++)
            {
                final String what = nodes + " nodes, R = " + replicas;
                final PlannerRun run = new PlannerRun(replicas, 8);
                for (int id = 0; id < nodes; id++)
                {
                    run.join(id);
                }
                final int groups = nodes / replicas;
                assertEquals(groups == 0 ? 0 : 1, run.settle(), what);
                if (groups == 0)
                {
                    assertNull(run.map, what + ": no map until R nodes are live");
                    continue;
                }
                final ClusterMap map = run.map;
                assertEquals(1, map.epoch(), what);
                assertEquals(replicas, map.replicationFactor(), what);
                assertEquals(8, map.partitionCount(), what);
                assertEquals(nodes, map.nodes().size(), what + ": every live node listed, spares too");
                assertEquals(groups, map.groups().size(), what);
                for (int g = 0; g < groups; g++)
                {
                    final int[] members = IntStream.range(g * replicas, (g + 1) * replicas).toArray();
                    assertEquals(group(g, members, ids(), false), map.groups().get(g), what);
                }
                for (int id = groups * replicas; id < nodes; id++)
                {
                    assertNull(map.groupOfNode(id), what + ": " + id + " is a spare");
                }
                for (int p = 0; p < 8; p++)
                {
                    assertEquals(p % groups, map.groupFor(p).id(), what + ": round-robin");
                    assertEquals((p % groups) * replicas, map.nodeFor(p).id(), what + ": the primary serves");
                }
                assertEquals(groups * replicas, run.incarnations.size(), what + ": incarnations of the placed nodes");
            }
        }
    }

    @Test
    void thePlanDependsOnWhatIsThereNotOnTheOrderItIsListedIn()
    {
        final PlannerRun run = new PlannerRun(2, 8).join(0, 1, 2, 3, 4);
        run.settle();
        run.leave(0);
        final List<MemberInfo> live = new ArrayList<>(run.live.values());
        final MapPlanner.Plan plan = MapPlanner.next(run.map, run.incarnations, 2, 8, live, List.of(), true);
        Collections.reverse(live);
        assertEquals(plan, MapPlanner.next(run.map, run.incarnations, 2, 8, live, List.of(), true));
        Collections.shuffle(live, new Random(12));
        assertEquals(plan, MapPlanner.next(run.map, run.incarnations, 2, 8, live, List.of(), true));
    }

    @Test
    void nothingIsCreatedBeforeSettledOrWithFewerThanRNodes()
    {
        final PlannerRun run = new PlannerRun(2, 8).join(0);
        assertNull(MapPlanner.next(null, Map.of(), 2, 8, run.live.values(), List.of(), true), "one node, R = 2");
        run.join(1);
        assertNull(MapPlanner.next(null, Map.of(), 2, 8, run.live.values(), List.of(), false), "not settled");
        assertEquals(1, run.settle());
    }

    @Test
    void creationGroupsOnlyNodesOfEqualGeometry()
    {
        final PlannerRun run = new PlannerRun(2, 8).join(0)
            .join(PlannerRun.member(1, 7, MemberInfo.geometry(2 << 20, 4096))).join(2, 3);
        run.settle();
        assertEquals(List.of(group(0, ids(0, 2), ids(), false)), run.map.groups());
        assertEquals(List.of(0, 1, 2, 3), nodeIds(run.map), "1 and 3 are spares");
        assertNull(run.map.groupOfNode(1));
        assertNull(run.map.groupOfNode(3));
    }

    @Test
    void primaryGoneMakesTheFirstBackupPrimaryAndTheOthersCopying()
    {
        final PlannerRun run = new PlannerRun(3, 8).join(0, 1, 2);
        run.settle();
        run.leave(0);
        assertEquals(1, run.settle());
        assertEquals(group(0, ids(1), ids(2), false), run.map.groups().get(0));
        assertEquals(1, run.failovers);
        assertEquals(1, run.map.nodeFor(0).id());
        assertEquals(List.of(1, 2), nodeIds(run.map), "the gone node is no longer listed");
        assertEquals(Map.of(1, 1001L, 2, 1002L), run.incarnations);
    }

    @Test
    void backupGoneIsRemovedWithoutFailover()
    {
        for (final int gone : ids(1, 2))
        {
            final PlannerRun run = new PlannerRun(3, 8).join(0, 1, 2);
            run.settle();
            run.leave(gone);
            assertEquals(1, run.settle());
            assertArrayEquals(gone == 1 ? ids(0, 2) : ids(0, 1), run.map.groups().get(0).members());
            assertEquals(0, run.map.groups().get(0).copyingCount());
            assertEquals(0, run.failovers);
        }
    }

    @Test
    void primaryAndFirstBackupGoneMakesTheNextInChainPrimary()
    {
        final PlannerRun run = new PlannerRun(4, 8).join(0, 1, 2, 3);
        run.settle();
        run.leave(0, 1);
        run.settle();
        assertEquals(group(0, ids(2), ids(3), false), run.map.groups().get(0));
    }

    @Test
    void copyingNodeGoneIsRemovedAndASealedGroupUnsealed()
    {
        final PlannerRun run = new PlannerRun(2, 8).join(0, 1);
        run.settle();
        run.leave(1);
        run.settle();
        run.join(2);
        run.settle();
        assertEquals(group(0, ids(0), ids(2), false), run.map.groups().get(0));
        // copying, not sealed: removed
        run.leave(2);
        assertEquals(1, run.settle());
        assertEquals(group(0, ids(0), ids(), false), run.map.groups().get(0));
        // copying and sealed: removed, unsealed
        run.join(3);
        run.settle();
        run.report(3, SyncPhase.BULK);
        run.settle();
        assertEquals(group(0, ids(0), ids(3), true), run.map.groups().get(0));
        run.leave(3);
        run.reports.remove(3);
        assertEquals(1, run.settle());
        assertEquals(group(0, ids(0), ids(), false), run.map.groups().get(0));
        assertEquals(0, run.failovers);
    }

    @Test
    void primaryGoneWhileSealedUnsealsAndCopyingStartsOver()
    {
        final PlannerRun run = new PlannerRun(3, 8).join(0, 1, 2);
        run.settle();
        run.leave(2);
        run.join(3);
        run.settle();
        run.report(3, SyncPhase.BULK);
        run.settle();
        assertEquals(group(0, ids(0, 1), ids(3), true), run.map.groups().get(0));
        run.leave(0);
        assertEquals(1, run.settle());
        assertEquals(group(0, ids(1), ids(3), false), run.map.groups().get(0));
    }

    @Test
    void wholeGroupGoneIsLostAndStaysLost()
    {
        final PlannerRun run = new PlannerRun(2, 8).join(0, 1, 2, 3);
        run.settle();
        run.leave(0, 1);
        run.settle();
        final ReplicaGroup lost = run.map.groups().get(0);
        assertTrue(lost.lost());
        assertNull(run.map.nodeFor(0), "partition 0 of the lost group has no node");
        assertEquals(2, run.map.nodeFor(1).id());
        // a new node does not fill the lost group: there is nothing to copy from
        run.join(4);
        run.settle();
        assertTrue(run.map.groups().get(0).lost());
        assertNull(run.map.groupOfNode(4));
        assertEquals(List.of(2, 3, 4), nodeIds(run.map));
        // even the old members coming back (empty) do not
        run.join(0, 1);
        run.settle();
        assertTrue(run.map.groups().get(0).lost());
    }

    @Test
    void lostGroupsCopyingNodesBecomeSpares()
    {
        final PlannerRun run = new PlannerRun(2, 8).join(0, 1);
        run.settle();
        run.leave(1);
        run.join(2);
        run.settle();
        assertEquals(group(0, ids(0), ids(2), false), run.map.groups().get(0));
        run.leave(0);
        run.settle();
        assertEquals(group(0, ids(), ids(), false), run.map.groups().get(0));
        assertEquals(List.of(2), nodeIds(run.map));
        assertEquals(Map.of(), run.incarnations);
    }

    @Test
    void spareCopiesThenIsSealedThenBecomesAMember()
    {
        final PlannerRun run = new PlannerRun(2, 8).join(0, 1, 2);
        run.settle();
        assertNull(run.map.groupOfNode(2), "2 is a spare");
        run.leave(1);
        run.settle();
        assertEquals(group(0, ids(0), ids(2), false), run.map.groups().get(0), "the spare copies");
        assertEquals(1002L, run.incarnations.get(2));
        // a report of another epoch or another group counts for nothing
        run.reports.put(2, new SyncReport(2, 0, run.map.epoch() - 1, SyncPhase.BULK));
        assertEquals(0, run.settle());
        run.reports.put(2, new SyncReport(2, 1, run.map.epoch(), SyncPhase.BULK));
        assertEquals(0, run.settle());
        // a final pass before the seal counts for nothing either
        run.report(2, SyncPhase.FINAL);
        assertEquals(0, run.settle());
        run.report(2, SyncPhase.BULK);
        assertEquals(1, run.settle());
        assertEquals(group(0, ids(0), ids(2), true), run.map.groups().get(0), "sealed");
        final long sealedEpoch = run.map.epoch();
        run.report(2, SyncPhase.FINAL);
        assertEquals(1, run.settle());
        assertEquals(group(0, ids(0, 2), ids(), false), run.map.groups().get(0), "in sync, unsealed");
        assertEquals(sealedEpoch + 1, run.map.epoch());
        assertEquals(0, run.failovers);
    }

    @Test
    void twoCopyingNodesShareTheSealWhenBothAreReady()
    {
        final PlannerRun run = new PlannerRun(3, 8).join(0, 1, 2);
        run.settle();
        run.leave(1, 2);
        run.join(3, 4);
        run.settle();
        assertEquals(group(0, ids(0), ids(3, 4), false), run.map.groups().get(0));
        run.report(3, SyncPhase.BULK);
        run.settle();
        assertTrue(run.map.groups().get(0).sealed());
        // 4 finishes its bulk pass while sealed, 3 its final pass: 3 joins, the seal stays for 4
        run.report(4, SyncPhase.BULK);
        run.report(3, SyncPhase.FINAL);
        run.settle();
        assertEquals(group(0, ids(0, 3), ids(4), true), run.map.groups().get(0));
        run.report(4, SyncPhase.FINAL);
        run.settle();
        assertEquals(group(0, ids(0, 3, 4), ids(), false), run.map.groups().get(0));
    }

    @Test
    void restartedNodeCountsAsGoneThenCopiesAgain()
    {
        final PlannerRun run = new PlannerRun(2, 8).join(0, 1);
        run.settle();
        run.join(PlannerRun.member(1, 4242, PlannerRun.GEOMETRY));
        assertEquals(2, run.settle(), "removed, then back as copying");
        assertEquals(group(0, ids(0), ids(1), false), run.map.groups().get(0));
        assertEquals(4242L, run.incarnations.get(1));
        assertEquals("group 0: member [1] gone", run.plans.get(1).change());
        // the primary restarting is a failover to its backup
        run.report(1, SyncPhase.BULK);
        run.settle();
        run.report(1, SyncPhase.FINAL);
        run.settle();
        assertEquals(group(0, ids(0, 1), ids(), false), run.map.groups().get(0));
        run.join(PlannerRun.member(0, 99, PlannerRun.GEOMETRY));
        run.settle();
        assertEquals(group(0, ids(1), ids(0), false), run.map.groups().get(0));
        assertEquals(1, run.failovers);
    }

    @Test
    void spareOfAnotherGeometryIsNotAdded()
    {
        final PlannerRun run = new PlannerRun(2, 8).join(0, 1);
        run.settle();
        run.leave(1);
        run.join(PlannerRun.member(5, 5, MemberInfo.geometry(1 << 20, 8192)));
        run.settle();
        assertEquals(group(0, ids(0), ids(), false), run.map.groups().get(0));
        assertEquals(List.of(0, 5), nodeIds(run.map), "listed as a spare");
        run.join(6);
        run.settle();
        assertEquals(group(0, ids(0), ids(6), false), run.map.groups().get(0));
    }

    @Test
    void sparesComingAndGoingChangeOnlyTheNodeList()
    {
        final PlannerRun run = new PlannerRun(1, 4).join(0);
        run.settle();
        run.join(1);
        assertEquals(1, run.settle());
        assertEquals(List.of(0, 1), nodeIds(run.map));
        assertEquals(List.of(group(0, ids(0), ids(), false)), run.map.groups());
        run.leave(1);
        assertEquals(1, run.settle());
        assertEquals(List.of(0), nodeIds(run.map));
        assertEquals(0, run.settle(), "nothing changes: null");
    }

    @Test
    void epochsOnlyGrowThroughAWholeHistory()
    {
        final PlannerRun run = new PlannerRun(2, 16).join(0, 1, 2, 3, 4);
        run.settle();
        run.leave(0);
        run.settle();
        run.report(4, SyncPhase.BULK);
        run.settle();
        run.report(4, SyncPhase.FINAL);
        run.settle();
        run.leave(3);
        run.join(5, 6);
        run.settle();
        long last = 0;
        for (final MapPlanner.Plan plan : run.plans)
        {
            assertTrue(plan.map().epoch() > last, run.plans.toString());
            last = plan.map().epoch();
        }
        assertEquals(group(0, ids(1, 4), ids(), false), run.map.groups().get(0));
        assertEquals(group(1, ids(2), ids(5), false), run.map.groups().get(1));
        assertFalse(run.map.isSimple());
        assertEquals(1, run.failovers, "only 0 was a primary");
    }

    @Test
    void storedMapRoundTripsThroughJson()
    {
        final PlannerRun run = new PlannerRun(3, 8).join(0, 1, 2, 3);
        run.settle();
        run.leave(0);
        run.settle();
        final StoredMap stored = new StoredMap(run.map, run.incarnations);
        final StoredMap back = StoredMap.fromJson(stored.toJson());
        assertEquals(run.map, back.map());
        assertEquals(run.map.groups(), back.map().groups());
        assertEquals(run.incarnations, back.incarnations());
    }

    @Test
    void creationSizesSegmentsPerGroupAndLaterMapsKeepThem()
    {
        // 2 groups of 1 MiB nodes (1024 bucket groups each) and 8 partitions: 4 per group, 256 groups each
        final PlannerRun run = new PlannerRun(2, 8).join(0, 1, 2, 3, 4);
        run.settle();
        final long[] created = run.map.segments();
        for (int p = 0; p < 8; p++)
        {
            assertEquals(io.rdmakv.common.hash.KeyHash.segment((p / 2) * 256L, 256), created[p], "partition " + p);
        }
        // a failover, the spare copying, sealed, joining: every map keeps the table (PlannerRun checks each with
        // MapCheck against the map it replaced, which refuses a changed segment)
        run.leave(0);
        run.settle();
        run.report(4, SyncPhase.BULK).settle();
        run.report(4, SyncPhase.FINAL).settle();
        assertTrue(run.map.groupOfNode(4) != null && run.map.groupOfNode(4).contains(4), run.plans.toString());
        assertArrayEquals(created, run.map.segments());
        run.join(5);
        run.settle();
        assertArrayEquals(created, run.map.segments(), "a spare joining");
    }

    @Test
    void segmentsAreSizedByEachGroupsOwnGeometry()
    {
        final PlannerRun run = new PlannerRun(2, 6).join(0, 1)
            .join(PlannerRun.member(2, 7, MemberInfo.geometry(2 << 20, 4096)))
            .join(PlannerRun.member(3, 8, MemberInfo.geometry(2 << 20, 4096)));
        run.settle();
        assertEquals(2, run.map.groups().size());
        // group 0 (1 MiB nodes): 1024 groups over 3 partitions; group 1 (2 MiB nodes): 2048 over 3
        assertEquals(io.rdmakv.common.hash.KeyHash.segment(0, 341), run.map.segmentOf(0));
        assertEquals(io.rdmakv.common.hash.KeyHash.segment(0, 682), run.map.segmentOf(1));
        assertEquals(io.rdmakv.common.hash.KeyHash.segment(682, 682), run.map.segmentOf(3));
        assertEquals(io.rdmakv.common.hash.KeyHash.segment(682, 341), run.map.segmentOf(4));
    }

    @Test
    void creationIsRefusedWhenAPartitionWouldGetFewerThanTwoGroups()
    {
        // 1 MiB nodes have 1024 bucket groups: 4096 partitions on one group cannot have 2 each
        final PlannerRun run = new PlannerRun(2, 4096).join(0, 1);
        final IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(
            IllegalArgumentException.class, () -> MapPlanner.next(null, Map.of(), 2, 4096, run.live.values(),
                List.of(), true));
        assertTrue(e.getMessage().contains("--partitions") && e.getMessage().contains("--memory"), e.getMessage());
        // 512 partitions fit: 2 groups each
        final PlannerRun small = new PlannerRun(2, 512).join(0, 1);
        small.settle();
        assertEquals(io.rdmakv.common.hash.KeyHash.segment(1022, 2), small.map.segmentOf(511));
    }
}
