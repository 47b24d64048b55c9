package io.rdmakv.server.space;

import io.rdmakv.common.hash.KeyHash;

import java.util.Arrays;
import java.util.Comparator;
import java.util.stream.IntStream;

/**
 * The used-slot count STATS reports, taken a bounded number of groups per duty cycle instead of one
 * walk of the whole index per request: a request finds a count at most {@code maxAgeNanos} old, or waits
 * for the pass that {@link #advance} is making. Like the walk it replaces, a pass reads slots while
 * clients change them, so the count is what the index held while the pass went by.
 *
 * <p>The same passes count the used slots of each segment {@link #watch}ed (docs/growth.md §11: the partitions a
 * group's primary owns), published as an {@link SegmentLoads} at the end of each pass ({@link #load}, any thread).
 * While segments are watched a pass is due every {@code loadPeriodNanos} ({@link #loadDue}), STATS or not; the work
 * per cycle stays what {@link #advance} is given. Agent thread only, but for {@link #load}.
 */
public final class IndexCensus
{
    private final IndexScanner scanner;
    private final long maxAgeNanos;
    private final long loadPeriodNanos;
    private long cursor;
    private long partial;
    private long usedSlots;
    private long startedAt;
    private long countedAt;
    private long passes;
    private boolean counted;
    /** The segments to count from the next pass on (by ascending base). */
    private SegmentLoads watched = SegmentLoads.NONE;
    /** The segments the pass under way counts, and its counts so far. */
    private SegmentLoads counting = SegmentLoads.NONE;
    private long[] partialSegments = new long[0];
    /** The first segment of {@link #counting} that ends after {@link #cursor}. */
    private int segmentAt;
    private volatile SegmentLoads load = SegmentLoads.NONE;

    /**
     * @param maxAgeNanos how old a count may be and still answer a request; a new pass starts only when
     *                    the last one is older (so a flood of requests costs at most one pass per period)
     */
    public IndexCensus(final IndexScanner scanner, final long maxAgeNanos)
    {
        this(scanner, maxAgeNanos, Long.MAX_VALUE);
    }

    /**
     * @param loadPeriodNanos how often a pass is due while segments are watched
     */
    public IndexCensus(final IndexScanner scanner, final long maxAgeNanos, final long loadPeriodNanos)
    {
        this.scanner = scanner;
        this.maxAgeNanos = maxAgeNanos;
        this.loadPeriodNanos = loadPeriodNanos;
    }

    /**
     * Counts the used slots of {@code segments} (packed, {@link KeyHash#segment}; partition {@code partitions[i]}'s
     * in the map of {@code epoch}) from the next pass on; none: nothing is watched, and {@link #load} is
     * {@link SegmentLoads#NONE} at once. The same segments again (a later map that moved none of them) change nothing:
     * the load keeps the epoch they were first watched at.
     *
     * @throws IllegalArgumentException when two segments overlap (a map that breaks MapCheck's rules)
     */
    public void watch(final long epoch, final int[] partitions, final long[] segments)
    {
        final Integer[] order = IntStream.range(0, partitions.length).boxed().toArray(Integer[]::new);
        Arrays.sort(order, Comparator.comparingLong(i -> KeyHash.segmentBase(segments[i])));
        final int[] p = new int[order.length];
        final long[] s = new long[order.length];
        for (int i = 0; i < order.length; i++)
        {
            p[i] = partitions[order[i]];
            s[i] = segments[order[i]];
            if (i > 0 && KeyHash.segmentBase(s[i]) < end(s[i - 1]))
            {
                throw new IllegalArgumentException("index census: segments of partitions " + p[i - 1] + " and " +
                    p[i] + " overlap");
            }
        }
        if (!Arrays.equals(p, watched.partitions()) || !Arrays.equals(s, watched.segments()))
        {
            watched = new SegmentLoads(epoch, p, s, new long[p.length], 0); // a pass under way publishes nothing
        }
        if (p.length == 0)
        {
            load = SegmentLoads.NONE;
        }
    }

    /** The per-segment counts of the last complete pass (any thread); {@link SegmentLoads#NONE} when none watched. */
    public SegmentLoads load()
    {
        return load;
    }

    /** Whether segments are watched and a pass is under way or due at {@code nowNanos} (every load period). */
    public boolean loadDue(final long nowNanos)
    {
        return watched.size() > 0 && (cursor > 0 || !counted || nowNanos - countedAt >= loadPeriodNanos);
    }

    /** True when the last count is recent enough to answer a request made at {@code nowNanos}. */
    public boolean isFresh(final long nowNanos)
    {
        return counted && nowNanos - countedAt < maxAgeNanos;
    }

    /** The used slots the last complete pass counted. */
    public long usedSlots()
    {
        return usedSlots;
    }

    /** Complete passes over the index so far. */
    public long passes()
    {
        return passes;
    }

    /** True while a pass is under way (some groups counted, not all). */
    public boolean inProgress()
    {
        return cursor > 0;
    }

    /**
     * Counts up to {@code groupBudget} more groups of the current pass (starting one if none is under way);
     * returns the groups read. A completed count is as fresh as the moment its pass started.
     */
    public long advance(final long groupBudget, final long nowNanos)
    {
        if (cursor == 0)
        {
            startedAt = nowNanos;
            counting = watched;
            if (partialSegments.length != counting.size())
            {
                partialSegments = new long[counting.size()];
            }
            Arrays.fill(partialSegments, 0);
            segmentAt = 0;
        }
        final long to = Math.min(scanner.groupCount(), cursor + Math.max(1, groupBudget));
        final long read = to - cursor;
        count(cursor, to);
        cursor = to;
        if (cursor == scanner.groupCount())
        {
            usedSlots = partial;
            partial = 0;
            cursor = 0;
            countedAt = startedAt;
            counted = true;
            passes++;
            if (counting.size() > 0 && watched == counting)
            {
                load = new SegmentLoads(counting.epoch(), counting.partitions(), counting.segments(), partialSegments,
                    startedAt);
            }
        }
        return read;
    }

    /** Counts groups {@code [from, to)}, split at the watched segments' bounds. */
    private void count(final long from, final long to)
    {
        long g = from;
        while (g < to)
        {
            while (segmentAt < counting.size() && end(counting.segment(segmentAt)) <= g)
            {
                segmentAt++;
            }
            final boolean inside = segmentAt < counting.size() &&
                KeyHash.segmentBase(counting.segment(segmentAt)) <= g;
            final long until = inside ? Math.min(to, end(counting.segment(segmentAt))) :
                segmentAt < counting.size() ? Math.min(to, KeyHash.segmentBase(counting.segment(segmentAt))) : to;
            final long used = scanner.usedSlots(g, until);
            partial += used;
            if (inside)
            {
                partialSegments[segmentAt] += used;
            }
            g = until;
        }
    }

    private static long end(final long segment)
    {
        return KeyHash.segmentBase(segment) + KeyHash.segmentCount(segment);
    }
}
