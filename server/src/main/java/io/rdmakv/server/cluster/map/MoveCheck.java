package io.rdmakv.server.cluster.map;

import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.MapMoves;
import io.rdmakv.common.cluster.MoveBatch;
import io.rdmakv.common.cluster.MovePhase;
import io.rdmakv.common.cluster.RetiredSegment;
import io.rdmakv.common.hash.KeyHash;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * {@link MapCheck}'s rules for partition moves (docs/growth.md §12), against the map replaced ({@code before}) where
 * there is one. In the order checked:
 * <ul>
 *   <li>{@link MapRefusal#MOVE_SEGMENT} (one map): a target segment of fewer than 2 groups, or an owned, incoming
 *       (target of a move before SWITCH) or retired segment of one group overlapping another of that group, an
 *       incoming one among them (owned and retired ones alone: {@link MapRefusal#SEGMENTS}). Whether it lies inside
 *       the target's arena is its nodes' check before they apply the map ({@code IndexSegments#misfit}): the map
 *       does not say how big a node's index is;</li>
 *   <li>{@link MapRefusal#MOVE_START}: a batch appears other than in COPY, entered at this epoch, from the group
 *       its partitions are on to another group of the map before (not one new in this map), for partitions with no
 *       move in the map before;</li>
 *   <li>{@link MapRefusal#MOVE_PHASE}: a batch changes its groups, partitions or segments, goes back or skips a
 *       phase, or its phase epoch is not the epoch it entered its phase;</li>
 *   <li>{@link MapRefusal#MOVE_END}: a batch vanishes and its partitions are not where that leaves them: from COPY or
 *       FREEZE (an abort) on the source at their old segments, from SWITCH (OPEN) on the target at the target's;</li>
 *   <li>{@link MapRefusal#PLACEMENT}: a partition changes group or segment other than from FREEZE to SWITCH of its
 *       batch, onto the target at the batch's segment;</li>
 *   <li>{@link MapRefusal#RETIRED}: a retired segment appears other than as the source segment of a partition
 *       switching in this map (same group, batch and segment, switch epoch this one), a switching partition's source
 *       segment is not retired, a retired segment changes, or one is dropped while its batch is still in SWITCH
 *       (a group reclaims only after OPEN; that every member reported it reclaimed is the planner's rule, the map
 *       cannot show it).</li>
 * </ul>
 */
final class MoveCheck
{
    private MoveCheck()
    {
    }

    /** The overlap rules within one map (segments of at least 2 groups already checked for owned ones). */
    static MapCheck.Refusal segments(final ClusterMap map)
    {
        if (!map.hasSegments())
        {
            return null;
        }
        final List<Held> held = new ArrayList<>();
        for (int p = 0; p < map.partitionCount(); p++)
        {
            held.add(new Held(map.groupFor(p).id(), map.segmentOf(p), "partition " + p + "'s segment", false, p));
        }
        for (final MoveBatch b : map.moves().batches())
        {
            for (int i = 0; i < b.size(); i++)
            {
                if (KeyHash.segmentCount(b.segment(i)) < 2)
                {
                    return new MapCheck.Refusal(MapRefusal.MOVE_SEGMENT, b + ": partition " + b.partition(i) +
                        "'s target segment has " + KeyHash.segmentCount(b.segment(i)) + " groups, fewer than 2");
                }
                if (b.phase().beforeSwitch())
                {
                    held.add(new Held(b.target(), b.segment(i), b + "'s target segment of partition " + b.partition(i),
                        true, -1));
                }
            }
        }
        for (final RetiredSegment r : map.moves().retired())
        {
            held.add(new Held(r.group(), r.segment(), "partition " + r.partition() + "'s retired segment (batch " +
                r.batch() + ")", false, -1));
        }
        held.sort(Comparator.comparingInt(Held::group).thenComparingLong(h -> KeyHash.segmentBase(h.segment)));
        for (int i = 1; i < held.size(); i++)
        {
            final Held a = held.get(i - 1);
            final Held b = held.get(i);
            if (a.group == b.group && KeyHash.segmentBase(b.segment) < KeyHash.segmentBase(a.segment) +
                KeyHash.segmentCount(a.segment))
            {
                if (a.partition >= 0 && b.partition >= 0)
                {
                    return new MapCheck.Refusal(MapRefusal.SEGMENTS, "partitions " + a.partition + " and " +
                        b.partition + " of group " + a.group + " have overlapping index segments (" +
                        segment(a.segment) + " and " + segment(b.segment) + ")");
                }
                return new MapCheck.Refusal(a.incoming || b.incoming ? MapRefusal.MOVE_SEGMENT : MapRefusal.SEGMENTS,
                    a.what + " (" + segment(a.segment) + ") and " + b.what + " (" + segment(b.segment) +
                    ") overlap on group " + a.group);
            }
        }
        return null;
    }

    /** The rules from {@code before} to {@code after} (epoch one above). */
    static MapCheck.Refusal change(final ClusterMap before, final ClusterMap after)
    {
        final long epoch = after.epoch();
        final MapMoves was = before.moves();
        final MapMoves is = after.moves();
        for (final MoveBatch b : is.batches())
        {
            final MoveBatch old = was.batch(b.id());
            final MapCheck.Refusal refusal = old == null ? start(before, after, b) : advance(old, b, epoch);
            if (refusal != null)
            {
                return refusal;
            }
        }
        for (final MoveBatch old : was.batches())
        {
            if (is.batch(old.id()) == null)
            {
                final boolean open = old.phase() == MovePhase.SWITCH;
                for (int i = 0; i < old.size(); i++)
                {
                    final int p = old.partition(i);
                    final int group = open ? old.target() : old.source();
                    final long segment = open ? old.segment(i) : before.segmentOf(p);
                    if (after.groupFor(p).id() != group || after.segmentOf(p) != segment)
                    {
                        return new MapCheck.Refusal(MapRefusal.MOVE_END, old + " vanishes (" +
                            (open ? "OPEN" : "an abort") + ") but partition " + p + " is on group " +
                            after.groupFor(p).id() + " at " + segment(after.segmentOf(p)) + ", not on group " + group +
                            " at " + segment(segment));
                    }
                }
            }
        }
        for (int p = 0; p < after.partitionCount(); p++)
        {
            if (before.groupFor(p).id() == after.groupFor(p).id() && before.segmentOf(p) == after.segmentOf(p))
            {
                continue;
            }
            final MoveBatch b = is.batchOf(p);
            final MoveBatch old = b == null ? null : was.batch(b.id());
            final boolean switched = b != null && old != null && old.phase() == MovePhase.FREEZE &&
                b.phase() == MovePhase.SWITCH && before.groupFor(p).id() == b.source() &&
                after.groupFor(p).id() == b.target() && after.segmentOf(p) == b.segment(b.indexOf(p));
            if (!switched && before.groupFor(p).id() == after.groupFor(p).id())
            {
                return new MapCheck.Refusal(MapRefusal.SEGMENTS, "partition " + p + "'s index segment is " +
                    segment(after.segmentOf(p)) + ", epoch " + before.epoch() + "'s was " + segment(before.segmentOf(p)) +
                    ": a segment changes only at its partition's SWITCH (a key would be looked for in groups that do " +
                    "not hold it)");
            }
            if (!switched)
            {
                return new MapCheck.Refusal(MapRefusal.PLACEMENT, "partition " + p + " goes from group " +
                    before.groupFor(p).id() + " at " + segment(before.segmentOf(p)) + " to group " +
                    after.groupFor(p).id() + " at " + segment(after.segmentOf(p)) + " after epoch " + before.epoch() +
                    ": a partition changes group only from FREEZE to SWITCH of its move, onto the target at the " +
                    "move's segment");
            }
        }
        return retired(before, after);
    }

    private static MapCheck.Refusal start(final ClusterMap before, final ClusterMap after, final MoveBatch b)
    {
        if (b.phase() != MovePhase.COPY || b.phaseEpoch() != after.epoch() || b.source() == b.target())
        {
            return new MapCheck.Refusal(MapRefusal.MOVE_START, b + " appears after epoch " + before.epoch() +
                ": a move starts in COPY, at its own epoch, between two groups");
        }
        if (before.groupById(b.target()) == null)
        {
            return new MapCheck.Refusal(MapRefusal.MOVE_START, b + " appears in the map that forms its target, group " +
                b.target() + " (epoch " + after.epoch() + "): a move starts between groups of the map before it");
        }
        for (int i = 0; i < b.size(); i++)
        {
            final int p = b.partition(i);
            if (before.moves().batchOf(p) != null || before.groupFor(p).id() != b.source())
            {
                return new MapCheck.Refusal(MapRefusal.MOVE_START, b + " appears for partition " + p + ", which " +
                    (before.moves().batchOf(p) != null ? "was moving (" + before.moves().batchOf(p) + ")" :
                    "was on group " + before.groupFor(p).id()) + " in epoch " + before.epoch());
            }
        }
        return null;
    }

    private static MapCheck.Refusal advance(final MoveBatch old, final MoveBatch b, final long epoch)
    {
        if (!old.sameMove(b))
        {
            return new MapCheck.Refusal(MapRefusal.MOVE_PHASE, b + " was " + old + ": a batch keeps its groups, " +
                "partitions and segments");
        }
        final boolean kept = b.phase() == old.phase() && b.phaseEpoch() == old.phaseEpoch();
        final boolean next = b.phase() == old.phase().next() && b.phaseEpoch() == epoch;
        if (!kept && !next)
        {
            return new MapCheck.Refusal(MapRefusal.MOVE_PHASE, b + " was " + old + " before epoch " + epoch +
                ": a batch advances one phase at a time, its phase epoch the epoch it entered it");
        }
        return null;
    }

    private static MapCheck.Refusal retired(final ClusterMap before, final ClusterMap after)
    {
        final List<RetiredSegment> was = before.moves().retired();
        final List<RetiredSegment> is = after.moves().retired();
        for (final RetiredSegment r : is)
        {
            if (was.contains(r))
            {
                continue;
            }
            final MoveBatch b = after.moves().batch(r.batch());
            final MoveBatch old = before.moves().batch(r.batch());
            final int i = b == null ? -1 : b.indexOf(r.partition());
            if (i < 0 || old == null || old.phase() != MovePhase.FREEZE || b.phase() != MovePhase.SWITCH ||
                r.group() != b.source() || r.segment() != before.segmentOf(r.partition()) ||
                r.switchEpoch() != after.epoch())
            {
                return new MapCheck.Refusal(MapRefusal.RETIRED, r + " appears after epoch " + before.epoch() +
                    ": a group retires a segment only at the SWITCH of its batch, the partition's segment before it");
            }
        }
        for (final MoveBatch b : after.moves().batches())
        {
            final MoveBatch old = before.moves().batch(b.id());
            if (b.phase() != MovePhase.SWITCH || old == null || old.phase() != MovePhase.FREEZE)
            {
                continue;
            }
            for (int i = 0; i < b.size(); i++)
            {
                final int p = b.partition(i);
                if (is.stream().noneMatch(r -> r.batch() == b.id() && r.partition() == p))
                {
                    return new MapCheck.Refusal(MapRefusal.RETIRED, b + " switches partition " + p + " without " +
                        "retiring its segment on group " + b.source());
                }
            }
        }
        for (final RetiredSegment r : was)
        {
            if (!is.contains(r) && after.moves().batch(r.batch()) != null)
            {
                return new MapCheck.Refusal(MapRefusal.RETIRED, r + " is dropped while its batch is in " +
                    after.moves().batch(r.batch()).phase().json() + ": a group reclaims only after OPEN");
            }
        }
        return null;
    }

    static String segment(final long segment)
    {
        return "base " + KeyHash.segmentBase(segment) + ", " + KeyHash.segmentCount(segment) + " groups";
    }

    /** A segment a group holds: owned, incoming or retired. */
    private record Held(int group, long segment, String what, boolean incoming, int partition)
    {
    }
}
