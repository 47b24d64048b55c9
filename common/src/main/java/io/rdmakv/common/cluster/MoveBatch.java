package io.rdmakv.common.cluster;

import io.rdmakv.common.hash.KeyHash;

import java.util.Arrays;

/**
 * One batch of partitions moving together from a source replica group to a target group (docs/growth.md §7): its
 * id (unique for the cluster's life: the planner makes it from the epoch that started it), the groups (ids), its
 * phase and the epoch it entered that phase, and per partition the packed target segment {@code X_B} on the target
 * group's nodes ({@link KeyHash#segment}). Before {@link MovePhase#SWITCH} the partitions belong to the source;
 * from SWITCH to the target, at their target segments.
 *
 * <p>Immutable: the arrays are copied in and out. Only the form is checked here (ids, at least one partition, each
 * once, segments within 2^32 groups); what a batch may be against the map and the map before is {@code MapCheck}'s.
 */
public record MoveBatch(long id, int source, int target, MovePhase phase, long phaseEpoch, int[] partitions,
    long[] segments)
{
    public MoveBatch
    {
        if (id < 0 || source < 0 || target < 0 || phaseEpoch < 0)
        {
            throw new InvalidClusterMapException("move batch " + id + " (groups " + source + " -> " + target +
                ", phase epoch " + phaseEpoch + "): negative");
        }
        if (phase == null)
        {
            throw new InvalidClusterMapException("move batch " + id + " has no phase");
        }
        if (partitions == null || segments == null || partitions.length == 0 || partitions.length != segments.length)
        {
            throw new InvalidClusterMapException("move batch " + id + " needs one target segment for each of " +
                "at least one partition");
        }
        partitions = partitions.clone();
        segments = segments.clone();
        final int[] sorted = partitions.clone();
        Arrays.sort(sorted);
        for (int i = 0; i < sorted.length; i++)
        {
            if (sorted[i] < 0 || (i > 0 && sorted[i] == sorted[i - 1]))
            {
                throw new InvalidClusterMapException("move batch " + id + " lists partition " + sorted[i] +
                    (sorted[i] < 0 ? ": negative" : " twice"));
            }
        }
        for (int i = 0; i < segments.length; i++)
        {
            if (KeyHash.segmentBase(segments[i]) + KeyHash.segmentCount(segments[i]) > KeyHash.MAX_SEGMENT_FIELD + 1)
            {
                throw new InvalidClusterMapException("move batch " + id + ": the target segment of partition " +
                    partitions[i] + " ends past 2^32 groups");
            }
        }
    }

    @Override
    public int[] partitions()
    {
        return partitions.clone();
    }

    @Override
    public long[] segments()
    {
        return segments.clone();
    }

    /** How many partitions the batch moves. */
    public int size()
    {
        return partitions.length;
    }

    /** The i-th partition. */
    public int partition(final int i)
    {
        return partitions[i];
    }

    /** The i-th partition's target segment, packed. */
    public long segment(final int i)
    {
        return segments[i];
    }

    /** The index of {@code partition} in this batch, or -1. */
    public int indexOf(final int partition)
    {
        for (int i = 0; i < partitions.length; i++)
        {
            if (partitions[i] == partition)
            {
                return i;
            }
        }
        return -1;
    }

    /** This batch in phase {@code next}, entered at {@code epoch}. */
    public MoveBatch advancedTo(final MovePhase next, final long epoch)
    {
        return new MoveBatch(id, source, target, next, epoch, partitions, segments);
    }

    /** Whether {@code other} is this batch, phase and phase epoch aside (same id, groups, partitions, segments). */
    public boolean sameMove(final MoveBatch other)
    {
        return id == other.id && source == other.source && target == other.target &&
            Arrays.equals(partitions, other.partitions) && Arrays.equals(segments, other.segments);
    }

    @Override
    public boolean equals(final Object o)
    {
        return o instanceof MoveBatch b && sameMove(b) && phase == b.phase && phaseEpoch == b.phaseEpoch;
    }

    @Override
    public int hashCode()
    {
        return (Long.hashCode(id) * 31 + Arrays.hashCode(partitions)) * 31 + phase.hashCode();
    }

    @Override
    public String toString()
    {
        return "batch " + id + " " + Arrays.toString(partitions) + " " + source + " -> " + target + " " +
            phase.json() + "@" + phaseEpoch;
    }
}
