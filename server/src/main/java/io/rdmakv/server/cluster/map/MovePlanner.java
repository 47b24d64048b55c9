package io.rdmakv.server.cluster.map;

import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.MapMoves;
import io.rdmakv.common.cluster.MoveBatch;
import io.rdmakv.common.cluster.MovePhase;
import io.rdmakv.common.cluster.ReplicaGroup;
import io.rdmakv.common.cluster.RetiredSegment;
import io.rdmakv.common.hash.KeyHash;
import io.rdmakv.common.layout.BucketDescriptor;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * {@link MapPlanner}'s rules for partition moves (docs/growth.md §7, §9, §12), pure and deterministic:
 * <ul>
 *   <li>{@link #advance}: every batch whose reports are in, in one map: COPY -> FREEZE on the target primary's
 *       {@code bulk}; FREEZE -> SWITCH on its {@code final} (the partitions go to the target at their target
 *       segments, the source retires their segments); SWITCH -> OPEN (the record vanishes) on the source primary's
 *       {@code marked}, or at once when the source group is lost (no primary serves from it); a retired segment is
 *       dropped once every member of its group reported it {@code reclaimed}; a batch before SWITCH that a node of
 *       either group reported {@code failed} is aborted. Reports count only for the current epoch;</li>
 *   <li>{@link #abortChanged}: a batch before SWITCH whose source or target group changes in the map being made
 *       (a departure, a failover, a spare starting to copy, a seal) or has copying nodes or a seal is aborted in the
 *       same map; from SWITCH on a batch is finished, never aborted;</li>
 *   <li>{@link #request}: the operator's request: cancels (batches before SWITCH are aborted) and new batches, one
 *       per source group and target, in COPY, their target segments placed first fit in the target's arena
 *       ({@link ArenaSpace}) clear of its owned, incoming and retired segments. All of a request or none of it: a
 *       request that cannot be acted on (a partition moving elsewhere, a group copying, sealed or lost, no room,
 *       an unknown group or batch) is refused with the reason, and nothing of it is planned;</li>
 *   <li>{@link #rebalance} (rule 5, with the switch {@code rebalance/auto} on): new batches by shares
 *       ({@link Shares}, {@link #newMoves}): from over-target groups to under-target ones, at most one batch per
 *       source and per target, {@value #MAX_BATCHES} in the map, {@value #MAX_BATCH_SLOTS} slots per batch, placed
 *       as requested ones are.</li>
 * </ul>
 * A batch id is the epoch of the map that starts it times {@value #IDS_PER_EPOCH} plus its index in that map, so no
 * id is used twice in the cluster's life.
 */
final class MovePlanner
{
    /** Batch ids per epoch: at most this many batches start in one map. */
    static final long IDS_PER_EPOCH = 1000;
    /** Rule 5: at most this many batches in a map (the operator's and the planner's together). */
    static final int MAX_BATCHES = 4;
    /** Rule 5: at most this many index slots in one batch (its partitions' segments); one partition above moves alone. */
    static final long MAX_BATCH_SLOTS = 16_384;

    /** Where the partitions are and what moves, as a plan leaves them. */
    record Placement(int[] partitionGroups, long[] segments, MapMoves moves)
    {
        static Placement of(final ClusterMap map)
        {
            return new Placement(map.partitionGroups(), map.segments(), map.moves());
        }
    }

    /** What a request makes: a placement, or why nothing. */
    record Started(Placement placement, String refusal)
    {
    }

    private MovePlanner()
    {
    }

    /**
     * Rule 2 of growth.md §12 over {@code current} with the nodes' latest reports ({@code reports}, by node id); notes
     * what changed in {@code change}; the placement unchanged when nothing is due.
     */
    static Placement advance(final ClusterMap current, final Map<Integer, MoveReport> reports,
        final StringBuilder change)
    {
        return advance(current, reports, Set.of(), change);
    }

    /**
     * As {@link #advance(ClusterMap, Map, StringBuilder)}, aborting too every batch before SWITCH whose id is in
     * {@code stuck} (the coordinator's: in one phase longer than {@code --move-stuck-ms}).
     */
    static Placement advance(final ClusterMap current, final Map<Integer, MoveReport> reports, final Set<Long> stuck,
        final StringBuilder change)
    {
        final long epoch = current.epoch();
        final long next = epoch + 1;
        final int[] partitionGroups = current.partitionGroups();
        final long[] segments = current.segments();
        final List<MoveBatch> batches = new ArrayList<>();
        final List<RetiredSegment> retired = new ArrayList<>();
        for (final MoveBatch b : current.moves().batches())
        {
            final ReplicaGroup source = current.groupById(b.source());
            final ReplicaGroup target = current.groupById(b.target());
            if (b.phase().beforeSwitch() && (said(reports, source, b.id(), epoch, MoveState.FAILED) ||
                said(reports, target, b.id(), epoch, MoveState.FAILED)))
            {
                note(change, b + " aborted: a copy failed");
                continue;
            }
            if (b.phase().beforeSwitch() && stuck.contains(b.id()))
            {
                note(change, b + " aborted: no phase change within --move-stuck-ms");
                continue;
            }
            switch (b.phase())
            {
                case COPY ->
                {
                    final boolean bulk = said(reports, target.primary(), b.id(), epoch, MoveState.BULK);
                    batches.add(bulk ? b.advancedTo(MovePhase.FREEZE, next) : b);
                    if (bulk)
                    {
                        note(change, b + " -> freeze");
                    }
                }
                case FREEZE ->
                {
                    if (said(reports, target.primary(), b.id(), epoch, MoveState.FINAL))
                    {
                        for (int i = 0; i < b.size(); i++)
                        {
                            final int p = b.partition(i);
                            retired.add(new RetiredSegment(b.source(), p, segments[p], next, b.id()));
                            partitionGroups[p] = b.target();
                            segments[p] = b.segment(i);
                        }
                        batches.add(b.advancedTo(MovePhase.SWITCH, next));
                        note(change, b + " -> switch");
                    }
                    else
                    {
                        batches.add(b);
                    }
                }
                case SWITCH ->
                {
                    if (source.lost() || said(reports, source.primary(), b.id(), epoch, MoveState.MARKED))
                    {
                        note(change, b + " open" + (source.lost() ? " (its source group is lost)" : ""));
                    }
                    else
                    {
                        batches.add(b);
                    }
                }
                default -> throw new IllegalStateException("phase " + b.phase());
            }
        }
        for (final RetiredSegment r : current.moves().retired())
        {
            final ReplicaGroup group = current.groupById(r.group());
            final boolean reclaimed = current.moves().batch(r.batch()) == null && !group.lost() &&
                Arrays.stream(group.members()).allMatch(id -> said(reports, id, r.batch(), epoch, MoveState.RECLAIMED));
            if (reclaimed)
            {
                note(change, r + " reclaimed");
            }
            else
            {
                retired.add(r);
            }
        }
        return new Placement(partitionGroups, segments, new MapMoves(batches, retired));
    }

    /**
     * {@code moves} without the batches before SWITCH whose source or target group in {@code groups} (the map being
     * made) differs from {@code current}'s, or has copying nodes or a seal; each abort noted in {@code change}.
     */
    static MapMoves abortChanged(final ClusterMap current, final List<ReplicaGroup> groups, final MapMoves moves,
        final StringBuilder change)
    {
        final List<MoveBatch> kept = new ArrayList<>();
        for (final MoveBatch b : moves.batches())
        {
            if (b.phase().beforeSwitch() && (unsettled(current, groups, b.source()) ||
                unsettled(current, groups, b.target())))
            {
                note(change, b + " aborted: group " + (unsettled(current, groups, b.source()) ? b.source() : b.target()) +
                    " changed");
                continue;
            }
            kept.add(b);
        }
        return kept.size() == moves.batches().size() ? moves : new MapMoves(kept, moves.retired());
    }

    /**
     * The operator's {@code request} over {@code current}, whose groups have arenas of {@code arenas} bucket groups
     * (by group id; a group missing has no live primary to size it by).
     */
    static Started request(final ClusterMap current, final MoveRequest request, final Map<Integer, Long> arenas,
        final StringBuilder change)
    {
        return request(current, request, arenas, Set.of(), change);
    }

    /**
     * As {@link #request(ClusterMap, MoveRequest, Map, StringBuilder)}; a move to one of {@code draining} (groups with
     * a draining member) is refused: a drain would move it away again.
     */
    static Started request(final ClusterMap current, final MoveRequest request, final Map<Integer, Long> arenas,
        final Set<Integer> draining, final StringBuilder change)
    {
        final long next = current.epoch() + 1;
        final MapMoves moves = current.moves();
        final List<MoveBatch> batches = new ArrayList<>(moves.batches());
        final StringBuilder did = new StringBuilder();
        for (final long id : request.cancel())
        {
            final MoveBatch b = moves.batch(id);
            if (b == null || !b.phase().beforeSwitch())
            {
                return new Started(null, "cannot cancel batch " + id + ": " + (b == null ? "no such batch" :
                    b + " is past FREEZE (from SWITCH on a move is finished)"));
            }
            batches.remove(b);
            note(did, b + " cancelled");
        }
        if (!request.cancel().isEmpty() && request.moves().isEmpty())
        {
            note(change, did.toString());
            return new Started(new Placement(current.partitionGroups(), current.segments(),
                new MapMoves(batches, moves.retired())), null);
        }
        final Map<Integer, ArenaSpace> spaces = new TreeMap<>();
        final Map<String, List<Integer>> newBatches = new LinkedHashMap<>();
        final Map<Integer, Long> sizes = new TreeMap<>();
        for (final MoveRequest.Wanted w : request.moves())
        {
            final ReplicaGroup target = current.groupById(w.target());
            if (target == null || target.lost())
            {
                return new Started(null, "cannot move " + w + ": group " + w.target() + (target == null ?
                    " does not exist" : " is lost"));
            }
            if (draining.contains(w.target()))
            {
                return new Started(null, "cannot move " + w + ": group " + w.target() + " is being drained (kvctl " +
                    "drain): it gives partitions away and takes none");
            }
            for (final int p : w.partitions())
            {
                if (p < 0 || p >= current.partitionCount())
                {
                    return new Started(null, "cannot move " + w + ": partition " + p + " outside 0.." +
                        (current.partitionCount() - 1));
                }
                final MoveBatch moving = moves.batchOf(p);
                if (moving != null)
                {
                    if (moving.target() == w.target() && batches.contains(moving))
                    {
                        continue; // under way
                    }
                    return new Started(null, "cannot move " + w + ": partition " + p + " is moving (" + moving + ")");
                }
                final ReplicaGroup source = current.groupFor(p);
                if (source.id() == w.target())
                {
                    continue; // there already
                }
                final String unready = unready(source) != null ? unready(source) : unready(target);
                if (unready != null)
                {
                    return new Started(null, "cannot move " + w + ": " + unready + " (moves wait for copy and seal " +
                        "to finish)");
                }
                final List<Integer> batch = newBatches.computeIfAbsent(source.id() + ">" + w.target(),
                    k -> new ArrayList<>());
                if (batch.contains(p))
                {
                    return new Started(null, "cannot move " + w + ": partition " + p + " is asked for twice");
                }
                batch.add(p);
                sizes.put(p, w.groups() != 0 ? w.groups() : KeyHash.segmentCount(current.segmentOf(p)));
            }
        }
        final List<Integer> seen = new ArrayList<>();
        newBatches.values().forEach(seen::addAll);
        if (seen.size() != seen.stream().distinct().count())
        {
            return new Started(null, "cannot move " + request.moves() + ": a partition is asked to two groups");
        }
        if (newBatches.size() > IDS_PER_EPOCH)
        {
            return new Started(null, "cannot start " + newBatches.size() + " batches in one map, at most " +
                IDS_PER_EPOCH);
        }
        int k = 0;
        for (final Map.Entry<String, List<Integer>> e : newBatches.entrySet())
        {
            final int source = Integer.parseInt(e.getKey().substring(0, e.getKey().indexOf('>')));
            final int target = Integer.parseInt(e.getKey().substring(e.getKey().indexOf('>') + 1));
            final Long arena = arenas.get(target);
            if (arena == null)
            {
                return new Started(null, "cannot move partitions " + e.getValue() + " to group " + target +
                    ": its primary is not registered, so its index size is unknown");
            }
            final ArenaSpace space = spaces.computeIfAbsent(target, t -> space(current, t, arena));
            final int[] partitions = e.getValue().stream().mapToInt(Integer::intValue).toArray();
            final long[] targets = new long[partitions.length];
            for (int i = 0; i < partitions.length; i++)
            {
                targets[i] = space.allocate(sizes.get(partitions[i]));
                if (targets[i] < 0)
                {
                    return new Started(null, "cannot move partition " + partitions[i] + " to group " + target +
                        ": its index arena of " + arena + " bucket groups has no free range of " +
                        sizes.get(partitions[i]) + " (the longest is " + space.largestFree() + ")");
                }
            }
            final MoveBatch b = new MoveBatch(next * IDS_PER_EPOCH + k++, source, target, MovePhase.COPY, next,
                partitions, targets);
            batches.add(b);
            note(did, b + " started");
        }
        if (did.isEmpty())
        {
            return new Started(null, null);
        }
        note(change, did.toString());
        return new Started(new Placement(current.partitionGroups(), current.segments(),
            new MapMoves(batches, moves.retired())), null);
    }

    /**
     * Rule 5 of growth.md §12 over {@code current}, whose groups have arenas of {@code arenas} bucket groups (by
     * group id; a group missing has no live primary): the batches of {@link #newMoves} added in COPY, each noted in
     * {@code change}; the placement unchanged when none starts.
     */
    static Placement rebalance(final ClusterMap current, final Map<Integer, Long> arenas, final StringBuilder change)
    {
        return rebalance(current, arenas, Set.of(), true, change);
    }

    /**
     * Rule 5 with drains: as {@link #rebalance(ClusterMap, Map, StringBuilder)}, the groups in {@code draining} at
     * zero capacity; with {@code auto} off only those groups give partitions away.
     */
    static Placement rebalance(final ClusterMap current, final Map<Integer, Long> arenas, final Set<Integer> draining,
        final boolean auto, final StringBuilder change)
    {
        final List<MoveBatch> started = newMoves(current, arenas, draining, auto);
        if (started.isEmpty())
        {
            return Placement.of(current);
        }
        final List<MoveBatch> batches = new ArrayList<>(current.moves().batches());
        batches.addAll(started);
        final StringBuilder did = new StringBuilder();
        for (final MoveBatch b : started)
        {
            note(did, b + " started");
        }
        note(change, "rebalance: " + did + " (partitions/target: " + shares(current, arenas, draining) + ")" +
            (draining.isEmpty() ? "" : " draining groups " + draining + (auto ? "" : ", switch off: drains only")));
        return new Placement(current.partitionGroups(), current.segments(),
            new MapMoves(batches, current.moves().retired()));
    }

    /**
     * The batches rule 5 starts over {@code current} (arenas as for {@link #rebalance}), in COPY, ids (epoch + 1) ×
     * {@value #IDS_PER_EPOCH} + k: while the shares are not met ({@link Shares#balanced}) and fewer
     * than {@value #MAX_BATCHES} batches are in the map, from the most over-target group that is the source of no
     * batch to the most under-target one that is the target of none (ties by lower id), as many partitions as the
     * one is over and the other under, lowest first, none in a batch, at most {@value #MAX_BATCH_SLOTS} slots (one
     * partition above that moves alone), each placed first fit in the target's arena ({@link ArenaSpace}; one that
     * does not fit is passed over, and a pair for which none fits is not tried again). Empty for a map without a
     * segment table.
     */
    static List<MoveBatch> newMoves(final ClusterMap current, final Map<Integer, Long> arenas)
    {
        return newMoves(current, arenas, Set.of(), true);
    }

    /**
     * As {@link #newMoves(ClusterMap, Map)}, the groups in {@code draining} (a member being drained) at zero capacity
     * (target 0: they give all they own and take nothing); with {@code auto} off (the switch), only those groups are
     * sources, so a drain works with the switch off and moves nothing else. Empty when no group with capacity is
     * left to take partitions.
     */
    static List<MoveBatch> newMoves(final ClusterMap current, final Map<Integer, Long> arenas,
        final Set<Integer> draining, final boolean auto)
    {
        if (current.isSimple() || !current.hasSegments())
        {
            return List.of();
        }
        final Shares shares = shares(current, arenas, draining);
        if (!shares.hasCapacity())
        {
            return List.of();
        }
        final MapMoves moves = current.moves();
        final Set<Integer> sources = moves.sourceGroups();
        final Set<Integer> targets = moves.targetGroups();
        final long next = current.epoch() + 1;
        final Map<Integer, ArenaSpace> spaces = new TreeMap<>();
        final Set<Integer> taken = new TreeSet<>();
        final Set<List<Integer>> tried = new HashSet<>();
        final List<MoveBatch> started = new ArrayList<>();
        while (moves.batches().size() + started.size() < MAX_BATCHES && !shares.balanced())
        {
            final int[] pair = pair(shares, sources, targets, tried, auto ? null : draining);
            if (pair == null)
            {
                break;
            }
            final int source = pair[0];
            final int target = pair[1];
            final ArenaSpace space = spaces.computeIfAbsent(target, t -> space(current, t, arenas.get(t)));
            final int wanted = Math.min(shares.over(source), -shares.over(target));
            final List<Integer> partitions = new ArrayList<>();
            final List<Long> segments = new ArrayList<>();
            long slots = 0;
            for (int p = 0; p < current.partitionCount() && partitions.size() < wanted; p++)
            {
                if (current.groupFor(p).id() != source || moves.batchOf(p) != null || taken.contains(p))
                {
                    continue;
                }
                final long size = KeyHash.segmentCount(current.segmentOf(p));
                final long more = size * BucketDescriptor.SLOTS_PER_GROUP;
                if (!partitions.isEmpty() && slots + more > MAX_BATCH_SLOTS)
                {
                    break;
                }
                final long segment = space.allocate(size);
                if (segment < 0)
                {
                    continue; // no room for this one; a smaller one may fit
                }
                partitions.add(p);
                segments.add(segment);
                slots += more;
            }
            if (partitions.isEmpty())
            {
                tried.add(List.of(source, target));
                continue;
            }
            final MoveBatch b = new MoveBatch(next * IDS_PER_EPOCH + started.size(), source, target, MovePhase.COPY,
                next, partitions.stream().mapToInt(Integer::intValue).toArray(),
                segments.stream().mapToLong(Long::longValue).toArray());
            started.add(b);
            taken.addAll(partitions);
            sources.add(source);
            targets.add(target);
            shares.move(source, target, partitions.size());
        }
        return started;
    }

    /**
     * The shares in {@code current} of the groups that may give or take partitions: not lost, no copying node, no
     * seal, an arena known (a live primary); each group's arena is its capacity.
     */
    static Shares shares(final ClusterMap current, final Map<Integer, Long> arenas)
    {
        return shares(current, arenas, Set.of());
    }

    /** As {@link #shares(ClusterMap, Map)}, the groups in {@code draining} at capacity 0. */
    static Shares shares(final ClusterMap current, final Map<Integer, Long> arenas, final Set<Integer> draining)
    {
        final Map<Integer, Long> capacities = new TreeMap<>();
        for (final ReplicaGroup g : current.groups())
        {
            final Long arena = arenas.get(g.id());
            if (unready(g) == null && arena != null && arena > 0)
            {
                capacities.put(g.id(), draining.contains(g.id()) ? 0L : arena);
            }
        }
        return new Shares(current, capacities);
    }

    /**
     * The most over-target group that is the source of no batch and the most under-target one that is the target
     * of none (ties by lower id), not in {@code tried}; null when no such pair is left.
     */
    private static int[] pair(final Shares shares, final Set<Integer> sources, final Set<Integer> targets,
        final Set<List<Integer>> tried, final Set<Integer> onlyFrom)
    {
        final List<Integer> over = new ArrayList<>();
        final List<Integer> under = new ArrayList<>();
        for (final Integer g : shares.groups())
        {
            if (shares.over(g) > 0 && !sources.contains(g) && (onlyFrom == null || onlyFrom.contains(g)))
            {
                over.add(g);
            }
            if (shares.over(g) < 0 && !targets.contains(g))
            {
                under.add(g);
            }
        }
        // stable sorts of ascending ids: ties stay by lower id
        over.sort((a, b) -> Integer.compare(shares.over(b), shares.over(a)));
        under.sort((a, b) -> Integer.compare(shares.over(a), shares.over(b)));
        for (final Integer s : over)
        {
            for (final Integer t : under)
            {
                if (!tried.contains(List.of(s, t)))
                {
                    return new int[] {s, t};
                }
            }
        }
        return null;
    }

    /**
     * Whether {@code next} drops a batch that is in FREEZE in {@code current} (an abort after the source primary may
     * have begun to freeze): such a map must fence, so that the freeze's sessions with the source's backups are
     * fenced before those backups clear MOVING.
     */
    static boolean abandonsFreeze(final ClusterMap current, final MapMoves next)
    {
        for (final MoveBatch b : current.moves().batches())
        {
            if (b.phase() == MovePhase.FREEZE && next.batch(b.id()) == null)
            {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether {@code next} (of any later epoch) drops a batch that is in FREEZE in {@code before} while its partitions
     * stay on the source group: an abort after the freeze may have begun ({@link #abandonsFreeze}), as a node that may
     * have missed maps between the two sees it (a batch that went on through SWITCH has its partitions on the target).
     */
    static boolean abandonedFreeze(final ClusterMap before, final ClusterMap next)
    {
        if (before.isSimple() || next.isSimple())
        {
            return false;
        }
        for (final MoveBatch b : before.moves().batches())
        {
            if (b.phase() == MovePhase.FREEZE && next.moves().batch(b.id()) == null &&
                next.groupFor(b.partition(0)) != null && next.groupFor(b.partition(0)).id() == b.source())
            {
                return true;
            }
        }
        return false;
    }

    /** Group {@code target}'s arena with everything it owns, receives or retired taken. */
    static ArenaSpace space(final ClusterMap map, final int target, final long arena)
    {
        final ArenaSpace space = new ArenaSpace(arena);
        for (int p = 0; p < map.partitionCount(); p++)
        {
            if (map.groupFor(p).id() == target)
            {
                space.take(map.segmentOf(p));
            }
        }
        for (final MoveBatch b : map.moves().batches())
        {
            if (b.target() == target && b.phase().beforeSwitch())
            {
                for (int i = 0; i < b.size(); i++)
                {
                    space.take(b.segment(i));
                }
            }
        }
        for (final RetiredSegment r : map.moves().retired())
        {
            if (r.group() == target)
            {
                space.take(r.segment());
            }
        }
        return space;
    }

    static String unready(final ReplicaGroup g)
    {
        if (g.lost())
        {
            return "group " + g.id() + " is lost";
        }
        if (g.copyingCount() > 0 || g.sealed())
        {
            return "group " + g.id() + (g.sealed() ? " is sealed" : " has copying nodes " + Arrays.toString(g.copying()));
        }
        return null;
    }

    private static boolean unsettled(final ClusterMap current, final List<ReplicaGroup> groups, final int id)
    {
        final ReplicaGroup before = current.groupById(id);
        for (final ReplicaGroup g : groups)
        {
            if (g.id() == id)
            {
                return !g.equals(before) || unready(g) != null;
            }
        }
        return true;
    }

    private static boolean said(final Map<Integer, MoveReport> reports, final ReplicaGroup group, final long batch,
        final long epoch, final MoveState state)
    {
        if (group == null)
        {
            return false;
        }
        for (final int id : group.members())
        {
            if (said(reports, id, batch, epoch, state))
            {
                return true;
            }
        }
        return false;
    }

    private static boolean said(final Map<Integer, MoveReport> reports, final int node, final long batch,
        final long epoch, final MoveState state)
    {
        final MoveReport r = node < 0 ? null : reports.get(node);
        return r != null && r.state(batch, epoch) == state;
    }

    private static void note(final StringBuilder change, final String what)
    {
        if (!what.isEmpty())
        {
            change.append(change.isEmpty() ? "" : "; ").append(what);
        }
    }
}
