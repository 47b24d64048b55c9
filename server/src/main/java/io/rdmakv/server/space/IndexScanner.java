package io.rdmakv.server.space;

import io.rdmakv.common.layout.BucketDescriptor;
import io.rdmakv.common.layout.RegionGeometry;
import io.rdmakv.common.layout.SlotWord;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.LongPredicate;

/**
 * Walks a node's index on the server's CPU: counts used slots, finds which blocks of a departed
 * client's extents are still referenced, and releases insert locks it held. Reads slots with acquire
 * semantics and clears locks with CAS through {@link IndexAtomics}, so it is safe while clients keep working.
 */
public final class IndexScanner
{
    private final IndexAtomics atomics;
    private final RegionGeometry geometry;

    /** Reads and changes index words through {@code atomics} (see {@link IndexAtomics} for why). */
    public IndexScanner(final IndexAtomics atomics, final RegionGeometry geometry)
    {
        this.atomics = atomics;
        this.geometry = geometry;
    }

    /** Used slots in the whole index. */
    public long usedSlots()
    {
        return usedSlots(0, geometry.groupCount());
    }

    /** Used slots in groups {@code [fromGroup, toGroup)}: a piece of a census taken a few groups at a time. */
    public long usedSlots(final long fromGroup, final long toGroup)
    {
        long used = 0;
        for (long g = fromGroup; g < toGroup; g++)
        {
            for (int s = 0; s < BucketDescriptor.SLOTS_PER_GROUP; s++)
            {
                if (slot(g, s) != SlotWord.EMPTY)
                {
                    used++;
                }
            }
        }
        return used;
    }

    /** Groups in the index. */
    public long groupCount()
    {
        return geometry.groupCount();
    }

    private long slot(final long group, final int slot)
    {
        return atomics.get(geometry.slotRegionOffset(group, slot));
    }

    /** What a scan for a departed session found: the referenced blocks inside its grants, sorted. */
    public record Departure(List<Extent> liveBlocks, int locksReleased)
    {
    }

    /**
     * The blocks inside {@code grants} that a slot references (sorted by offset), and releases every
     * insert lock whose word is {@code lockWord}.
     */
    public Departure scanDeparture(final List<Extent> grants, final long lockWord)
    {
        final List<Extent> sorted = new ArrayList<>(grants);
        sorted.sort(Comparator.comparingLong(Extent::offset));
        final List<Extent> live = new ArrayList<>();
        int locks = 0;
        final long groups = geometry.groupCount();
        for (long g = 0; g < groups; g++)
        {
            final long lockOffset = geometry.groupRegionOffset(g) + BucketDescriptor.INSERT_LOCK_OFFSET;
            if (lockWord != 0 && atomics.get(lockOffset) == lockWord &&
                atomics.compareAndSwap(lockOffset, lockWord, 0L) == lockWord)
            {
                locks++;
            }
            if (sorted.isEmpty())
            {
                continue;
            }
            for (int s = 0; s < BucketDescriptor.SLOTS_PER_GROUP; s++)
            {
                final long word = slot(g, s);
                if (word != SlotWord.EMPTY && find(sorted, SlotWord.blockOffset(word)) >= 0)
                {
                    live.add(new Extent(SlotWord.blockOffset(word), SlotWord.blockLength(word)));
                }
            }
        }
        live.sort(Comparator.comparingLong(Extent::offset));
        return new Departure(live, locks);
    }

    /**
     * Clears every insert lock whose word is not 0 and not a live session's id ({@code isLive} false), with a
     * CAS from the word read, so a lock taken or released meanwhile is left alone. Walks every group: O(index),
     * for a thread of its own, never the control agent's.
     *
     * @return the locks cleared
     */
    public int clearStaleLocks(final LongPredicate isLive)
    {
        int cleared = 0;
        final long groups = geometry.groupCount();
        for (long g = 0; g < groups; g++)
        {
            final long lockOffset = geometry.groupRegionOffset(g) + BucketDescriptor.INSERT_LOCK_OFFSET;
            final long word = atomics.get(lockOffset);
            if (word != 0 && !isLive.test(word) && atomics.compareAndSwap(lockOffset, word, 0L) == word)
            {
                cleared++;
            }
        }
        return cleared;
    }

    private static int find(final List<Extent> sorted, final long offset)
    {
        int lo = 0;
        int hi = sorted.size() - 1;
        while (lo <= hi)
        {
            final int mid = (lo + hi) >>> 1;
            final Extent e = sorted.get(mid);
            if (offset < e.offset())
            {
                hi = mid - 1;
            }
            else if (offset >= e.end())
            {
                lo = mid + 1;
            }
            else
            {
                return mid;
            }
        }
        return -1;
    }
}
