package io.rdmakv.server.space;

import io.rdmakv.common.hash.KeyHash;
import io.rdmakv.common.layout.BucketDescriptor;

import java.util.Arrays;

/**
 * The used slots of each index segment a node watches (the partitions its group owns, on the group's primary), as
 * the last complete {@link IndexCensus} pass counted them (docs/growth.md §11, "Trigger"): a partition whose segment
 * holds at least {@link #GROWTH_THRESHOLD} of its slots used is reported in {@code load/<id>}, and the coordinator
 * moves it into a segment twice its size. Immutable: the census publishes a new one per pass.
 *
 * @param epoch the epoch of the map from which the node watched these segments (0: none)
 * @param partitions the partitions, by ascending segment base
 * @param segments each partition's packed segment ({@link KeyHash#segment}) as counted
 * @param usedSlots the slots naming a block in each segment
 * @param countedAtNanos when the pass started (the count is what the index held while the pass went by)
 */
public record SegmentLoads(long epoch, int[] partitions, long[] segments, long[] usedSlots, long countedAtNanos)
{
    /**
     * The load (used slots / slots) at or above which a partition's segment is reported to grow: the one place the
     * threshold is set. Table-full becomes likely only near 90% with two candidate groups of 14 slots
     * (deploy/prometheus/rdmakv-rules.yml, {@code RdmakvIndexLoadHigh}), so 75% leaves a move time to finish.
     */
    public static final double GROWTH_THRESHOLD = 0.75;

    /** No segment watched, nothing counted. */
    public static final SegmentLoads NONE = new SegmentLoads(0, new int[0], new long[0], new long[0], 0);

    public SegmentLoads
    {
        if (partitions.length != segments.length || partitions.length != usedSlots.length)
        {
            throw new IllegalArgumentException("index load: " + partitions.length + " partitions, " +
                segments.length + " segments, " + usedSlots.length + " counts");
        }
        partitions = partitions.clone();
        segments = segments.clone();
        usedSlots = usedSlots.clone();
    }

    /** How many segments were counted. */
    public int size()
    {
        return partitions.length;
    }

    public int partition(final int i)
    {
        return partitions[i];
    }

    public long segment(final int i)
    {
        return segments[i];
    }

    public long used(final int i)
    {
        return usedSlots[i];
    }

    /**
     * The used slots counted in {@code segment} (packed), or -1 when it is not one of these: a binary search (the
     * segments are by ascending base and do not overlap, so their packed values ascend too).
     */
    public long usedIn(final long segment)
    {
        final int i = Arrays.binarySearch(segments, segment);
        return i < 0 ? -1 : usedSlots[i];
    }

    /** The slots of segment {@code i}. */
    public long slots(final int i)
    {
        return KeyHash.segmentCount(segments[i]) * BucketDescriptor.SLOTS_PER_GROUP;
    }

    /** Whether segment {@code i} is at or above {@link #GROWTH_THRESHOLD}. */
    public boolean over(final int i)
    {
        return usedSlots[i] >= GROWTH_THRESHOLD * slots(i);
    }

    /** The highest load of any segment (used / slots), 0 when none is watched. */
    public double maxLoad()
    {
        double max = 0;
        for (int i = 0; i < partitions.length; i++)
        {
            max = Math.max(max, (double)usedSlots[i] / slots(i));
        }
        return max;
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

    @Override
    public long[] usedSlots()
    {
        return usedSlots.clone();
    }

    @Override
    public boolean equals(final Object o)
    {
        return o instanceof SegmentLoads l && epoch == l.epoch && countedAtNanos == l.countedAtNanos &&
            Arrays.equals(partitions, l.partitions) && Arrays.equals(segments, l.segments) &&
            Arrays.equals(usedSlots, l.usedSlots);
    }

    @Override
    public int hashCode()
    {
        return Long.hashCode(epoch) * 31 + Arrays.hashCode(usedSlots);
    }

    @Override
    public String toString()
    {
        final StringBuilder s = new StringBuilder("segment loads at epoch ").append(epoch).append(':');
        for (int i = 0; i < partitions.length; i++)
        {
            s.append(' ').append(partitions[i]).append('=').append(usedSlots[i]).append('/').append(slots(i));
        }
        return s.toString();
    }
}
