package io.rdmakv.common.cluster;

import io.rdmakv.common.hash.KeyHash;
import io.rdmakv.common.layout.VersionSalt;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

/**
 * Which node holds which keys. A key's hash picks one of a fixed number of partitions ({@link
 * #partitionOf}), and the assignment maps each partition to a node ({@link #nodeFor}). The epoch orders
 * maps: a node or client that sees a higher epoch replaces its map (membership changes and replication
 * will rely on it).
 *
 * <p>Rules, checked on construction and so on every map read from JSON: epoch at least 0; 1..{@value
 * #MAX_PARTITIONS} partitions, at least as many as nodes; at least one node; node ids and addresses
 * unique; every assigned node listed. Without an explicit assignment, partitions go round-robin over the
 * nodes in ascending id order ({@code partition p -> p % nodes}). Nodes are kept sorted by id.
 *
 * <p>Immutable and thread-safe. JSON form (config files, kvctl) in {@link ClusterMapJson}; the binary form a
 * node sends in HELLO_OK in {@code io.rdmakv.common.protocol.wire.ClusterMapCodec}.
 */
public final class ClusterMap
{
    /** The partition count when a map does not say. */
    public static final int DEFAULT_PARTITIONS = 64;

    public static final int MAX_PARTITIONS = 1 << 16;

    private final long epoch;
    private final long fenceEpoch;
    private final int partitionCount;
    private final List<ClusterNode> nodes;
    private final int[] assignment;
    private final ClusterNode[] byPartition;
    private final int replicationFactor;
    private final List<ReplicaGroup> groups;
    private final int[] partitionGroup;
    /** Per partition its packed index segment on its group's nodes ({@link KeyHash#segment}); null: no table. */
    private final long[] segments;
    /** The partition moves under way and the retired segments ({@link MapMoves#NONE}: none). */
    private final MapMoves moves;
    private final boolean simple;

    /**
     * A map with an explicit assignment ({@code assignment[p]} is the id of partition p's node), or
     * round-robin when {@code assignment} is null.
     *
     * @throws InvalidClusterMapException saying which rule the map breaks.
     */
    public ClusterMap(final long epoch, final int partitionCount, final List<ClusterNode> nodes, final int[] assignment)
    {
        if (epoch < 0)
        {
            throw new InvalidClusterMapException("cluster map epoch " + epoch + " is negative");
        }
        if (partitionCount < 1 || partitionCount > MAX_PARTITIONS)
        {
            throw new InvalidClusterMapException(
                "cluster map partition count " + partitionCount + " outside 1.." + MAX_PARTITIONS);
        }
        if (nodes == null || nodes.isEmpty())
        {
            throw new InvalidClusterMapException("cluster map has no nodes");
        }
        final List<ClusterNode> sorted = sortedUnique(nodes);
        final Map<Integer, ClusterNode> byId = new HashMap<>();
        for (final ClusterNode node : sorted)
        {
            byId.put(node.id(), node);
        }
        if (partitionCount < sorted.size())
        {
            throw new InvalidClusterMapException(
                "cluster map has " + partitionCount + " partitions for " + sorted.size() +
                " nodes: every node needs at least one partition");
        }
        this.epoch = epoch;
        this.fenceEpoch = epoch;
        this.partitionCount = partitionCount;
        this.nodes = List.copyOf(sorted);
        this.assignment = assignment == null ? roundRobin(partitionCount, this.nodes) : assignment.clone();
        if (this.assignment.length != partitionCount)
        {
            throw new InvalidClusterMapException(
                "cluster map assigns " + this.assignment.length + " partitions, it has " + partitionCount);
        }
        this.byPartition = new ClusterNode[partitionCount];
        for (int p = 0; p < partitionCount; p++)
        {
            final ClusterNode node = byId.get(this.assignment[p]);
            if (node == null)
            {
                throw new InvalidClusterMapException(
                    "cluster map assigns partition " + p + " to node " + this.assignment[p] +
                    ", which it does not list");
            }
            byPartition[p] = node;
        }
        this.replicationFactor = 1;
        final List<ReplicaGroup> derived = new ArrayList<>(this.nodes.size());
        final Map<Integer, Integer> groupIndex = new HashMap<>();
        for (final ClusterNode node : this.nodes)
        {
            groupIndex.put(node.id(), derived.size());
            derived.add(ReplicaGroup.single(node.id()));
        }
        this.groups = List.copyOf(derived);
        this.partitionGroup = new int[partitionCount];
        for (int p = 0; p < partitionCount; p++)
        {
            partitionGroup[p] = groupIndex.get(this.assignment[p]);
        }
        this.segments = null;
        this.moves = MapMoves.NONE;
        this.simple = true;
    }

    /**
     * A replicated map: every partition belongs to a replica group ({@code partitionGroups[p]} is the id of
     * partition p's group), and each group lists its replicas, primary first. Nodes that are in no group are
     * spares (they hold nothing until a group needs them).
     *
     * @throws InvalidClusterMapException saying which rule the map breaks: epoch below 0, factor outside
     *     1..{@value ReplicaGroup#MAX_REPLICAS}, partition count out of range, no group, a node unlisted or in two
     *     groups, a partition of an unknown group, a group id twice.
     */
    public ClusterMap(final long epoch, final int partitionCount, final List<ClusterNode> nodes,
        final int replicationFactor, final List<ReplicaGroup> groups, final int[] partitionGroups)
    {
        this(epoch, epoch, partitionCount, nodes, replicationFactor, groups, partitionGroups);
    }

    /**
     * A replicated map whose last fencing change was at {@code fenceEpoch} (see {@link #fenceEpoch()}): 0..epoch.
     *
     * @throws InvalidClusterMapException as the constructor above, or for a fence epoch outside 0..epoch.
     */
    public ClusterMap(final long epoch, final long fenceEpoch, final int partitionCount, final List<ClusterNode> nodes,
        final int replicationFactor, final List<ReplicaGroup> groups, final int[] partitionGroups)
    {
        this(epoch, fenceEpoch, partitionCount, nodes, replicationFactor, groups, partitionGroups, null);
    }

    /**
     * A replicated map with a segment table: {@code segments[p]} is partition p's index segment on its group's
     * nodes, packed by {@link KeyHash#segment} (null: no table, every partition uses its nodes' whole index).
     * Only the form is checked here (one entry per partition, base + count within 32 bits); whether segments are
     * at least 2 groups, overlap, or fit a node's index is for the node and {@code MapCheck} to judge.
     *
     * @throws InvalidClusterMapException as the constructor above, or for a table of another length or an entry
     *     past 2^32 groups.
     */
    public ClusterMap(final long epoch, final long fenceEpoch, final int partitionCount, final List<ClusterNode> nodes,
        final int replicationFactor, final List<ReplicaGroup> groups, final int[] partitionGroups, final long[] segments)
    {
        this(epoch, fenceEpoch, partitionCount, nodes, replicationFactor, groups, partitionGroups, segments,
            MapMoves.NONE);
    }

    /**
     * A replicated map with a segment table and partition moves ({@link MapMoves}). Only their form is checked here
     * (batch ids unique, groups listed, partitions in range and in one batch at most, a segment table when there is
     * anything to move or retire); which moves a map may have after another is {@code MapCheck}'s to judge.
     *
     * @throws InvalidClusterMapException as the constructor above, or for moves of a wrong form.
     */
    public ClusterMap(final long epoch, final long fenceEpoch, final int partitionCount, final List<ClusterNode> nodes,
        final int replicationFactor, final List<ReplicaGroup> groups, final int[] partitionGroups, final long[] segments,
        final MapMoves moves)
    {
        if (epoch < 0)
        {
            throw new InvalidClusterMapException("cluster map epoch " + epoch + " is negative");
        }
        if (partitionCount < 1 || partitionCount > MAX_PARTITIONS)
        {
            throw new InvalidClusterMapException(
                "cluster map partition count " + partitionCount + " outside 1.." + MAX_PARTITIONS);
        }
        if (fenceEpoch < 0 || fenceEpoch > epoch)
        {
            throw new InvalidClusterMapException("cluster map fence epoch " + fenceEpoch + " outside 0.." + epoch);
        }
        if (replicationFactor < 1 || replicationFactor > ReplicaGroup.MAX_REPLICAS)
        {
            throw new InvalidClusterMapException(
                "cluster map replication factor " + replicationFactor + " outside 1.." + ReplicaGroup.MAX_REPLICAS);
        }
        if (nodes == null || nodes.isEmpty())
        {
            throw new InvalidClusterMapException("cluster map has no nodes");
        }
        if (groups == null || groups.isEmpty())
        {
            throw new InvalidClusterMapException("cluster map has no replica groups");
        }
        final List<ClusterNode> sorted = sortedUnique(nodes);
        final Map<Integer, ClusterNode> byId = new HashMap<>();
        for (final ClusterNode node : sorted)
        {
            byId.put(node.id(), node);
        }
        final Map<Integer, Integer> groupIndex = new HashMap<>();
        final Map<Integer, Integer> groupOfNode = new HashMap<>();
        for (int g = 0; g < groups.size(); g++)
        {
            final ReplicaGroup group = groups.get(g);
            if (groupIndex.putIfAbsent(group.id(), g) != null)
            {
                throw new InvalidClusterMapException("cluster map lists replica group " + group.id() + " twice");
            }
            for (int i = 0; i < group.memberCount() + group.copyingCount(); i++)
            {
                final int id = i < group.memberCount() ? group.member(i) : group.copying(i - group.memberCount());
                if (!byId.containsKey(id))
                {
                    throw new InvalidClusterMapException(
                        "cluster map replica group " + group.id() + " names node " + id + ", which it does not list");
                }
                final Integer other = groupOfNode.putIfAbsent(id, group.id());
                if (other != null)
                {
                    throw new InvalidClusterMapException(
                        "cluster map puts node " + id + " in replica groups " + other + " and " + group.id());
                }
            }
        }
        if (partitionGroups == null || partitionGroups.length != partitionCount)
        {
            throw new InvalidClusterMapException(
                "cluster map assigns " + (partitionGroups == null ? 0 : partitionGroups.length) + " partitions to groups, it has " +
                partitionCount);
        }
        this.epoch = epoch;
        this.fenceEpoch = fenceEpoch;
        this.partitionCount = partitionCount;
        this.nodes = List.copyOf(sorted);
        this.replicationFactor = replicationFactor;
        this.groups = List.copyOf(groups);
        this.partitionGroup = new int[partitionCount];
        this.assignment = new int[partitionCount];
        this.byPartition = new ClusterNode[partitionCount];
        for (int p = 0; p < partitionCount; p++)
        {
            final Integer g = groupIndex.get(partitionGroups[p]);
            if (g == null)
            {
                throw new InvalidClusterMapException(
                    "cluster map assigns partition " + p + " to replica group " + partitionGroups[p] +
                    ", which it does not list");
            }
            partitionGroup[p] = g;
            final int primary = this.groups.get(g).primary();
            assignment[p] = primary;
            byPartition[p] = primary < 0 ? null : byId.get(primary);
        }
        if (segments != null)
        {
            if (segments.length != partitionCount)
            {
                throw new InvalidClusterMapException(
                    "cluster map has " + segments.length + " index segments for " + partitionCount + " partitions");
            }
            for (int p = 0; p < partitionCount; p++)
            {
                if (KeyHash.segmentBase(segments[p]) + KeyHash.segmentCount(segments[p]) > KeyHash.MAX_SEGMENT_FIELD + 1)
                {
                    throw new InvalidClusterMapException("cluster map segment of partition " + p + " (base " +
                        KeyHash.segmentBase(segments[p]) + ", " + KeyHash.segmentCount(segments[p]) +
                        " groups) ends past 2^32 groups");
                }
            }
        }
        this.segments = segments == null ? null : segments.clone();
        this.moves = moves == null ? MapMoves.NONE : moves;
        if (!this.moves.isEmpty() && segments == null)
        {
            throw new InvalidClusterMapException("cluster map moves partitions without a segment table");
        }
        this.moves.checkForm(partitionCount, groupIndex.keySet());
        this.simple = false;
    }

    /** A round-robin map of {@link #DEFAULT_PARTITIONS} partitions. */
    public static ClusterMap of(final long epoch, final List<ClusterNode> nodes)
    {
        return new ClusterMap(epoch, DEFAULT_PARTITIONS, nodes, null);
    }

    /** Parses a map from JSON; see {@link ClusterMapJson}. */
    public static ClusterMap fromJson(final String json)
    {
        return ClusterMapJson.parse(json);
    }

    /** Parses a map from UTF-8 JSON bytes; see {@link ClusterMapJson}. */
    public static ClusterMap fromJson(final byte[] json)
    {
        return ClusterMapJson.parse(json);
    }

    /** The map as compact JSON, assignment included. */
    public String toJson()
    {
        return ClusterMapJson.write(this);
    }

    public long epoch()
    {
        return epoch;
    }

    /**
     * The epoch of the last change that fences: of any group's members, primary, copying nodes or seal, or of a
     * placed node's address ({@link #fencesLike}). A change of anything else (a spare joining or leaving the node
     * list, a move's phase, a partition changing group at a move's SWITCH, a retired segment) keeps it, and fences
     * no session: nodes fence sessions opened under an epoch below it, clients keep their sessions across it (and
     * their slot cache while {@link #placesLike} holds). Equal to {@link #epoch()} for a simple map.
     */
    public long fenceEpoch()
    {
        return fenceEpoch;
    }

    /**
     * Whether {@code other} places data as this map does: {@link #fencesLike} and the same group and index segment
     * for every partition (a client's cached slot addresses stay good). Moves and retired segments are not compared.
     */
    public boolean placesLike(final ClusterMap other)
    {
        return fencesLike(other) && Arrays.equals(partitionGroup, other.partitionGroup) &&
            Arrays.equals(segments, other.segments);
    }

    /**
     * Whether going from {@code other} to this map needs no fence: the same replication, the same groups (members
     * in chain order, copying nodes, seal) and every placed node at the same address. Epochs, unplaced nodes
     * (spares), which group holds which partition at which segment, moves and retired segments are not compared:
     * a partition changes group only at a move's SWITCH, which fences nobody (docs/growth.md §5). A group that only
     * one of the two maps lists and that holds nothing there ({@link #holdsNothing}: a new group of spares, a
     * dissolved one) fences nobody either: no client has anything to do on it, and its members were or become
     * spares.
     */
    public boolean fencesLike(final ClusterMap other)
    {
        if (simple != other.simple || partitionCount != other.partitionCount ||
            replicationFactor != other.replicationFactor)
        {
            return false;
        }
        if (simple)
        {
            return groups.equals(other.groups) && Arrays.equals(partitionGroup, other.partitionGroup) &&
                nodes.equals(other.nodes);
        }
        for (final ReplicaGroup group : groups)
        {
            final ReplicaGroup before = other.groupById(group.id());
            if (before == null)
            {
                if (!holdsNothing(group.id()))
                {
                    return false;
                }
                continue;
            }
            if (!group.equals(before))
            {
                return false;
            }
            for (int i = 0; i < group.memberCount() + group.copyingCount(); i++)
            {
                final int id = i < group.memberCount() ? group.member(i) : group.copying(i - group.memberCount());
                if (!java.util.Objects.equals(node(id), other.node(id)))
                {
                    return false;
                }
            }
        }
        for (final ReplicaGroup before : other.groups)
        {
            if (groupById(before.id()) == null && !other.holdsNothing(before.id()))
            {
                return false;
            }
        }
        return true;
    }

    /** The group with id {@code id}, or null. */
    public ReplicaGroup groupById(final int id)
    {
        for (final ReplicaGroup g : groups)
        {
            if (g.id() == id)
            {
                return g;
            }
        }
        return null;
    }

    /**
     * Whether group {@code id} holds nothing in this map: it owns no partition, is the source or target of no move
     * batch and has no retired segment.
     */
    public boolean holdsNothing(final int id)
    {
        if (simple)
        {
            return false;
        }
        for (final int g : partitionGroup)
        {
            if (groups.get(g).id() == id)
            {
                return false;
            }
        }
        for (final MoveBatch b : moves.batches())
        {
            if (b.source() == id || b.target() == id)
            {
                return false;
            }
        }
        for (final RetiredSegment r : moves.retired())
        {
            if (r.group() == id)
            {
                return false;
            }
        }
        return true;
    }

    /** This map with its fence epoch set to {@code fence} (a replicated map; 0..epoch). */
    public ClusterMap withFenceEpoch(final long fence)
    {
        if (simple)
        {
            throw new IllegalStateException("a simple map fences at every epoch");
        }
        return new ClusterMap(epoch, fence, partitionCount, nodes, replicationFactor, groups, partitionGroups(),
            segments, moves);
    }

    /** This replicated map with the segment table {@code table} (see the constructor; null: none). */
    public ClusterMap withSegments(final long[] table)
    {
        if (simple)
        {
            throw new IllegalStateException("a simple map has no segment table");
        }
        return new ClusterMap(epoch, fenceEpoch, partitionCount, nodes, replicationFactor, groups, partitionGroups(),
            table, moves);
    }

    /** This replicated map with the moves {@code next} (see the constructor). */
    public ClusterMap withMoves(final MapMoves next)
    {
        if (simple)
        {
            throw new IllegalStateException("a simple map moves nothing");
        }
        return new ClusterMap(epoch, fenceEpoch, partitionCount, nodes, replicationFactor, groups, partitionGroups(),
            segments, next);
    }

    /** The partition moves under way and the retired segments ({@link MapMoves#NONE} when none). */
    public MapMoves moves()
    {
        return moves;
    }

    /** Whether the map has a segment table (a replicated map planned with layout version 2 has one). */
    public boolean hasSegments()
    {
        return segments != null;
    }

    /**
     * Partition {@code partition}'s index segment on its group's nodes, packed ({@link KeyHash#segment}), or
     * {@link KeyHash#WHOLE_INDEX} when the map has no table (data path: one array load, no allocation).
     */
    public long segmentOf(final int partition)
    {
        return segments == null ? KeyHash.WHOLE_INDEX : segments[partition];
    }

    /**
     * The salt of the versions of partition {@code partition}'s keys where this map places it ({@link VersionSalt}: 0
     * without a segment table). Two array loads and two hash rounds, no allocation; a client's router computes it
     * once per map.
     */
    public long versionSalt(final int partition)
    {
        return segments == null ? VersionSalt.NONE :
            VersionSalt.of(partition, groups.get(partitionGroup[partition]).id(), segments[partition]);
    }

    /** A copy of the segment table, or null when the map has none. */
    public long[] segments()
    {
        return segments == null ? null : segments.clone();
    }

    public int partitionCount()
    {
        return partitionCount;
    }

    /** The nodes, sorted by id. */
    public List<ClusterNode> nodes()
    {
        return nodes;
    }

    /** The node with id {@code id}, or null. */
    public ClusterNode node(final int id)
    {
        for (final ClusterNode node : nodes)
        {
            if (node.id() == id)
            {
                return node;
            }
        }
        return null;
    }

    /** A copy of the assignment: element p is the id of partition p's node (its primary; -1: group lost). */
    public int[] assignment()
    {
        return assignment.clone();
    }

    /** Replicas every partition should have (1: no replication). */
    public int replicationFactor()
    {
        return replicationFactor;
    }

    /**
     * Whether this is a map without replication in its plain form (each node its own group, factor 1):
     * the form static config files use.
     */
    public boolean isSimple()
    {
        return simple;
    }

    /** The replica groups (for a simple map, one per node, its id the node's). */
    public List<ReplicaGroup> groups()
    {
        return groups;
    }

    /** The replica group of partition {@code partition}. */
    public ReplicaGroup groupFor(final int partition)
    {
        return groups.get(partitionGroup[partition]);
    }

    /** The index into {@link #groups()} of partition {@code partition}'s group (data path: no allocation). */
    public int groupIndexOf(final int partition)
    {
        return partitionGroup[partition];
    }

    /** A copy of the partition-to-group table: element p is the id of partition p's group. */
    public int[] partitionGroups()
    {
        final int[] ids = new int[partitionCount];
        for (int p = 0; p < partitionCount; p++)
        {
            ids[p] = groups.get(partitionGroup[p]).id();
        }
        return ids;
    }

    /** The group that has node {@code nodeId} as a member or copying, or null (a spare, or unknown). */
    public ReplicaGroup groupOfNode(final int nodeId)
    {
        for (final ReplicaGroup group : groups)
        {
            if (group.contains(nodeId))
            {
                return group;
            }
        }
        return null;
    }

    /** The partition a key hash ({@link KeyHash#hash}) falls in. */
    public int partitionOf(final long keyHash)
    {
        return KeyHash.partition(keyHash, partitionCount);
    }

    /** The node that holds partition {@code partition} (its group's primary), or null when its group is lost. */
    public ClusterNode nodeFor(final int partition)
    {
        if (partition < 0 || partition >= partitionCount)
        {
            throw new IllegalArgumentException("partition " + partition + " outside 0.." + (partitionCount - 1));
        }
        return byPartition[partition];
    }

    /** The node that holds the key with hash {@code keyHash}. */
    public ClusterNode nodeForKeyHash(final long keyHash)
    {
        return byPartition[partitionOf(keyHash)];
    }

    /** The partitions node {@code nodeId} holds, ascending. */
    public int[] partitionsOf(final int nodeId)
    {
        return IntStream.range(0, partitionCount).filter(p -> assignment[p] == nodeId).toArray();
    }

    @Override
    public boolean equals(final Object o)
    {
        return o instanceof ClusterMap m && epoch == m.epoch && fenceEpoch == m.fenceEpoch &&
            partitionCount == m.partitionCount &&
            nodes.equals(m.nodes) && Arrays.equals(assignment, m.assignment) &&
            replicationFactor == m.replicationFactor && groups.equals(m.groups) &&
            Arrays.equals(partitionGroup, m.partitionGroup) && Arrays.equals(segments, m.segments) &&
            moves.equals(m.moves);
    }

    @Override
    public int hashCode()
    {
        return (Long.hashCode(epoch) * 31 + nodes.hashCode()) * 31 + Arrays.hashCode(assignment);
    }

    @Override
    public String toString()
    {
        return "ClusterMap{epoch=" + epoch + (fenceEpoch == epoch ? "" : " fence_epoch=" + fenceEpoch) + " partitions=" + partitionCount + " nodes=" + nodes +
            (simple ? "" : " replicas=" + replicationFactor + " groups=" + groups) +
            (moves.batches().isEmpty() ? "" : " moves=" + moves.batches()) +
            (moves.retired().isEmpty() ? "" : " retired=" + moves.retired()) + "}";
    }

    private static List<ClusterNode> sortedUnique(final List<ClusterNode> nodes)
    {
        final List<ClusterNode> sorted = new ArrayList<>(nodes);
        sorted.sort(Comparator.comparingInt(ClusterNode::id));
        final Map<Integer, ClusterNode> byId = new HashMap<>();
        final Map<String, ClusterNode> byAddress = new HashMap<>();
        for (final ClusterNode node : sorted)
        {
            if (byId.putIfAbsent(node.id(), node) != null)
            {
                throw new InvalidClusterMapException("cluster map lists node id " + node.id() + " twice");
            }
            final ClusterNode other = byAddress.putIfAbsent(node.address(), node);
            if (other != null)
            {
                throw new InvalidClusterMapException(
                    "cluster map nodes " + other.id() + " and " + node.id() + " share the address " + node.address());
            }
        }
        return sorted;
    }

    private static int[] roundRobin(final int partitionCount, final List<ClusterNode> sortedNodes)
    {
        final int[] assignment = new int[partitionCount];
        for (int p = 0; p < partitionCount; p++)
        {
            assignment[p] = sortedNodes.get(p % sortedNodes.size()).id();
        }
        return assignment;
    }
}
