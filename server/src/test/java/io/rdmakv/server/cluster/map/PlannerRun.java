package io.rdmakv.server.cluster.map;

import io.rdmakv.common.cluster.ClusterMap;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A cluster as the planner sees it, without ZooKeeper: live members, reports, and the map the planner's
 * plans make. Every plan is checked for what any map must be: epoch one above the last, the same after a round
 * trip through the map znode's JSON, and within {@link MapCheck}'s rules (against the map it replaced).
 */
public final class PlannerRun
{
    public static final String GEOMETRY = MemberInfo.geometry(1 << 20, 4096);

    final int replicas;
    final int partitions;
    final Map<Integer, MemberInfo> live = new TreeMap<>();
    final Map<Integer, SyncReport> reports = new TreeMap<>();
    final Map<Integer, MoveReport> moveReports = new TreeMap<>();
    /** The cluster's growth switch, {@code rebalance/auto} (off unless a test turns it on). */
    boolean auto;
    /** The nodes being drained ({@code drain/<id>}). */
    final java.util.Set<Integer> draining = new java.util.TreeSet<>();
    /** The nodes' load reports ({@code load/<id>}). */
    final List<LoadReport> loads = new ArrayList<>();
    /** Batches the coordinator would call stuck (in one phase longer than --move-stuck-ms). */
    java.util.Set<Long> stuck = java.util.Set.of();
    /** The operator's move request, until a plan takes it. */
    MoveRequest request;
    ClusterMap map;
    Map<Integer, Long> incarnations = Map.of();
    /** The last plan as the map znode holds it (with the map it replaced). */
    StoredMap held;
    int failovers;
    final List<MapPlanner.Plan> plans = new ArrayList<>();

    PlannerRun(final int replicas, final int partitions)
    {
        this.replicas = replicas;
        this.partitions = partitions;
    }

    static MemberInfo member(final int id, final long incarnation, final String geometry)
    {
        return new MemberInfo(id, "10.0.0." + (id + 1), 7400, geometry, incarnation);
    }

    PlannerRun join(final int... ids)
    {
        for (final int id : ids)
        {
            live.put(id, member(id, 1000 + id, GEOMETRY));
        }
        return this;
    }

    PlannerRun join(final MemberInfo m)
    {
        live.put(m.id(), m);
        return this;
    }

    PlannerRun leave(final int... ids)
    {
        for (final int id : ids)
        {
            live.remove(id);
        }
        return this;
    }

    PlannerRun report(final int node, final SyncPhase phase)
    {
        reports.put(node, new SyncReport(node, map.groupOfNode(node).id(), map.epoch(), phase));
        return this;
    }

    /** Node {@code node} reports {@code state} for {@code batch} in the current map (beside what it said in it). */
    PlannerRun moved(final int node, final long batch, final MoveState state)
    {
        final MoveReport before = moveReports.get(node);
        final Map<Long, MoveState> batches = new TreeMap<>();
        if (before != null && before.epoch() == map.epoch())
        {
            batches.putAll(before.batches());
        }
        batches.put(batch, state);
        moveReports.put(node, new MoveReport(node, map.epoch(), batches));
        return this;
    }

    /** The operator asks for {@code partitions} to move to group {@code target}. */
    PlannerRun requestMove(final int target, final int... partitions)
    {
        request = new MoveRequest(0, java.util.List.of(new MoveRequest.Wanted(partitions, target, 0)), java.util.List.of());
        return this;
    }

    /** Starts from {@code replaced} instead of the map held (a test's own starting point, as if written so). */
    PlannerRun restartFrom(final ClusterMap replaced)
    {
        map = replaced;
        held = new StoredMap(replaced, incarnations);
        return this;
    }

    /** One call of the planner; the plan (or null) it returned, applied. */
    MapPlanner.Plan step()
    {
        final MapPlanner.Plan plan = MapPlanner.next(map, incarnations, replicas, partitions, live.values(),
            reports.values(), moveReports.values(), request, true, auto, draining, loads, stuck);
        if (plan != null)
        {
            assertEquals(map == null ? 1 : map.epoch() + 1, plan.map().epoch(), "epoch + 1: " + plan.change());
            final StoredMap stored = plan.stored();
            assertEquals(stored, StoredMap.fromJson(stored.toJson()), "JSON round trip");
            assertTrue(!plan.change().isBlank());
            final StoredMap next = stored.after(held);
            final MapCheck.Refusal refusal = MapCheck.check(new ClusterSettings(replicas, partitions), next,
                (int) (plan.map().epoch() - 1), held);
            assertNull(refusal, "every map the planner writes keeps MapCheck's rules: " + plan.change());
            held = next;
            map = plan.map();
            incarnations = plan.incarnations();
            failovers += plan.failovers();
            if (plan.tookRequest())
            {
                request = null;
            }
            plans.add(plan);
        }
        return plan;
    }

    /** {@link #settle}, then the map as the znode holds it. */
    StoredMap settleAndHold()
    {
        settle();
        return held;
    }

    /** Calls the planner until nothing changes (as the coordinator does); the number of new maps. */
    int settle()
    {
        int n = 0;
        while (step() != null)
        {
            n++;
            assertTrue(n < 50, "the planner does not settle: " + plans);
        }
        return n;
    }
}
