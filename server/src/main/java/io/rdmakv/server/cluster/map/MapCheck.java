package io.rdmakv.server.cluster.map;

import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.ReplicaGroup;
import io.rdmakv.common.hash.KeyHash;

import java.util.Arrays;
import java.util.Objects;

/**
 * The rules every map read from ZooKeeper must keep before a node applies it or the coordinator plans from it
 * (whoever can write the {@code map} znode could otherwise decide the cluster's fate). A map breaks:
 * <ul>
 *   <li><b>epoch</b>: unless its epoch is the znode's version + 1. The coordinator creates the map at epoch 1
 *       (version 0) and each write is one versioned {@code setData} one epoch up, so a map's epoch is exactly
 *       one step per write from every earlier one: never a jump, never near the end of the range. Its
 *       {@code previous}, when given, is one epoch below it, and it is newer than the map the reader holds;</li>
 *   <li><b>geometry</b>: unless it is a replicated map of the cluster's partition count and replication factor,
 *       no group holds more than R nodes, every placed node has an incarnation, and it has the same groups as the
 *       map it replaced, in the same order, plus any new ones after them: a new group has members only (no copying
 *       node, no seal). A group may vanish (a drained group dissolved, docs/growth.md §12 "Drain") only when in the
 *       map it replaced it owned no partition, was the source or target of no batch and had no retired segment;
 *       the others keep their ids and order;</li>
 *   <li><b>promotion</b>: if a node becomes a member of a group without having been a member or a copying node
 *       of that group, under the same incarnation, in the map it replaced: that is how a group is emptied of
 *       its in-sync replicas in favour of an empty node (a lost group stays lost for the same reason). The one
 *       exception is a new group (docs/growth.md §12): its members were in no group before (spares or new nodes),
 *       and it owns no partition ({@code placement} otherwise), so it holds nothing that could be lost. When the
 *       reader holds the map one epoch below, the map's {@code previous} must be that map;</li>
 *   <li><b>fence</b>: unless its fence epoch is its own epoch, or the map it replaced's when it fences like
 *       that one ({@link ClusterMap#fencesLike}: the same groups, members, copying nodes, seals and placed nodes'
 *       addresses, and the same placed incarnations; moves, retired segments and a partition changing group at its
 *       SWITCH fence nobody). A map that claims an older
 *       fence epoch than that would leave sessions of the old placement unfenced. A reader
 *       that missed maps checks what it can against its own: a map placing differently from it must fence
 *       above its epoch, and no map may fence below the fence epoch it holds;</li>
 *   <li><b>segments</b>: if a partition's index segment has fewer than 2 groups, two segments of one group overlap
 *       (two partitions would share slots, empties and insert locks), or, against the map it replaced, any
 *       partition's segment changed other than at its move's SWITCH, or the table appeared or vanished (a key whose
 *       segment changed would be looked for in groups that do not hold it). A map without a table is each node's
 *       whole index, as before layout version 2. Whether a segment fits a node's index is the node's to check: it
 *       refuses to apply such a map before it fences anything;</li>
 *   <li><b>moves</b> ({@link MoveCheck}): {@code placement}, {@code move_start}, {@code move_segment},
 *       {@code move_phase}, {@code move_end} and {@code retired}: a partition changes group only from FREEZE to
 *       SWITCH of its move, a move appears only in COPY, its target segment overlaps nothing of its group, it
 *       advances one phase at a time and vanishes only by an abort before SWITCH or at OPEN, and a group retires a
 *       segment only at SWITCH and keeps it until OPEN.</li>
 * </ul>
 * The map it replaced is its {@code previous} or, without one, the reader's own when that is one epoch below;
 * a reader that missed maps and is given no previous checks the first two rules only. A writer who can forge a
 * consistent chain of maps can still do what the coordinator could; the ZooKeeper ACLs keep such writers out,
 * these rules catch maps no coordinator writes. Pure and thread-safe.
 */
public final class MapCheck
{
    private MapCheck()
    {
    }

    /** Why a map was refused: the rule it broke, and in words. */
    public record Refusal(MapRefusal reason, String detail)
    {
        public Refusal
        {
            Objects.requireNonNull(reason, "reason");
            Objects.requireNonNull(detail, "detail");
        }

        @Override
        public String toString()
        {
            return reason.label() + ": " + detail;
        }
    }

    /**
     * Checks {@code next}, read at znode version {@code version}, against the cluster's {@code settings} and
     * {@code held} (the last map the reader accepted; null: none).
     *
     * @return null when the map keeps every rule, else the first rule it breaks.
     */
    public static Refusal check(final ClusterSettings settings, final StoredMap next, final int version,
        final StoredMap held)
    {
        final ClusterMap map = next.map();
        final long epoch = map.epoch();
        if (epoch != version + 1L)
        {
            return new Refusal(MapRefusal.EPOCH, "epoch " + epoch + " at version " + version +
                " of the map znode: every map is one epoch above the one it replaced (expected " + (version + 1L) + ")");
        }
        if (held != null && epoch <= held.map().epoch())
        {
            return new Refusal(MapRefusal.EPOCH, "epoch " + epoch + " is not above the map held, " +
                held.map().epoch());
        }
        final StoredMap previous = next.previous();
        if (previous != null && previous.map().epoch() != epoch - 1)
        {
            return new Refusal(MapRefusal.EPOCH, "epoch " + epoch + " replaces a map of epoch " +
                previous.map().epoch() + ", not " + (epoch - 1));
        }
        final Refusal shape = geometry(settings, next);
        if (shape != null)
        {
            return shape;
        }
        final Refusal table = segments(map);
        if (table != null)
        {
            return table;
        }
        final boolean heldIsPrevious = held != null && held.map().epoch() == epoch - 1;
        if (heldIsPrevious && previous != null && !previous.equals(held.withoutPrevious()))
        {
            return new Refusal(MapRefusal.PROMOTION, "the map it says it replaced (epoch " + (epoch - 1) +
                ") is not the one held: " + previous.map() + " instead of " + held.map());
        }
        final StoredMap base = previous != null ? previous : heldIsPrevious ? held.withoutPrevious() : null;
        final Refusal changed = base == null ? null : change(base, next);
        if (changed != null)
        {
            return changed;
        }
        if (base != null && base.map().hasSegments() != map.hasSegments())
        {
            return new Refusal(MapRefusal.SEGMENTS, "its segment table " + (map.hasSegments() ? "appears" : "vanishes") +
                " after epoch " + base.map().epoch() + ": segments change only at a move's SWITCH");
        }
        final Refusal moved = base == null ? null : MoveCheck.change(base.map(), map);
        if (moved != null)
        {
            return moved;
        }
        if (base != null)
        {
            final boolean kept = sameFencing(base, next) && map.fenceEpoch() == base.map().fenceEpoch();
            if (map.fenceEpoch() != epoch && !kept)
            {
                return new Refusal(MapRefusal.FENCE, "fence epoch " + map.fenceEpoch() + " after epoch " +
                    base.map().epoch() + " (fence epoch " + base.map().fenceEpoch() + "): a map fences at its own " +
                    "epoch, or keeps the fence epoch of a map that places data as it does");
            }
            if (kept && MovePlanner.abandonedFreeze(base.map(), map))
            {
                // the source primary's freeze may still CAS its backups: they must fence it before they clear MOVING
                return new Refusal(MapRefusal.FENCE, "fence epoch " + map.fenceEpoch() + " kept after epoch " +
                    base.map().epoch() + " by a map that abandons a move in FREEZE: such a map fences at its own epoch");
            }
        }
        else if (held != null)
        {
            final long floor = sameFencing(held, next) && !MovePlanner.abandonedFreeze(held.map(), map) ?
                held.map().fenceEpoch() : held.map().epoch() + 1;
            if (map.fenceEpoch() < floor)
            {
                return new Refusal(MapRefusal.FENCE, "fence epoch " + map.fenceEpoch() + " below " + floor +
                    ", what the map held (epoch " + held.map().epoch() + ", fence epoch " + held.map().fenceEpoch() +
                    ") allows");
            }
        }
        return null;
    }

    /**
     * Whether no session needs fencing between {@code base} and {@code next}: the same groups, placed nodes and
     * incarnations ({@link ClusterMap#fencesLike}); moves, and partitions changing group at SWITCH, fence nobody.
     */
    private static boolean sameFencing(final StoredMap base, final StoredMap next)
    {
        return next.map().fencesLike(base.map()) &&
            sameIncarnations(next.map(), next.incarnations(), base.map(), base.incarnations());
    }

    /**
     * Whether every node placed in a group both maps list has the same incarnation in both ({@code ia} of {@code a},
     * {@code ib} of {@code b}): a node of a group only one of them lists (new or dissolved, holding nothing: {@link
     * ClusterMap#fencesLike}) does not count. Called after {@code fencesLike}, which holds the groups both list equal,
     * so {@code a}'s members of them are {@code b}'s.
     */
    static boolean sameIncarnations(final ClusterMap a, final java.util.Map<Integer, Long> ia, final ClusterMap b,
        final java.util.Map<Integer, Long> ib)
    {
        for (final ReplicaGroup g : a.groups())
        {
            if (b.groupById(g.id()) == null)
            {
                continue;
            }
            for (int i = 0; i < g.memberCount() + g.copyingCount(); i++)
            {
                final int id = i < g.memberCount() ? g.member(i) : g.copying(i - g.memberCount());
                if (!java.util.Objects.equals(ia.get(id), ib.get(id)))
                {
                    return false;
                }
            }
        }
        return true;
    }

    private static Refusal geometry(final ClusterSettings settings, final StoredMap next)
    {
        final ClusterMap map = next.map();
        if (map.isSimple())
        {
            return new Refusal(MapRefusal.GEOMETRY, "not a replicated map");
        }
        if (map.partitionCount() != settings.partitions() || map.replicationFactor() != settings.replicas())
        {
            return new Refusal(MapRefusal.GEOMETRY, map.partitionCount() + " partitions at replication factor " +
                map.replicationFactor() + ", the cluster has " + settings.partitions() + " at " + settings.replicas());
        }
        for (final ReplicaGroup group : map.groups())
        {
            if (group.memberCount() + group.copyingCount() > settings.replicas())
            {
                return new Refusal(MapRefusal.GEOMETRY, "group " + group.id() + " holds " +
                    (group.memberCount() + group.copyingCount()) + " nodes, more than R = " + settings.replicas());
            }
            for (final int id : placed(group))
            {
                if (!next.incarnations().containsKey(id))
                {
                    return new Refusal(MapRefusal.GEOMETRY, "node " + id + " of group " + group.id() +
                        " has no incarnation");
                }
            }
        }
        return null;
    }

    /** Every segment at least 2 groups, and no two of one group overlapping. */
    private static Refusal segments(final ClusterMap map)
    {
        if (!map.hasSegments())
        {
            return null;
        }
        final int partitions = map.partitionCount();
        for (int p = 0; p < partitions; p++)
        {
            final long count = KeyHash.segmentCount(map.segmentOf(p));
            if (count < 2)
            {
                return new Refusal(MapRefusal.SEGMENTS, "partition " + p + "'s index segment has " + count +
                    " groups: a key needs two distinct candidate groups");
            }
        }
        return MoveCheck.segments(map);
    }

    private static Refusal change(final StoredMap base, final StoredMap next)
    {
        final ClusterMap before = base.map();
        final ClusterMap after = next.map();
        if (before.isSimple())
        {
            return new Refusal(MapRefusal.GEOMETRY, "its groups differ from epoch " + before.epoch() + "'s");
        }
        // the groups of before that after keeps, in before's order, come first in after; a group missing is dissolved
        int kept = 0;
        for (int g = 0; g < before.groups().size(); g++)
        {
            final ReplicaGroup was = before.groups().get(g);
            final ReplicaGroup is = kept < after.groups().size() ? after.groups().get(kept) : null;
            if (is == null || was.id() != is.id())
            {
                if (after.groupById(was.id()) != null)
                {
                    return new Refusal(MapRefusal.GEOMETRY, "group " + was.id() + " is not where epoch " +
                        before.epoch() + " has it: the groups keep their order, new ones after them");
                }
                final Refusal dissolved = dissolved(before, was);
                if (dissolved != null)
                {
                    return dissolved;
                }
                continue;
            }
            kept++;
            for (final int id : is.members())
            {
                final Long incarnation = next.incarnations().get(id);
                if (!was.contains(id) || !incarnation.equals(base.incarnations().get(id)))
                {
                    return new Refusal(MapRefusal.PROMOTION, "node " + id + " (incarnation " + incarnation +
                        ") becomes a member of group " + is.id() + (was.lost() ? ", which was lost," : "") +
                        " without having been a member or copying node of it in epoch " + before.epoch() +
                        " (members " + Arrays.toString(was.members()) + ", copying " +
                        Arrays.toString(was.copying()) + ", incarnation " + base.incarnations().get(id) + ")");
                }
            }
        }
        for (int g = kept; g < after.groups().size(); g++)
        {
            final Refusal formed = newGroup(before, after, after.groups().get(g));
            if (formed != null)
            {
                return formed;
            }
        }
        return null;
    }

    /**
     * A group of {@code before} that the map after it no longer lists (docs/growth.md §12 "Drain": a drained group
     * is dissolved, its nodes become spares): accepted only when in {@code before} it owns no partition, is the source
     * or target of no batch and has no retired segment, so nothing that only it holds goes with it
     * ({@link MapRefusal#GEOMETRY} otherwise). A map in which a partition or batch names it could not even be built.
     */
    private static Refusal dissolved(final ClusterMap before, final ReplicaGroup group)
    {
        String held = null;
        for (int p = 0; p < before.partitionCount() && held == null; p++)
        {
            if (before.groupFor(p).id() == group.id())
            {
                held = "owns partition " + p;
            }
        }
        for (final io.rdmakv.common.cluster.MoveBatch b : before.moves().batches())
        {
            if (held == null && (b.source() == group.id() || b.target() == group.id()))
            {
                held = "is the " + (b.source() == group.id() ? "source" : "target") + " of " + b;
            }
        }
        for (final io.rdmakv.common.cluster.RetiredSegment r : before.moves().retired())
        {
            if (held == null && r.group() == group.id())
            {
                held = "holds " + r;
            }
        }
        return held == null ? null : new Refusal(MapRefusal.GEOMETRY, "group " + group.id() + " vanishes after epoch " +
            before.epoch() + ", in which it " + held + ": a group is dissolved only when it owns nothing, is the " +
            "source or target of no batch and has no retired segment");
    }

    /**
     * A group {@code after} lists beyond {@code before}'s: the one exception to the promotion rule (growth.md §12),
     * safe because an empty group holds nothing that could be lost. It has members, every one of them in no group of
     * {@code before} (a spare or a new node: {@link MapRefusal#PROMOTION} otherwise), no copying node and no seal
     * ({@link MapRefusal#GEOMETRY}), and owns no partition ({@link MapRefusal#PLACEMENT}). That no move targets it
     * in the map it appears in is {@link MoveCheck}'s rule.
     */
    private static Refusal newGroup(final ClusterMap before, final ClusterMap after, final ReplicaGroup group)
    {
        if (group.lost() || group.copyingCount() > 0 || group.sealed())
        {
            return new Refusal(MapRefusal.GEOMETRY, "new " + group + " after epoch " + before.epoch() + " has " +
                (group.lost() ? "no member" : group.sealed() ? "a seal" : "copying nodes") + ": a new group is " +
                "formed of spares as members only, unsealed");
        }
        for (final int id : group.members())
        {
            final ReplicaGroup was = before.groupOfNode(id);
            if (was != null)
            {
                return new Refusal(MapRefusal.PROMOTION, "node " + id + " is a member of new group " + group.id() +
                    " but was in group " + was.id() + " in epoch " + before.epoch() + ": a new group is formed of " +
                    "spares only");
            }
        }
        for (int p = 0; p < after.partitionCount(); p++)
        {
            if (after.groupFor(p).id() == group.id())
            {
                return new Refusal(MapRefusal.PLACEMENT, "new group " + group.id() + " owns partition " + p +
                    " in the map it appears in (epoch " + after.epoch() + "): a new group owns nothing until a " +
                    "move's SWITCH");
            }
        }
        return null;
    }

    private static int[] placed(final ReplicaGroup group)
    {
        final int[] ids = Arrays.copyOf(group.members(), group.memberCount() + group.copyingCount());
        System.arraycopy(group.copying(), 0, ids, group.memberCount(), group.copyingCount());
        return ids;
    }
}
