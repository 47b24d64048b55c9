package io.rdmakv.server.space;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Who owns which bytes of a node's data area. Runs on the control agent's thread only.
 *
 * <p>Space is granted to clients as extents (ALLOC): fresh space from a bump pointer first, then
 * reclaimed space, largest free extent first. Freed blocks (FREE, or a dead client's unreferenced
 * space) wait out a grace period before they may be granted again, so that a slow reader mostly
 * finds the block it looked up intact (its checksum catches the rest). Adjacent free ranges coalesce.
 *
 * <p>Offsets are relative to the data area. The first {@code alignment} bytes are never granted, so
 * that offset 0 can mean "no block" in a slot word.
 */
public final class DataAreaAllocator
{
    private final long capacity;
    private final int alignment;
    private final long graceNanos;
    private long bump;
    private final TreeMap<Long, Long> free = new TreeMap<>();
    private final ArrayDeque<long[]> grace = new ArrayDeque<>();
    private final ArrayDeque<long[]> quarantine = new ArrayDeque<>();
    private final long quarantineNanos;
    private final TreeMap<Long, Long> inGrace = new TreeMap<>();
    private long freeBytes;
    private long graceBytes;
    private long reclaimedBytes;
    private long grantedExtents;

    public DataAreaAllocator(final long capacity, final int alignment, final long graceNanos)
    {
        this(capacity, alignment, graceNanos, graceNanos);
    }

    /**
     * @param quarantineNanos how long space reclaimed from a departed client waits (at least the grace
     *                        period; see {@link io.rdmakv.common.SpaceTiming})
     */
    public DataAreaAllocator(final long capacity, final int alignment, final long graceNanos,
        final long quarantineNanos)
    {
        if (Long.bitCount(alignment) != 1 || capacity % alignment != 0 || capacity <= alignment)
        {
            throw new IllegalArgumentException("data area of " + capacity + " bytes with alignment " + alignment);
        }
        this.capacity = capacity;
        this.alignment = alignment;
        this.graceNanos = graceNanos;
        this.quarantineNanos = Math.max(graceNanos, quarantineNanos);
        this.bump = alignment;
    }

    /**
     * Grants an extent of at least {@code minBytes} and at most {@code preferredBytes}, or null when no
     * free range is that large.
     */
    public Extent grant(final long minBytes, final long preferredBytes, final long nowNanos)
    {
        expireGrace(nowNanos);
        if (minBytes > capacity)
        {
            return null;
        }
        final long min = align(Math.max(minBytes, alignment));
        final long preferred = Math.max(min, align(Math.min(preferredBytes, capacity)));
        if (capacity - bump >= min)
        {
            final long length = Math.min(preferred, capacity - bump);
            final Extent e = new Extent(bump, length - length % alignment);
            bump += e.length();
            grantedExtents++;
            return e;
        }
        Map.Entry<Long, Long> best = null;
        for (final Map.Entry<Long, Long> e : free.entrySet())
        {
            if (e.getValue() >= min && (best == null || e.getValue() > best.getValue()))
            {
                best = e;
                if (e.getValue() >= preferred)
                {
                    break;
                }
            }
        }
        if (best == null)
        {
            return null;
        }
        final long length = Math.min(preferred, best.getValue());
        free.remove(best.getKey());
        if (best.getValue() > length)
        {
            free.put(best.getKey() + length, best.getValue() - length);
        }
        freeBytes -= length;
        grantedExtents++;
        return new Extent(best.getKey(), length);
    }

    /** A client freed a block: it becomes grantable after the grace period. Misaligned or outside ranges are refused. */
    public boolean release(final long offset, final long length, final long nowNanos)
    {
        return release(offset, length, nowNanos, graceNanos);
    }

    /** True when {@code [offset, offset + length)} is an aligned range of granted space (free or not). */
    public boolean isGrantedRange(final long offset, final long length)
    {
        return offset >= alignment && length > 0 && offset % alignment == 0 && length % alignment == 0 &&
            offset <= bump - length;
    }

    private boolean release(final long offset, final long length, final long nowNanos, final long delayNanos)
    {
        if (!isGrantedRange(offset, length) || overlapsFree(offset, length))
        {
            return false;
        }
        final long[] entry = {offset, length, nowNanos + delayNanos};
        if (delayNanos == graceNanos)
        {
            grace.addLast(entry);
        }
        else
        {
            quarantine.addLast(entry);
        }
        inGrace.put(offset, length);
        graceBytes += length;
        return true;
    }

    /** Moves ranges whose grace period ended into the free set. */
    public void expireGrace(final long nowNanos)
    {
        expire(grace, nowNanos);
        expire(quarantine, nowNanos);
    }

    private void expire(final ArrayDeque<long[]> queue, final long nowNanos)
    {
        while (!queue.isEmpty() && queue.peekFirst()[2] - nowNanos <= 0)
        {
            final long[] r = queue.pollFirst();
            inGrace.remove(r[0]);
            graceBytes -= r[1];
            addFree(r[0], r[1]);
        }
    }

    private void addFree(final long offset, final long length)
    {
        long start = offset;
        long len = length;
        final Map.Entry<Long, Long> before = free.floorEntry(start);
        if (before != null && before.getKey() + before.getValue() == start)
        {
            free.remove(before.getKey());
            start = before.getKey();
            len += before.getValue();
        }
        final Long afterLength = free.get(offset + length);
        if (afterLength != null)
        {
            free.remove(offset + length);
            len += afterLength;
        }
        free.put(start, len);
        freeBytes += length;
    }

    /** True when any byte of the range is free or waiting out its grace period. */
    public boolean overlapsFree(final long offset, final long length)
    {
        return overlaps(free, offset, length) || overlaps(inGrace, offset, length);
    }

    private static boolean overlaps(final TreeMap<Long, Long> ranges, final long offset, final long length)
    {
        final Map.Entry<Long, Long> floor = ranges.floorEntry(offset + length - 1);
        return floor != null && floor.getKey() + floor.getValue() > offset;
    }

    /**
     * Reclaims what a departed client held: every part of {@code extent} that is neither referenced
     * ({@code live}, sorted by offset, non-overlapping) nor already free waits out the quarantine, then
     * becomes free.
     *
     * @return the bytes reclaimed
     */
    public long reclaim(final Extent extent, final List<Extent> live, final long nowNanos)
    {
        long reclaimed = 0;
        long cursor = extent.offset();
        final List<Extent> gaps = new ArrayList<>();
        for (final Extent l : live)
        {
            if (l.offset() > cursor)
            {
                gaps.add(new Extent(cursor, Math.min(l.offset(), extent.end()) - cursor));
            }
            cursor = Math.max(cursor, l.end());
        }
        if (cursor < extent.end())
        {
            gaps.add(new Extent(cursor, extent.end() - cursor));
        }
        for (final Extent gap : gaps)
        {
            long p = gap.offset();
            while (p < gap.end())
            {
                final long runStart = p;
                final boolean isFree = overlapsFree(p, alignment);
                while (p < gap.end() && overlapsFree(p, alignment) == isFree)
                {
                    p += alignment;
                }
                if (!isFree && release(runStart, p - runStart, nowNanos, quarantineNanos))
                {
                    reclaimed += p - runStart;
                }
            }
        }
        reclaimedBytes += reclaimed;
        return reclaimed;
    }

    private long align(final long bytes)
    {
        return (bytes + alignment - 1) & -alignment;
    }

    public long capacity()
    {
        return capacity;
    }

    /** Bytes never granted yet. */
    public long unusedBytes()
    {
        return capacity - bump;
    }

    /** Bytes that can be granted now. */
    public long freeBytes()
    {
        return freeBytes + capacity - bump;
    }

    public long graceBytes()
    {
        return graceBytes;
    }

    public int graceRanges()
    {
        return grace.size() + quarantine.size();
    }

    public long reclaimedBytes()
    {
        return reclaimedBytes;
    }

    public long grantedExtents()
    {
        return grantedExtents;
    }
}
