package io.rdmakv.server.space;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Who owns which bytes of a node's data area. Runs on the control agent's thread only.
 *
 * <p>Every byte is in exactly one state: <em>granted</em> (to a session, or, once that session left, to
 * nobody: a block some slot still references), <em>waiting</em> (freed, out of circulation for the grace
 * period, or the longer quarantine of space reclaimed from a departed session), <em>free</em>, or never
 * used (beyond the bump pointer).
 *
 * <p>Space is granted as extents (ALLOC): fresh space from the bump pointer first, then the largest
 * free range. A FREE must name space that lies inside one granted range; it is carved out of it, so a
 * session's grants always describe what it still holds and nothing it gave back ({@link #heldBy}: what a
 * quota counts; {@link #ownerOf}: whose a range is; {@link #latestGrant}: the extent a session now
 * writes new blocks into, see {@code FreeJob}). Freed space waits out
 * the grace period, so that a slow reader mostly finds the block it looked up intact (its checksum
 * catches the rest). Adjacent free ranges coalesce.
 *
 * <p>Offsets are relative to the data area. The first {@code alignment} bytes are never granted, so
 * that offset 0 can mean "no block" in a slot word.
 */
public final class DataAreaAllocator
{
    /** The owner of granted space whose session has left: blocks that slots still reference. */
    public static final long NO_OWNER = 0;

    /**
     * Owners from here up are the node's own movers (a partition copier's <em>mover grants</em>, docs/growth.md
     * §7), never a session: session ids are drawn below 2^40 and counted up from there.
     */
    public static final long FIRST_MOVER_OWNER = 1L << 62;

    private static final int LENGTH = 0;
    private static final int OWNER = 1;

    private final long capacity;
    private final int alignment;
    private final long graceNanos;
    private final long quarantineNanos;
    private long bump;
    private final TreeMap<Long, long[]> granted = new TreeMap<>();
    private final TreeMap<Long, Long> free = new TreeMap<>();
    /**
     * The free ranges again, as {offset, length} ordered by length then offset: the largest is found in
     * O(log n). A data area that has wrapped around holds ranges by the hundred thousand (every freed
     * block between live ones), and a walk over them on each ALLOC made the control thread the bottleneck.
     */
    private final TreeSet<long[]> freeBySize = new TreeSet<>(
        Comparator.<long[]>comparingLong(r -> r[1]).thenComparingLong(r -> r[0]));
    private final TreeMap<Long, Long> waiting = new TreeMap<>();
    private final ArrayDeque<long[]> grace = new ArrayDeque<>();
    private final ArrayDeque<long[]> quarantine = new ArrayDeque<>();
    private final HashMap<Long, long[]> held = new HashMap<>();
    private final HashMap<Long, Extent> latest = new HashMap<>();
    private long freeBytes;
    private long waitingBytes;
    private long reclaimedBytes;
    private long grantedExtents;

    public DataAreaAllocator(final long capacity, final int alignment, final long graceNanos)
    {
        this(capacity, alignment, graceNanos, graceNanos);
    }

    /**
     * @param quarantineNanos how long space reclaimed from a departed session waits (at least the grace
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
     * Grants {@code owner} an extent of at least {@code minBytes} and at most {@code preferredBytes}, or
     * returns null when no free range is that large.
     */
    public Extent grant(final long minBytes, final long preferredBytes, final long nowNanos, final long owner)
    {
        expireGrace(nowNanos);
        if (minBytes > capacity)
        {
            return null;
        }
        final long min = align(Math.max(minBytes, alignment));
        final long preferred = Math.max(min, align(Math.min(preferredBytes, capacity)));
        final Extent extent;
        if (capacity - bump >= min)
        {
            final long length = Math.min(preferred, capacity - bump);
            extent = new Extent(bump, length - length % alignment);
            bump += extent.length();
        }
        else
        {
            extent = takeFree(min, preferred);
            if (extent == null)
            {
                return null;
            }
        }
        granted.put(extent.offset(), new long[] {extent.length(), owner});
        held.computeIfAbsent(owner, o -> new long[1])[0] += extent.length();
        latest.put(owner, extent);
        grantedExtents++;
        return extent;
    }

    private Extent takeFree(final long min, final long preferred)
    {
        final long[] largest = freeBySize.isEmpty() ? null : freeBySize.last();
        if (largest == null || largest[1] < min)
        {
            return null;
        }
        final long offset = largest[0];
        final long available = largest[1];
        final long length = Math.min(preferred, available);
        removeFree(offset, available);
        if (available > length)
        {
            putFree(offset + length, available - length);
        }
        freeBytes -= length;
        return new Extent(offset, length);
    }

    private void putFree(final long offset, final long length)
    {
        free.put(offset, length);
        freeBySize.add(new long[] {offset, length});
    }

    private void removeFree(final long offset, final long length)
    {
        free.remove(offset);
        freeBySize.remove(new long[] {offset, length});
    }

    /** True when {@code [offset, offset + length)} is aligned and lies inside one granted range. */
    public boolean isReleasable(final long offset, final long length)
    {
        if (offset < alignment || length <= 0 || offset % alignment != 0 || length % alignment != 0 ||
            offset > capacity - length)
        {
            return false;
        }
        final Map.Entry<Long, long[]> g = granted.floorEntry(offset);
        return g != null && offset + length <= g.getKey() + g.getValue()[LENGTH];
    }

    /**
     * The owner of the granted range that holds all of {@code [offset, offset + length)} (a session id, or
     * {@link #NO_OWNER}), or -1 when the range is misaligned or does not lie inside one granted range.
     */
    public long ownerOf(final long offset, final long length)
    {
        return isReleasable(offset, length) ? granted.floorEntry(offset).getValue()[OWNER] : -1;
    }

    /** Where the granted range holding {@code offset} starts (call only for a granted offset). */
    public long grantedRangeStart(final long offset)
    {
        return granted.floorKey(offset);
    }

    /** Bytes granted to {@code owner} and not given back: what its quota counts. */
    public long heldBy(final long owner)
    {
        final long[] bytes = held.get(owner);
        return bytes == null ? 0 : bytes[0];
    }

    /** The extent most recently granted to {@code owner}, the only one it writes new blocks into; or null. */
    public Extent latestGrant(final long owner)
    {
        return latest.get(owner);
    }

    /**
     * A client freed a block (or the unused tail of an extent): it leaves its grant and becomes
     * grantable after the grace period. Refused (false) unless it lies inside one granted range.
     */
    public boolean release(final long offset, final long length, final long nowNanos)
    {
        if (!isReleasable(offset, length))
        {
            return false;
        }
        carve(offset, length);
        wait(offset, length, nowNanos + graceNanos, grace);
        return true;
    }

    /**
     * Gives {@code [offset, offset + length)} back free at once, without the grace period: space that no reader
     * can have seen (a mover grant's block in a segment no client reads yet). Refused (false) unless it lies
     * inside one granted range.
     */
    public boolean releaseNow(final long offset, final long length)
    {
        if (!isReleasable(offset, length))
        {
            return false;
        }
        carve(offset, length);
        addFree(offset, length);
        return true;
    }

    /** Gives back everything {@code owner} holds free at once ({@link #releaseNow}); returns the bytes. */
    public long releaseAllNow(final long owner)
    {
        long bytes = 0;
        for (final Extent grant : grantsOf(owner))
        {
            releaseNow(grant.offset(), grant.length());
            bytes += grant.length();
        }
        latest.remove(owner);
        return bytes;
    }

    /** Removes {@code [offset, offset + length)} from the granted range that holds it (checked by the caller). */
    private void carve(final long offset, final long length)
    {
        final Map.Entry<Long, long[]> g = granted.floorEntry(offset);
        final long start = g.getKey();
        final long end = start + g.getValue()[LENGTH];
        final long owner = g.getValue()[OWNER];
        final long[] bytes = held.get(owner);
        if (bytes != null && (bytes[0] -= length) == 0)
        {
            held.remove(owner);
        }
        granted.remove(start);
        if (offset > start)
        {
            granted.put(start, new long[] {offset - start, owner});
        }
        if (offset + length < end)
        {
            granted.put(offset + length, new long[] {end - offset - length, owner});
        }
    }

    private void wait(final long offset, final long length, final long readyAt, final ArrayDeque<long[]> queue)
    {
        queue.addLast(new long[] {offset, length, readyAt});
        waiting.put(offset, length);
        waitingBytes += length;
    }

    /** Moves ranges whose grace period or quarantine ended into the free set. */
    public void expireGrace(final long nowNanos)
    {
        expire(grace, nowNanos);
        expire(quarantine, nowNanos);
    }

    /**
     * How long until the first waiting range's grace period or quarantine ends (0: it has; {@link
     * Long#MAX_VALUE}: nothing waits), so that an idle owner can sleep until then.
     */
    public long nanosUntilNextExpiry(final long nowNanos)
    {
        return Math.min(untilHead(grace, nowNanos), untilHead(quarantine, nowNanos));
    }

    private static long untilHead(final ArrayDeque<long[]> queue, final long nowNanos)
    {
        return queue.isEmpty() ? Long.MAX_VALUE : Math.max(0, queue.peekFirst()[2] - nowNanos);
    }

    private void expire(final ArrayDeque<long[]> queue, final long nowNanos)
    {
        while (!queue.isEmpty() && queue.peekFirst()[2] - nowNanos <= 0)
        {
            final long[] r = queue.pollFirst();
            waiting.remove(r[0]);
            waitingBytes -= r[1];
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
            removeFree(before.getKey(), before.getValue());
            start = before.getKey();
            len += before.getValue();
        }
        final Long afterLength = free.get(offset + length);
        if (afterLength != null)
        {
            removeFree(offset + length, afterLength);
            len += afterLength;
        }
        putFree(start, len);
        freeBytes += length;
    }

    /** True when any byte of the range is free or waiting. */
    public boolean overlapsFree(final long offset, final long length)
    {
        return overlaps(free, offset, length) || overlaps(waiting, offset, length);
    }

    private static boolean overlaps(final TreeMap<Long, Long> ranges, final long offset, final long length)
    {
        final Map.Entry<Long, Long> floor = ranges.floorEntry(offset + length - 1);
        return floor != null && floor.getKey() + floor.getValue() > offset;
    }

    /** What {@code owner} holds now: its grants, less everything it gave back. */
    public List<Extent> grantsOf(final long owner)
    {
        final List<Extent> result = new ArrayList<>();
        for (final Map.Entry<Long, long[]> g : granted.entrySet())
        {
            if (g.getValue()[OWNER] == owner)
            {
                result.add(new Extent(g.getKey(), g.getValue()[LENGTH]));
            }
        }
        return result;
    }

    /** What each of {@code owners} holds now, in one walk of the granted ranges. */
    public Map<Long, List<Extent>> grantsOf(final java.util.Collection<Long> owners)
    {
        final Map<Long, List<Extent>> result = new HashMap<>();
        for (final Long owner : owners)
        {
            result.put(owner, new ArrayList<>());
        }
        for (final Map.Entry<Long, long[]> g : granted.entrySet())
        {
            final List<Extent> of = result.get(g.getValue()[OWNER]);
            if (of != null)
            {
                of.add(new Extent(g.getKey(), g.getValue()[LENGTH]));
            }
        }
        return result;
    }

    /**
     * Reclaims what a departed session held: every part of its grants that no slot references ({@code
     * live}: the referenced blocks inside its grants, sorted by offset) waits out the quarantine, then
     * becomes free; the referenced blocks stay granted, to nobody, until a client frees them.
     *
     * @return the bytes reclaimed
     */
    public long reclaim(final long owner, final List<Extent> live, final long nowNanos)
    {
        long reclaimed = 0;
        for (final Extent grant : grantsOf(owner))
        {
            long cursor = grant.offset();
            final List<Extent> gaps = new ArrayList<>();
            for (final Extent l : live)
            {
                if (l.end() <= grant.offset() || l.offset() >= grant.end())
                {
                    continue;
                }
                if (l.offset() > cursor)
                {
                    gaps.add(new Extent(cursor, l.offset() - cursor));
                }
                cursor = Math.max(cursor, l.end());
            }
            if (cursor < grant.end())
            {
                gaps.add(new Extent(cursor, grant.end() - cursor));
            }
            for (final Extent gap : gaps)
            {
                carve(gap.offset(), gap.length());
                wait(gap.offset(), gap.length(), nowNanos + quarantineNanos, quarantine);
                reclaimed += gap.length();
            }
        }
        for (final Map.Entry<Long, long[]> g : granted.entrySet())
        {
            if (g.getValue()[OWNER] == owner)
            {
                g.getValue()[OWNER] = NO_OWNER;
            }
        }
        held.remove(owner);
        latest.remove(owner);
        reclaimedBytes += reclaimed;
        return reclaimed;
    }

    /**
     * Forgets every grant, owner and waiting range, and takes the state an index scan shows: each block in
     * {@code live} (sorted by offset) is granted to {@link #NO_OWNER} (a FREE of it is accepted as of any
     * block nobody holds), everything between them is free at once, and the bump pointer stands after the
     * last. Overlapping or misaligned entries (a damaged slot word) are merged into the range before them or
     * skipped. For a node that becomes its group's primary: until then the primary decided the offsets and
     * this node only received blocks, so its allocator knew nothing of them. Space nobody references is free
     * without a grace period: every session of the older epoch is fenced before this runs and no session of
     * the new one is admitted yet, so no reader can hold an offset into it.
     */
    public void rebuild(final List<Extent> live)
    {
        granted.clear();
        free.clear();
        freeBySize.clear();
        waiting.clear();
        grace.clear();
        quarantine.clear();
        held.clear();
        latest.clear();
        freeBytes = 0;
        waitingBytes = 0;
        long cursor = alignment;
        long lastStart = -1;
        for (final Extent block : live)
        {
            if (block.offset() < alignment || block.offset() % alignment != 0 || block.length() <= 0 ||
                block.offset() > capacity - block.length())
            {
                continue;
            }
            final long end = align(block.end());
            if (block.offset() < cursor)
            {
                if (end > cursor && lastStart >= 0)
                {
                    granted.get(lastStart)[LENGTH] = end - lastStart;
                    cursor = end;
                }
                continue;
            }
            if (block.offset() > cursor)
            {
                putFree(cursor, block.offset() - cursor);
                freeBytes += block.offset() - cursor;
            }
            granted.put(block.offset(), new long[] {end - block.offset(), NO_OWNER});
            lastStart = block.offset();
            cursor = end;
        }
        bump = cursor;
    }

    private long align(final long bytes)
    {
        return (bytes + alignment - 1) & -alignment;
    }

    public long capacity()
    {
        return capacity;
    }

    /** Bytes that can be granted now. */
    public long freeBytes()
    {
        return freeBytes + capacity - bump;
    }

    /** Bytes waiting out the grace period or the quarantine. */
    public long graceBytes()
    {
        return waitingBytes;
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
