package io.rdmakv.server.cluster.map;

import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.ClusterNode;
import io.rdmakv.common.cluster.MoveBatch;
import io.rdmakv.common.cluster.ReplicaGroup;
import io.rdmakv.common.hash.KeyHash;
import io.rdmakv.common.layout.RegionGeometry;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The coordinator's rules, as a pure function from what ZooKeeper holds (the current map, the incarnations
 * of the placed nodes, the live members, the copying nodes' reports) to the next map. Deterministic and
 * free of ZooKeeper, so every rule is unit-tested; the coordinator calls {@link #next} until it returns null.
 *
 * <p>One kind of change per call, in this order of priority (each is one epoch):
 * <ol>
 *   <li><b>creation</b> (no map yet, once settled): floor(live / R) groups of R nodes of equal geometry, ids
 *       ascending, partitions round-robin over the groups, the rest spares; epoch 1. Each group's partitions get
 *       contiguous index segments ({@link #segments}) of floor(arena / partitions on the group) bucket groups, the
 *       arena being the group count of its members' index (equal geometry, so equal indexes); below 2 groups
 *       each, creation is refused (an {@link IllegalArgumentException} naming {@code --partitions} and
 *       {@code --memory}, which the coordinator logs before it tries again). Later maps keep the table as it is
 *       (segments never change until partitions move); a spare joins only a group of its own geometry, so its
 *       index holds the group's segments;</li>
 *   <li><b>departures</b>: a placed node that is not live, or live with another incarnation (it restarted
 *       empty), leaves its group. A gone primary is replaced by the first surviving backup (the most
 *       up-to-date, by chain order) and the other backups move to copying (they may lag the new primary); the
 *       group is unsealed (copying nodes start over against the new primary). A group without members is
 *       lost and stays lost (its copying nodes have nothing to copy from: they become spares);</li>
 *   <li><b>reports</b>: a {@link SyncPhase#BULK} report for the current epoch from a copying node seals its
 *       group; a {@link SyncPhase#FINAL} report for the current, sealed epoch moves the node to the end of the
 *       members; the group is unsealed unless another copying node reported a bulk pass in this epoch;</li>
 *   <li><b>move reports</b> ({@link MoveReport}, {@link MovePlanner#advance}): every move batch whose reports are
 *       in advances one phase, all in one map (COPY -> FREEZE -> SWITCH -> OPEN), a retired segment every member
 *       of its group reclaimed is dropped, a batch a node reported failed, or that the coordinator found in one
 *       phase longer than {@code --move-stuck-ms}, is aborted (before SWITCH);</li>
 *   <li><b>spares</b>: a live node in no group joins, as copying, a group with fewer than R nodes whose
 *       primary has its geometry (lowest ids first);</li>
 *   <li><b>drains</b> (the nodes under {@code drain/}, docs/growth.md §12 "Drain"): a draining copying node leaves
 *       its group; then every group with a draining member that owns no partition, is the source or target of no
 *       batch and has no retired segment is dissolved (it leaves the group list, the others keep their ids and
 *       order, its nodes become spares); it fences. A draining spare joins no group (above) and forms none (below),
 *       and a group with a draining member counts as zero capacity in new moves, which run for such groups with the
 *       switch off too;</li>
 *   <li><b>new group</b> (only with the cluster's switch {@code rebalance/auto} on): when at least R live spares
 *       share one geometry, the lowest-id R of them (geometries taken in the order of their lowest spare id) form one new
 *       group, its id one above the highest, members in ascending id order (the first the primary), owning no
 *       partition, no copying node, not sealed; one per map, and none once there are as many groups as
 *       partitions (more would leave one owning nothing for good). It fences, as any change of groups does. The
 *       one case of nodes becoming members without copying first ({@link MapCheck}'s exception to its promotion
 *       rule): an empty group holds nothing that could be lost;</li>
 *   <li><b>new moves</b> (only with the switch {@code rebalance/auto} on; {@link MovePlanner#rebalance}): when the
 *       groups' shares of the partitions are not met ({@link Shares}: target P × arena / Σ arena, the arena standing
 *       for capacity; groups lost, copying or sealed count as zero and neither give nor take), batches start in COPY
 *       from the most over-target group to the most under-target one, lowest partitions first, at most one batch per
 *       source and per target and 4 in the map, 16,384 slots per batch, placed first fit in the target's arena; as
 *       many as those limits allow in one map. A group formed by the rule above gets moves from the next map on;</li>
 *   <li><b>move request</b> ({@link MoveRequest}, {@link MovePlanner#request}): the operator's cancels and new
 *       batches, in COPY, their target segments placed first fit in the target's arena;</li>
 *   <li><b>index growth</b> ({@link LoadReport}, {@link GrowthPlanner}; with the switch off too): a partition whose
 *       segment its group's primary reported at or above the growth threshold in {@code load/<id>} moves, a batch of
 *       its own in COPY, into a segment of twice its groups on the other group with the most free arena that has a
 *       free range that long, within rule 5's limits; nothing when no group has room (the coordinator logs why);</li>
 *   <li><b>nodes</b>: the map's node list is every live member plus every placed node; a change of it alone
 *       (a spare came or went) is a new epoch too, so that every node sees the spares.</li>
 * </ol>
 * Whatever the change, a move before SWITCH whose source or target group changes in the map (a departure, a
 * failover, a spare starting to copy) is aborted in that same map ({@link MovePlanner#abortChanged}); from SWITCH on
 * a move is finished. The fence epoch moves only when groups, members, copying nodes, seals, primaries or placed
 * nodes change ({@link ClusterMap#fencesLike}), or when a batch in FREEZE is abandoned (its source primary's freeze
 * may still be CASing its backups); other move phases, a partition changing group at SWITCH and retired segments
 * fence nobody.
 */
public final class MapPlanner
{
    /**
     * A new map.
     *
     * @param map the map to write, epoch one above the current one's.
     * @param incarnations the incarnation of every node placed in a group of {@code map}.
     * @param change what changed, one line for the log.
     * @param failovers how many groups got a new primary.
     * @param tookRequest whether the map acts on the operator's move request (the coordinator deletes it with the
     *     write).
     */
    public record Plan(ClusterMap map, Map<Integer, Long> incarnations, String change, int failovers,
        boolean tookRequest)
    {
        public Plan
        {
            incarnations = Map.copyOf(incarnations);
        }

        public Plan(final ClusterMap map, final Map<Integer, Long> incarnations, final String change,
            final int failovers)
        {
            this(map, incarnations, change, failovers, false);
        }

        public StoredMap stored()
        {
            return new StoredMap(map, incarnations);
        }
    }

    private MapPlanner()
    {
    }

    /**
     * The next map, or null when nothing changes.
     *
     * @param current the map in ZooKeeper, or null before the cluster has one.
     * @param placedIncarnations the incarnations stored with {@code current} (ignored when it is null).
     * @param replicas the replication factor for creation (a map keeps its own).
     * @param partitions the partition count for creation (a map keeps its own).
     * @param live the members registered now.
     * @param reports the copying nodes' sync reports.
     * @param settled whether the coordinator waited long enough for nodes starting together to register (only
     *     creation waits for it).
     */
    public static Plan next(final ClusterMap current, final Map<Integer, Long> placedIncarnations, final int replicas,
        final int partitions, final Collection<MemberInfo> live, final Collection<SyncReport> reports,
        final boolean settled)
    {
        return next(current, placedIncarnations, replicas, partitions, live, reports, List.of(), null, settled);
    }

    /**
     * The next map, or null when nothing changes, with partition moves: as {@link #next(ClusterMap, Map, int, int,
     * Collection, Collection, boolean)}, and
     *
     * @param moveReports the nodes' move reports ({@code moves/<id>}).
     * @param request the operator's move request ({@code rebalance/request}), or null.
     */
    public static Plan next(final ClusterMap current, final Map<Integer, Long> placedIncarnations, final int replicas,
        final int partitions, final Collection<MemberInfo> live, final Collection<SyncReport> reports,
        final Collection<MoveReport> moveReports, final MoveRequest request, final boolean settled)
    {
        return next(current, placedIncarnations, replicas, partitions, live, reports, moveReports, request, settled,
            false);
    }

    /**
     * The next map, or null when nothing changes, with partition moves and growth planning: as {@link
     * #next(ClusterMap, Map, int, int, Collection, Collection, Collection, MoveRequest, boolean)}, and
     *
     * @param auto the cluster's switch {@code rebalance/auto}: whether the planner grows the cluster by itself (R
     *     spares of one geometry form a new group, and partitions move by shares; off, spares wait to replace failed
     *     replicas and partitions move only when the operator asks).
     */
    public static Plan next(final ClusterMap current, final Map<Integer, Long> placedIncarnations, final int replicas,
        final int partitions, final Collection<MemberInfo> live, final Collection<SyncReport> reports,
        final Collection<MoveReport> moveReports, final MoveRequest request, final boolean settled, final boolean auto)
    {
        return next(current, placedIncarnations, replicas, partitions, live, reports, moveReports, request, settled,
            auto, Set.of());
    }

    /**
     * The next map, or null when nothing changes, with drains: as {@link #next(ClusterMap, Map, int, int, Collection,
     * Collection, Collection, MoveRequest, boolean, boolean)}, and
     *
     * @param draining the ids of the nodes being drained ({@code drain/<id>}, docs/growth.md §12 "Drain"): a group
     *     with a draining member counts as zero capacity in the shares, so rule 5 moves its partitions away (with the
     *     switch off too, then for draining groups only) and takes none to it; once it owns nothing, is in no batch
     *     and has no retired segment it is dissolved (its members become spares); a draining copying node leaves its
     *     group; a draining spare joins no group and forms none.
     */
    public static Plan next(final ClusterMap current, final Map<Integer, Long> placedIncarnations, final int replicas,
        final int partitions, final Collection<MemberInfo> live, final Collection<SyncReport> reports,
        final Collection<MoveReport> moveReports, final MoveRequest request, final boolean settled, final boolean auto,
        final Set<Integer> draining)
    {
        return next(current, placedIncarnations, replicas, partitions, live, reports, moveReports, request, settled,
            auto, draining, List.of());
    }

    /**
     * The next map, or null when nothing changes, with index growth: as {@link #next(ClusterMap, Map, int, int,
     * Collection, Collection, Collection, MoveRequest, boolean, boolean, Set)}, and
     *
     * @param loads the nodes' load reports ({@code load/<id>}): a partition whose segment its group's primary reports
     *     at or above the growth threshold moves into a segment twice its size on another group ({@link
     *     GrowthPlanner}), the last rule, with the switch off too.
     */
    public static Plan next(final ClusterMap current, final Map<Integer, Long> placedIncarnations, final int replicas,
        final int partitions, final Collection<MemberInfo> live, final Collection<SyncReport> reports,
        final Collection<MoveReport> moveReports, final MoveRequest request, final boolean settled, final boolean auto,
        final Set<Integer> draining, final Collection<LoadReport> loads)
    {
        return next(current, placedIncarnations, replicas, partitions, live, reports, moveReports, request, settled,
            auto, draining, loads, Set.of());
    }

    /**
     * As above, with the move batches the coordinator found stuck ({@code stuck}: ids of batches in one phase longer
     * than {@code --move-stuck-ms}): rule 2 aborts those before SWITCH, as it aborts one a node reported failed.
     */
    public static Plan next(final ClusterMap current, final Map<Integer, Long> placedIncarnations, final int replicas,
        final int partitions, final Collection<MemberInfo> live, final Collection<SyncReport> reports,
        final Collection<MoveReport> moveReports, final MoveRequest request, final boolean settled, final boolean auto,
        final Set<Integer> draining, final Collection<LoadReport> loads, final Set<Long> stuck)
    {
        final Map<Integer, MemberInfo> byId = new TreeMap<>();
        for (final MemberInfo m : live)
        {
            byId.put(m.id(), m);
        }
        if (current == null)
        {
            return settled ? create(replicas, partitions, byId) : null;
        }
        final Map<Integer, SyncReport> reportOf = new TreeMap<>();
        for (final SyncReport r : reports)
        {
            final SyncReport other = reportOf.get(r.nodeId());
            if (other == null || other.epoch() < r.epoch())
            {
                reportOf.put(r.nodeId(), r);
            }
        }
        final List<Work> groups = new ArrayList<>();
        for (final ReplicaGroup g : current.groups())
        {
            groups.add(new Work(g));
        }
        final StringBuilder change = new StringBuilder();
        final int failovers = departures(groups, byId, placedIncarnations, reportOf, current.epoch(), change);
        if (change.isEmpty())
        {
            reports(groups, reportOf, current.epoch(), change);
        }
        MovePlanner.Placement placement = MovePlanner.Placement.of(current);
        if (change.isEmpty())
        {
            placement = MovePlanner.advance(current, latest(moveReports), stuck, change);
        }
        if (change.isEmpty())
        {
            spares(groups, current.replicationFactor(), byId, draining, change);
        }
        if (change.isEmpty())
        {
            drainCopying(groups, draining, reportOf, current.epoch(), change);
        }
        if (change.isEmpty())
        {
            dissolve(groups, current, draining, change);
        }
        if (change.isEmpty() && auto)
        {
            newGroup(groups, current.replicationFactor(), current.partitionCount(), byId, draining, change);
        }
        final Set<Integer> drainingGroups = drainingGroups(current, draining);
        if (change.isEmpty() && (auto || !drainingGroups.isEmpty()))
        {
            placement = MovePlanner.rebalance(current, arenas(current, byId), drainingGroups, auto, change);
        }
        boolean tookRequest = false;
        if (change.isEmpty() && request != null)
        {
            final MovePlanner.Started started = MovePlanner.request(current, request, arenas(current, byId),
                drainingGroups, change);
            if (started.placement() != null)
            {
                placement = started.placement();
                tookRequest = true;
            }
        }
        if (change.isEmpty() && !loads.isEmpty())
        {
            placement = GrowthPlanner.grow(current, arenas(current, byId), loads, drainingGroups, change).placement();
        }
        final List<ClusterNode> nodes = nodeList(groups, byId, current);
        if (nodes.isEmpty())
        {
            // nobody live and nothing placed: no map can say so, and no node would read it
            return null;
        }
        if (change.isEmpty())
        {
            if (nodes.equals(current.nodes()))
            {
                return null;
            }
            change.append("nodes ").append(ids(current.nodes())).append(" -> ").append(ids(nodes));
        }
        final List<ReplicaGroup> result = new ArrayList<>(groups.size());
        for (final Work w : groups)
        {
            result.add(w.group());
        }
        // a move before SWITCH whose groups change in this map (a departure, a spare copying) is aborted in it
        final io.rdmakv.common.cluster.MapMoves moves = MovePlanner.abortChanged(current, result, placement.moves(),
            change);
        final ClusterMap next = new ClusterMap(current.epoch() + 1, current.epoch() + 1, current.partitionCount(), nodes,
            current.replicationFactor(), result, placement.partitionGroups(), placement.segments(), moves);
        final Map<Integer, Long> nextIncarnations = incarnations(groups, byId);
        // a change that fences nothing (a spare joining or leaving, a move's phase, a SWITCH) fences nobody; a map
        // that abandons a batch in FREEZE fences, so that no CAS of its freeze lands after a replica cleared MOVING
        final ClusterMap map = next.fencesLike(current) &&
            MapCheck.sameIncarnations(next, nextIncarnations, current, placedIncarnations) &&
            !MovePlanner.abandonsFreeze(current, moves) ?
            next.withFenceEpoch(current.fenceEpoch()) : next;
        return new Plan(map, nextIncarnations, change.toString(), failovers, tookRequest);
    }

    /**
     * Why the operator's {@code request} cannot be acted on over {@code current} now, or null when it can (or there
     * is nothing to do for it): for the coordinator's log, the same rule {@link #next} applies.
     */
    public static String requestRefusal(final ClusterMap current, final Collection<MemberInfo> live,
        final MoveRequest request)
    {
        if (current == null || request == null)
        {
            return null;
        }
        final Map<Integer, MemberInfo> byId = new TreeMap<>();
        for (final MemberInfo m : live)
        {
            byId.put(m.id(), m);
        }
        return requestRefusal(current, live, request, Set.of());
    }

    /**
     * As {@link #requestRefusal(ClusterMap, Collection, MoveRequest)}, with the nodes being drained ({@code draining}):
     * a move to a group with a draining member is refused.
     */
    public static String requestRefusal(final ClusterMap current, final Collection<MemberInfo> live,
        final MoveRequest request, final Set<Integer> draining)
    {
        if (current == null || request == null)
        {
            return null;
        }
        final Map<Integer, MemberInfo> byId = new TreeMap<>();
        for (final MemberInfo m : live)
        {
            byId.put(m.id(), m);
        }
        return MovePlanner.request(current, request, arenas(current, byId), drainingGroups(current, draining),
            new StringBuilder()).refusal();
    }

    /**
     * Why a drain makes no progress in {@code current} when the planner has nothing to do (for the coordinator's
     * log), or null: a group with a draining member still owns partitions but no batch moves any away, so none could
     * start (no other group with capacity, no room at the partitions' segment sizes in the others' arenas, or a group
     * copying or sealed).
     */
    public static String drainStalled(final ClusterMap current, final Set<Integer> draining)
    {
        for (final Integer g : drainingGroups(current, draining))
        {
            int owned = 0;
            for (final int p : current.partitionGroups())
            {
                owned += p == g ? 1 : 0;
            }
            final boolean moving = current.moves().batches().stream().anyMatch(b -> b.source() == g);
            if (owned > 0 && !moving)
            {
                return "the drain of group " + g + " (draining nodes " + draining + ") waits: it owns " + owned +
                    " partition(s) and no batch can start (no other group with capacity, no room in their index " +
                    "arenas at the partitions' segment sizes, or a group copying or sealed)";
            }
        }
        return null;
    }

    /**
     * Why partitions reported over the growth threshold in {@code loads} do not move in {@code current} when the
     * planner has nothing to do (for the coordinator's log), or null: one line per partition that waits ({@link
     * GrowthPlanner.Grown#waits}), e.g. no other group with a free range of twice its segment.
     */
    public static String growthStalled(final ClusterMap current, final Collection<MemberInfo> live,
        final Collection<LoadReport> loads, final Set<Integer> draining)
    {
        if (current == null || loads.isEmpty())
        {
            return null;
        }
        final Map<Integer, MemberInfo> byId = new TreeMap<>();
        for (final MemberInfo m : live)
        {
            byId.put(m.id(), m);
        }
        final List<String> waits = GrowthPlanner.grow(current, arenas(current, byId), loads,
            drainingGroups(current, draining), new StringBuilder()).waits();
        return waits.isEmpty() ? null : "index growth waits: " + String.join("; ", waits);
    }

    /** The ids of {@code map}'s groups with a member among {@code draining} (copying nodes do not count). */
    public static Set<Integer> drainingGroups(final ClusterMap map, final Set<Integer> draining)
    {
        final Set<Integer> result = new TreeSet<>();
        if (map == null || map.isSimple() || draining.isEmpty())
        {
            return result;
        }
        for (final ReplicaGroup g : map.groups())
        {
            for (final int id : g.members())
            {
                if (draining.contains(id))
                {
                    result.add(g.id());
                }
            }
        }
        return result;
    }

    /**
     * The batches rule 5 would start in the map after {@code current} (its switch aside, and if nothing that comes
     * first changes: departures, reports, move advances, spares, a new group), for {@code kvctl rebalance --dry-run}:
     * the same function the planner uses. Empty with no map, or when the shares are met or the limits reached.
     */
    public static List<MoveBatch> plannedMoves(final ClusterMap current,
        final Collection<MemberInfo> live)
    {
        if (current == null)
        {
            return List.of();
        }
        final Map<Integer, MemberInfo> byId = new TreeMap<>();
        for (final MemberInfo m : live)
        {
            byId.put(m.id(), m);
        }
        return MovePlanner.newMoves(current, arenas(current, byId));
    }

    /** Each group's index arena in bucket groups, by the geometry of its live primary (a group without one: none). */
    private static Map<Integer, Long> arenas(final ClusterMap current, final Map<Integer, MemberInfo> live)
    {
        final Map<Integer, Long> arenas = new TreeMap<>();
        for (final ReplicaGroup g : current.groups())
        {
            final MemberInfo primary = g.lost() ? null : live.get(g.primary());
            if (primary != null)
            {
                arenas.put(g.id(), indexGroups(primary.geometry()));
            }
        }
        return arenas;
    }

    /** Each node's newest move report. */
    private static Map<Integer, MoveReport> latest(final Collection<MoveReport> reports)
    {
        final Map<Integer, MoveReport> latest = new TreeMap<>();
        for (final MoveReport r : reports)
        {
            final MoveReport other = latest.get(r.nodeId());
            if (other == null || other.epoch() < r.epoch())
            {
                latest.put(r.nodeId(), r);
            }
        }
        return latest;
    }

    private static Plan create(final int replicas, final int partitions, final Map<Integer, MemberInfo> live)
    {
        // nodes of one geometry, in ascending id order; buckets in the order of their lowest id
        final Map<String, List<Integer>> byGeometry = new LinkedHashMap<>();
        for (final MemberInfo m : live.values())
        {
            byGeometry.computeIfAbsent(m.geometry(), k -> new ArrayList<>()).add(m.id());
        }
        final List<int[]> memberLists = new ArrayList<>();
        for (final List<Integer> ids : byGeometry.values())
        {
            for (int i = 0; i + replicas <= ids.size(); i += replicas)
            {
                memberLists.add(ids.subList(i, i + replicas).stream().mapToInt(Integer::intValue).toArray());
            }
        }
        memberLists.sort((a, b) -> Integer.compare(a[0], b[0]));
        if (memberLists.isEmpty())
        {
            return null;
        }
        // a group beyond the partition count would hold nothing
        final int count = Math.min(memberLists.size(), partitions);
        final List<Work> groups = new ArrayList<>(count);
        for (int g = 0; g < count; g++)
        {
            groups.add(new Work(new ReplicaGroup(g, memberLists.get(g), new int[0], false)));
        }
        final int[] partitionGroups = new int[partitions];
        for (int p = 0; p < partitions; p++)
        {
            partitionGroups[p] = p % count;
        }
        final long[] arenas = new long[count];
        for (int g = 0; g < count; g++)
        {
            arenas[g] = indexGroups(live.get(memberLists.get(g)[0]).geometry());
        }
        final long[] segments = segments(partitionGroups, arenas);
        final List<ClusterNode> nodes = nodeList(groups, live, null);
        final List<ReplicaGroup> result = new ArrayList<>(count);
        for (final Work w : groups)
        {
            result.add(w.group());
        }
        final ClusterMap map = new ClusterMap(1, 1, partitions, nodes, replicas, result, partitionGroups, segments);
        return new Plan(map, incarnations(groups, live), "created: " + result + " spares " + spareIds(groups, nodes), 0);
    }

    /**
     * The segment table for partitions placed as {@code partitionGroups} says (element p: the index of partition p's
     * group), group g's index holding {@code arenas[g]} bucket groups: the partitions of each group, in ascending
     * order, get contiguous segments of floor(arena / partitions on the group) groups from group 0, so none overlap
     * and under one segment's worth of the arena is left over.
     *
     * @throws IllegalArgumentException when a group's partitions would get segments of fewer than 2 groups, saying
     *     how to fix it
     */
    public static long[] segments(final int[] partitionGroups, final long[] arenas)
    {
        final int[] onGroup = new int[arenas.length];
        for (final int g : partitionGroups)
        {
            onGroup[g]++;
        }
        final long[] size = new long[arenas.length];
        for (int g = 0; g < arenas.length; g++)
        {
            if (onGroup[g] == 0)
            {
                continue;
            }
            size[g] = Math.min(arenas[g] / onGroup[g], KeyHash.MAX_SEGMENT_FIELD / onGroup[g]);
            if (size[g] < 2)
            {
                throw new IllegalArgumentException("cannot create the cluster map: replica group " + g + " holds " +
                    onGroup[g] + " partitions and its nodes' index has " + arenas[g] + " bucket groups, fewer than " +
                    "2 per partition; start the nodes with more --memory (the index is about 1/8 of it) or create " +
                    "the cluster with fewer --partitions");
            }
        }
        final long[] next = new long[arenas.length];
        final long[] segments = new long[partitionGroups.length];
        for (int p = 0; p < partitionGroups.length; p++)
        {
            final int g = partitionGroups[p];
            segments[p] = KeyHash.segment(next[g], size[g]);
            next[g] += size[g];
        }
        return segments;
    }

    /** The bucket groups of the index of a node whose member znode gives {@code geometry} ({@code memory:chunk}). */
    static long indexGroups(final String geometry)
    {
        final int colon = geometry.indexOf(':');
        return RegionGeometry.indexGroupCount(Long.parseLong(geometry.substring(0, colon)),
            Integer.parseInt(geometry.substring(colon + 1)));
    }

    private static int departures(final List<Work> groups, final Map<Integer, MemberInfo> live,
        final Map<Integer, Long> placed, final Map<Integer, SyncReport> reports, final long epoch,
        final StringBuilder change)
    {
        int failovers = 0;
        for (final Work w : groups)
        {
            final List<Integer> goneMembers = w.members.stream().filter(id -> gone(id, live, placed)).toList();
            final List<Integer> goneCopying = w.copying.stream().filter(id -> gone(id, live, placed)).toList();
            if (goneMembers.isEmpty() && goneCopying.isEmpty())
            {
                continue;
            }
            final int oldPrimary = w.members.isEmpty() ? -1 : w.members.get(0);
            w.members.removeAll(goneMembers);
            w.copying.removeAll(goneCopying);
            note(change, "group " + w.id + ": " + gone(goneMembers, goneCopying));
            if (w.members.isEmpty())
            {
                if (!w.copying.isEmpty())
                {
                    change.append(", copying ").append(w.copying).append(" to spares");
                }
                w.copying.clear();
                w.sealed = false;
                change.append(", lost");
            }
            else if (goneMembers.contains(oldPrimary))
            {
                failovers++;
                final List<Integer> demoted = new ArrayList<>(w.members.subList(1, w.members.size()));
                w.members.removeAll(demoted);
                w.copying.addAll(demoted);
                w.sealed = false;
                change.append(", ").append(w.members.get(0)).append(" promoted");
                if (!demoted.isEmpty())
                {
                    change.append(", ").append(demoted).append(" to copying");
                }
            }
            else if (w.sealed && !goneCopying.isEmpty() && !bulkDone(w, reports, epoch))
            {
                w.sealed = false;
                change.append(", unsealed");
            }
        }
        return failovers;
    }

    private static void reports(final List<Work> groups, final Map<Integer, SyncReport> reports, final long epoch,
        final StringBuilder change)
    {
        for (final Work w : groups)
        {
            if (w.members.isEmpty())
            {
                continue;
            }
            if (w.sealed)
            {
                final List<Integer> done = w.copying.stream()
                    .filter(id -> reported(reports.get(id), w.id, epoch, SyncPhase.FINAL)).toList();
                if (!done.isEmpty())
                {
                    w.copying.removeAll(done);
                    w.members.addAll(done);
                    w.sealed = bulkDone(w, reports, epoch);
                    note(change, "group " + w.id + ": " + done + " in sync" + (w.sealed ? "" : ", unsealed"));
                }
                else if (w.copying.isEmpty())
                {
                    w.sealed = false;
                    note(change, "group " + w.id + ": nothing copying, unsealed");
                }
            }
            else if (bulkDone(w, reports, epoch))
            {
                w.sealed = true;
                note(change, "group " + w.id + " sealed: " +
                    w.copying.stream().filter(id -> reported(reports.get(id), w.id, epoch, SyncPhase.BULK)).toList() +
                    " bulk copy done");
            }
        }
    }

    private static void spares(final List<Work> groups, final int replicas, final Map<Integer, MemberInfo> live,
        final Set<Integer> draining, final StringBuilder change)
    {
        final Set<Integer> placed = placedIds(groups);
        final List<Integer> spares = new ArrayList<>();
        for (final Integer id : live.keySet())
        {
            if (!placed.contains(id) && !draining.contains(id))
            {
                spares.add(id);
            }
        }
        final Set<String> addresses = new HashSet<>();
        for (final Integer id : placed)
        {
            addresses.add(live.get(id).node().address());
        }
        for (final Work w : groups)
        {
            if (w.members.isEmpty() || !live.containsKey(w.members.get(0)))
            {
                continue;
            }
            final String geometry = live.get(w.members.get(0)).geometry();
            final List<Integer> added = new ArrayList<>();
            for (int i = 0; i < spares.size() && w.members.size() + w.copying.size() < replicas; )
            {
                final MemberInfo spare = live.get(spares.get(i));
                if (spare.geometry().equals(geometry) && addresses.add(spare.node().address()))
                {
                    added.add(spare.id());
                    w.copying.add(spare.id());
                    spares.remove(i);
                }
                else
                {
                    i++;
                }
            }
            if (!added.isEmpty())
            {
                note(change, "group " + w.id + ": spare " + added + " copying");
            }
        }
    }

    /**
     * Rule 4 of docs/growth.md §12: the lowest-id R live spares of one geometry, if there are R, form a new group
     * (appended to {@code groups}) that owns no partition. Spares are taken as {@link #nodeList} lists them: one
     * claiming the address of a placed node, or of a lower-id spare, is not listed and is passed over. The geometry
     * is that of the lowest-id spare among the geometries with R spares. Nothing when the groups are already as
     * many as the partitions.
     */
    private static void newGroup(final List<Work> groups, final int replicas, final int partitions,
        final Map<Integer, MemberInfo> live, final Set<Integer> draining, final StringBuilder change)
    {
        if (groups.size() >= partitions)
        {
            return;
        }
        final Set<Integer> placed = placedIds(groups);
        final Set<String> addresses = new HashSet<>();
        int maxId = -1;
        for (final Work w : groups)
        {
            maxId = Math.max(maxId, w.id);
        }
        for (final Integer id : placed)
        {
            final MemberInfo m = live.get(id);
            if (m != null)
            {
                addresses.add(m.node().address());
            }
        }
        // spares by geometry, in ascending id order; geometries in the order of their lowest spare id
        final Map<String, List<Integer>> byGeometry = new LinkedHashMap<>();
        for (final MemberInfo m : live.values())
        {
            if (!placed.contains(m.id()) && addresses.add(m.node().address()) && !draining.contains(m.id()))
            {
                byGeometry.computeIfAbsent(m.geometry(), k -> new ArrayList<>()).add(m.id());
            }
        }
        for (final Map.Entry<String, List<Integer>> e : byGeometry.entrySet())
        {
            if (e.getValue().size() >= replicas)
            {
                final int[] members = e.getValue().subList(0, replicas).stream().mapToInt(Integer::intValue).toArray();
                final ReplicaGroup formed = new ReplicaGroup(maxId + 1, members, new int[0], false);
                groups.add(new Work(formed));
                note(change, "new group " + formed.id() + " of spares " + java.util.Arrays.toString(members) +
                    " (geometry " + e.getKey() + "), owning no partition");
                return;
            }
        }
    }

    /**
     * A draining node copying into a group leaves it (it becomes a spare): draining it does not drain the group it
     * was joining. The group's seal stays only while another copying node reported its bulk pass in this epoch.
     */
    private static void drainCopying(final List<Work> groups, final Set<Integer> draining,
        final Map<Integer, SyncReport> reports, final long epoch, final StringBuilder change)
    {
        for (final Work w : groups)
        {
            final List<Integer> out = w.copying.stream().filter(draining::contains).toList();
            if (out.isEmpty())
            {
                continue;
            }
            w.copying.removeAll(out);
            final boolean sealed = w.sealed && bulkDone(w, reports, epoch);
            note(change, "group " + w.id + ": copying " + out + " draining, to spares" +
                (w.sealed && !sealed ? ", unsealed" : ""));
            w.sealed = sealed;
        }
    }

    /**
     * The drain's last step (docs/growth.md §12 "Drain"): a group with a draining member that owns no partition in
     * {@code current}, is the source or target of no batch and has no retired segment is dissolved: it leaves the
     * group list (the others keep their ids and order), its members and copying nodes become spares. Every such
     * group in one map.
     */
    private static void dissolve(final List<Work> groups, final ClusterMap current, final Set<Integer> draining,
        final StringBuilder change)
    {
        final Set<Integer> drainingGroups = drainingGroups(current, draining);
        if (drainingGroups.isEmpty())
        {
            return;
        }
        final Set<Integer> busy = new TreeSet<>();
        for (final int g : current.partitionGroups())
        {
            busy.add(g);
        }
        for (final MoveBatch b : current.moves().batches())
        {
            busy.add(b.source());
            busy.add(b.target());
        }
        for (final io.rdmakv.common.cluster.RetiredSegment r : current.moves().retired())
        {
            busy.add(r.group());
        }
        for (final java.util.Iterator<Work> it = groups.iterator(); it.hasNext(); )
        {
            final Work w = it.next();
            if (drainingGroups.contains(w.id) && !busy.contains(w.id) && !w.members.isEmpty())
            {
                it.remove();
                final List<Integer> freed = new ArrayList<>(w.members);
                freed.addAll(w.copying);
                note(change, "group " + w.id + " drained and dissolved: " + freed + " to spares");
            }
        }
    }

    /**
     * Every placed node (from {@code live}, or from {@code current} for one that is gone but still placed),
     * then every live spare whose address no listed node has (two live nodes claiming one address: the lower
     * id is listed).
     */
    private static List<ClusterNode> nodeList(final List<Work> groups, final Map<Integer, MemberInfo> live,
        final ClusterMap current)
    {
        final Map<Integer, ClusterNode> nodes = new TreeMap<>();
        final Set<String> addresses = new HashSet<>();
        for (final Integer id : placedIds(groups))
        {
            final MemberInfo m = live.get(id);
            final ClusterNode node = m != null ? m.node() : current.node(id);
            nodes.put(id, node);
            addresses.add(node.address());
        }
        for (final MemberInfo m : live.values())
        {
            if (!nodes.containsKey(m.id()) && addresses.add(m.node().address()))
            {
                nodes.put(m.id(), m.node());
            }
        }
        return List.copyOf(nodes.values());
    }

    private static Map<Integer, Long> incarnations(final List<Work> groups, final Map<Integer, MemberInfo> live)
    {
        final Map<Integer, Long> result = new TreeMap<>();
        for (final Integer id : placedIds(groups))
        {
            result.put(id, live.get(id).incarnation());
        }
        return result;
    }

    private static boolean gone(final int id, final Map<Integer, MemberInfo> live, final Map<Integer, Long> placed)
    {
        final MemberInfo m = live.get(id);
        final Long incarnation = placed == null ? null : placed.get(id);
        return m == null || incarnation == null || incarnation != m.incarnation();
    }

    /** Whether a copying node of the group reported a bulk pass for this epoch: it is ready for the seal. */
    private static boolean bulkDone(final Work w, final Map<Integer, SyncReport> reports, final long epoch)
    {
        return w.copying.stream().anyMatch(id -> reported(reports.get(id), w.id, epoch, SyncPhase.BULK));
    }

    private static boolean reported(final SyncReport r, final int group, final long epoch, final SyncPhase phase)
    {
        return r != null && r.group() == group && r.epoch() == epoch && r.phase() == phase;
    }

    private static Set<Integer> placedIds(final List<Work> groups)
    {
        final Set<Integer> placed = new TreeSet<>();
        for (final Work w : groups)
        {
            placed.addAll(w.members);
            placed.addAll(w.copying);
        }
        return placed;
    }

    private static String gone(final List<Integer> members, final List<Integer> copying)
    {
        return (members.isEmpty() ? "" : "member " + members + " gone") +
            (members.isEmpty() || copying.isEmpty() ? "" : ", ") + (copying.isEmpty() ? "" : "copying " + copying + " gone");
    }

    private static List<Integer> ids(final List<ClusterNode> nodes)
    {
        return nodes.stream().map(ClusterNode::id).toList();
    }

    private static List<Integer> spareIds(final List<Work> groups, final List<ClusterNode> nodes)
    {
        final Set<Integer> placed = placedIds(groups);
        return ids(nodes).stream().filter(id -> !placed.contains(id)).toList();
    }

    private static void note(final StringBuilder change, final String what)
    {
        change.append(change.isEmpty() ? "" : "; ").append(what);
    }

    /** A group being changed. */
    private static final class Work
    {
        final int id;
        final List<Integer> members = new ArrayList<>();
        final List<Integer> copying = new ArrayList<>();
        boolean sealed;

        Work(final ReplicaGroup g)
        {
            id = g.id();
            for (final int m : g.members())
            {
                members.add(m);
            }
            for (final int c : g.copying())
            {
                copying.add(c);
            }
            sealed = g.sealed();
        }

        ReplicaGroup group()
        {
            return new ReplicaGroup(id, members.stream().mapToInt(Integer::intValue).toArray(),
                copying.stream().mapToInt(Integer::intValue).toArray(), sealed);
        }
    }
}
