package io.rdmakv.server.cluster.map;

import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.MapMoves;
import io.rdmakv.common.cluster.MoveBatch;
import io.rdmakv.common.cluster.MovePhase;
import io.rdmakv.common.cluster.ReplicaGroup;
import io.rdmakv.common.hash.KeyHash;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The planner's index-growth rule (docs/growth.md §11, the move to another group; the last of {@link MapPlanner}'s
 * rules), pure and deterministic: a partition whose segment a node reported at or above the growth threshold
 * ({@link LoadReport}, {@code load/<id>}) moves, in a batch of its own, into a segment of twice its groups on another
 * group with a free range that long, the group with the most free arena first (ties by lower id).
 *
 * <p>An entry counts only when its node is the primary of the partition's group in the map and the segment it names
 * is the partition's there (a report of a segment since moved or grown is stale), and the partition is in no batch.
 * The move limits are rule 5's: at most one batch per source and per target, {@value MovePlanner#MAX_BATCHES} in the
 * map; groups lost, copying or sealed, or without a live primary (arena unknown), neither give nor take, and a group
 * being drained takes nothing. The most loaded segment goes first. What cannot start is said in {@link Grown#waits}
 * (for the coordinator's log). Local growth (a bigger segment on the same group) is not built: the target is always
 * another group.
 */
final class GrowthPlanner
{
    /** What the rule makes: the placement (unchanged when nothing starts) and why each candidate waits. */
    record Grown(MovePlanner.Placement placement, List<String> waits)
    {
    }

    private GrowthPlanner()
    {
    }

    /**
     * The rule over {@code current} with the nodes' load reports {@code loads}, the groups' arenas (bucket groups by
     * group id; missing: no live primary) and the groups with a draining member; each batch started noted in
     * {@code change}.
     */
    static Grown grow(final ClusterMap current, final Map<Integer, Long> arenas, final Collection<LoadReport> loads,
        final Set<Integer> draining, final StringBuilder change)
    {
        final List<String> waits = new ArrayList<>();
        if (current.isSimple() || !current.hasSegments() || loads.isEmpty())
        {
            return new Grown(MovePlanner.Placement.of(current), waits);
        }
        final List<LoadReport.Over> candidates = candidates(current, loads);
        final MapMoves moves = current.moves();
        final Set<Integer> sources = moves.sourceGroups();
        final Set<Integer> targets = moves.targetGroups();
        final long next = current.epoch() + 1;
        final Map<Integer, ArenaSpace> spaces = new TreeMap<>();
        final List<MoveBatch> started = new ArrayList<>();
        for (final LoadReport.Over o : candidates)
        {
            final int p = o.partition();
            final ReplicaGroup source = current.groupFor(p);
            final long size = 2 * KeyHash.segmentCount(o.segment());
            if (moves.batches().size() + started.size() >= MovePlanner.MAX_BATCHES)
            {
                waits.add(o + ": waits, " + MovePlanner.MAX_BATCHES + " batches are in the map");
                continue;
            }
            if (sources.contains(source.id()))
            {
                waits.add(o + ": waits, group " + source.id() + " is the source of a batch already");
                continue;
            }
            if (MovePlanner.unready(source) != null)
            {
                waits.add(o + ": waits, " + MovePlanner.unready(source));
                continue;
            }
            int best = -1;
            long bestFree = -1;
            for (final ReplicaGroup g : current.groups())
            {
                final Long arena = arenas.get(g.id());
                if (g.id() == source.id() || arena == null || MovePlanner.unready(g) != null ||
                    draining.contains(g.id()) || targets.contains(g.id()))
                {
                    continue;
                }
                final ArenaSpace space = spaces.computeIfAbsent(g.id(), t -> MovePlanner.space(current, t, arena));
                if (space.largestFree() >= size && space.freeGroups() > bestFree)
                {
                    best = g.id();
                    bestFree = space.freeGroups();
                }
            }
            if (best < 0)
            {
                waits.add(o + ": no other group can take a segment of " + size + " groups now (none with a free " +
                    "range that long in its index arena, or each copying, sealed, draining, lost or the target of a " +
                    "batch already)");
                continue;
            }
            final long segment = spaces.get(best).allocate(size);
            final MoveBatch b = new MoveBatch(next * MovePlanner.IDS_PER_EPOCH + started.size(), source.id(), best,
                MovePhase.COPY, next, new int[] {p}, new long[] {segment});
            started.add(b);
            sources.add(source.id());
            targets.add(best);
        }
        if (started.isEmpty())
        {
            return new Grown(MovePlanner.Placement.of(current), waits);
        }
        final List<MoveBatch> batches = new ArrayList<>(moves.batches());
        batches.addAll(started);
        final StringBuilder did = new StringBuilder("index growth:");
        for (int i = 0; i < started.size(); i++)
        {
            final MoveBatch b = started.get(i);
            did.append(i == 0 ? " " : "; ").append(b).append(" started (segment of ")
                .append(KeyHash.segmentCount(current.segmentOf(b.partition(0)))).append(" -> ")
                .append(KeyHash.segmentCount(b.segment(0))).append(" groups)");
        }
        change.append(change.isEmpty() ? "" : "; ").append(did);
        return new Grown(new MovePlanner.Placement(current.partitionGroups(), current.segments(),
            new MapMoves(batches, moves.retired())), waits);
    }

    /**
     * The entries of {@code loads} that count (their node the primary of the partition's group, the segment the
     * partition's, the partition in no batch), the most loaded first, then by partition; one per partition.
     */
    private static List<LoadReport.Over> candidates(final ClusterMap current, final Collection<LoadReport> loads)
    {
        final Map<Integer, LoadReport.Over> byPartition = new TreeMap<>();
        for (final LoadReport r : loads)
        {
            for (final LoadReport.Over o : r.over())
            {
                final int p = o.partition();
                if (p >= current.partitionCount() || current.moves().batchOf(p) != null)
                {
                    continue;
                }
                final ReplicaGroup g = current.groupFor(p);
                if (g == null || g.lost() || g.primary() != r.nodeId() || current.segmentOf(p) != o.segment())
                {
                    continue;
                }
                byPartition.put(p, o);
            }
        }
        final List<LoadReport.Over> result = new ArrayList<>(byPartition.values());
        result.sort(Comparator.comparingDouble((LoadReport.Over o) -> -(double)o.used() / o.slots())
            .thenComparingInt(LoadReport.Over::partition));
        return result;
    }
}
