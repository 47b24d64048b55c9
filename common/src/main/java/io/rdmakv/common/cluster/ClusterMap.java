package io.rdmakv.common.cluster;

import io.rdmakv.common.hash.KeyHash;

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
 * node sends in HELLO_OK in {@code io.rdmakv.common.protocol.ClusterMapCodec}.
 */
public final class ClusterMap
{
    /** The partition count when a map does not say. */
    public static final int DEFAULT_PARTITIONS = 64;

    public static final int MAX_PARTITIONS = 1 << 16;

    private final long epoch;
    private final int partitionCount;
    private final List<ClusterNode> nodes;
    private final int[] assignment;
    private final ClusterNode[] byPartition;

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
        if (partitionCount < sorted.size())
        {
            throw new InvalidClusterMapException(
                "cluster map has " + partitionCount + " partitions for " + sorted.size() +
                " nodes: every node needs at least one partition");
        }
        this.epoch = epoch;
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

    /** A copy of the assignment: element p is the id of partition p's node. */
    public int[] assignment()
    {
        return assignment.clone();
    }

    /** The partition a key hash ({@link KeyHash#hash}) falls in. */
    public int partitionOf(final long keyHash)
    {
        return KeyHash.partition(keyHash, partitionCount);
    }

    /** The node that holds partition {@code partition}. */
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
        return o instanceof ClusterMap m && epoch == m.epoch && partitionCount == m.partitionCount &&
            nodes.equals(m.nodes) && Arrays.equals(assignment, m.assignment);
    }

    @Override
    public int hashCode()
    {
        return (Long.hashCode(epoch) * 31 + nodes.hashCode()) * 31 + Arrays.hashCode(assignment);
    }

    @Override
    public String toString()
    {
        return "ClusterMap{epoch=" + epoch + " partitions=" + partitionCount + " nodes=" + nodes + "}";
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
