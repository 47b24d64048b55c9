package io.rdmakv.common.cluster;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A map's partition moves: the batches under way ({@link MoveBatch}) and the segments groups retired and have not
 * reclaimed ({@link RetiredSegment}). Neither changes how a key is routed (the map's partition table does) nor
 * fences anyone. Immutable.
 */
public record MapMoves(List<MoveBatch> batches, List<RetiredSegment> retired)
{
    /** No moves, nothing retired. */
    public static final MapMoves NONE = new MapMoves(List.of(), List.of());

    public MapMoves
    {
        batches = List.copyOf(batches);
        retired = List.copyOf(retired);
    }

    public boolean isEmpty()
    {
        return batches.isEmpty() && retired.isEmpty();
    }

    /** The batch with id {@code id}, or null. */
    public MoveBatch batch(final long id)
    {
        for (final MoveBatch b : batches)
        {
            if (b.id() == id)
            {
                return b;
            }
        }
        return null;
    }

    /** The groups a batch moves partitions out of (a mutable set of their ids, for the planner to add to). */
    public Set<Integer> sourceGroups()
    {
        final Set<Integer> groups = new java.util.TreeSet<>();
        batches.forEach(b -> groups.add(b.source()));
        return groups;
    }

    /** The groups a batch moves partitions into (a mutable set of their ids, for the planner to add to). */
    public Set<Integer> targetGroups()
    {
        final Set<Integer> groups = new java.util.TreeSet<>();
        batches.forEach(b -> groups.add(b.target()));
        return groups;
    }

    /** The batch that moves {@code partition}, or null. */
    public MoveBatch batchOf(final int partition)
    {
        for (final MoveBatch b : batches)
        {
            if (b.indexOf(partition) >= 0)
            {
                return b;
            }
        }
        return null;
    }

    /**
     * Checks the form against a map of {@code partitions} partitions and groups {@code groupIds}: batch ids unique,
     * groups listed, partitions in range and in one batch at most.
     *
     * @throws InvalidClusterMapException naming what is wrong
     */
    void checkForm(final int partitions, final Set<Integer> groupIds)
    {
        final Set<Long> ids = new HashSet<>();
        final Set<Integer> moving = new HashSet<>();
        for (final MoveBatch b : batches)
        {
            if (!ids.add(b.id()))
            {
                throw new InvalidClusterMapException("cluster map lists move batch " + b.id() + " twice");
            }
            if (!groupIds.contains(b.source()) || !groupIds.contains(b.target()))
            {
                throw new InvalidClusterMapException("cluster map move batch " + b.id() + " names group " +
                    (groupIds.contains(b.source()) ? b.target() : b.source()) + ", which it does not list");
            }
            for (int i = 0; i < b.size(); i++)
            {
                final int p = b.partition(i);
                if (p >= partitions)
                {
                    throw new InvalidClusterMapException("cluster map move batch " + b.id() + " moves partition " + p +
                        " of " + partitions);
                }
                if (!moving.add(p))
                {
                    throw new InvalidClusterMapException("cluster map moves partition " + p + " in two batches");
                }
            }
        }
        for (final RetiredSegment r : retired)
        {
            if (!groupIds.contains(r.group()) || r.partition() >= partitions)
            {
                throw new InvalidClusterMapException("cluster map " + r + " names a group or partition it does not " +
                    "have");
            }
        }
    }
}
