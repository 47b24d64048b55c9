package io.rdmakv.server.space;

import io.rdmakv.common.layout.BucketDescriptor;
import io.rdmakv.common.layout.RegionGeometry;
import io.rdmakv.common.layout.SlotWord;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
                if (SlotWord.namesBlock(slot(g, s)))
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
        return scanDepartures(Map.of(lockWord, grants)).get(lockWord);
    }

    /**
     * {@link #scanDeparture} for many departed sessions in one walk of the index (a new epoch fences them all
     * at once: one scan for the lot, not one per session). {@code grantsByOwner}: each session's id (its
     * insert-lock word) and what it holds; grants of different owners never overlap (the allocator grants a
     * byte to one owner at a time), so each referenced block is found in at most one owner's grants.
     *
     * @return per owner, the referenced blocks inside its grants (sorted) and the locks released
     */
    public Map<Long, Departure> scanDepartures(final Map<Long, List<Extent>> grantsByOwner)
    {
        final DepartureScan scan = departureScan();
        scan.add(grantsByOwner);
        scan.visit(0, geometry.groupCount());
        return scan.remove(grantsByOwner.keySet());
    }

    /** A walk for departed sessions taken a range of groups at a time (see {@link DepartureScan}). */
    public DepartureScan departureScan()
    {
        return new DepartureScan(atomics, geometry);
    }

    /**
     * What a node that becomes its group's primary rebuilds its allocator from: every block a slot references
     * (sorted by offset; a word whose block does not lie in the data area is skipped), after clearing every
     * insert lock (CAS from the word read). Called when every session of the previous epoch is fenced and none
     * of the new one is admitted yet, so no lock word belongs to a live session. One walk of the index.
     */
    public List<Extent> liveBlocksClearingLocks()
    {
        final List<Extent> live = new ArrayList<>();
        final long groups = geometry.groupCount();
        final long dataLength = geometry.dataLength();
        for (long g = 0; g < groups; g++)
        {
            final long lockOffset = geometry.groupRegionOffset(g) + BucketDescriptor.INSERT_LOCK_OFFSET;
            final long lock = atomics.get(lockOffset);
            if (lock != 0)
            {
                atomics.compareAndSwap(lockOffset, lock, 0L);
            }
            for (int s = 0; s < BucketDescriptor.SLOTS_PER_GROUP; s++)
            {
                final long word = slot(g, s);
                if (!SlotWord.namesBlock(word))
                {
                    continue;
                }
                final long offset = SlotWord.blockOffset(word);
                final long length = SlotWord.blockLength(word);
                if (offset > 0 && length > 0 && offset <= dataLength - length)
                {
                    live.add(new Extent(offset, length));
                }
            }
        }
        live.sort(Comparator.comparingLong(Extent::offset));
        return live;
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
}
