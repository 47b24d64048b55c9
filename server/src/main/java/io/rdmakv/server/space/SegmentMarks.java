package io.rdmakv.server.space;

import io.rdmakv.common.LittleEndian;
import io.rdmakv.common.hash.KeyHash;
import io.rdmakv.common.layout.BucketDescriptor;
import io.rdmakv.common.layout.MovedHeader;
import io.rdmakv.common.layout.RegionGeometry;
import io.rdmakv.common.layout.SlotWord;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;

/**
 * The marks a replica makes on its own index segment (a partition's) during a move (docs/growth.md §7, "Marking,
 * opening"), each on this node's memory only, each idempotent:
 * <ul>
 *   <li>{@link #clearMoving}: every frozen slot back to its word without {@link SlotWord#MOVING} (the bare bit to
 *       empty), through {@link IndexAtomics}: the source's abort, the target's OPEN;</li>
 *   <li>{@link #markMoved}: the MOVED header ({@link MovedHeader}) in the first header of every group, a plain
 *       8-byte store (clients only READ it): the source at SWITCH;</li>
 *   <li>{@link #zero}: every slot and both headers to zero: the target's abort, the source's reclaim.</li>
 * </ul>
 * A group's replicas may clear in any order while writers run: a writer whose first backup took its word waits at a
 * later replica still frozen and CASes again there ({@code FrozenReplica} in the client). Control
 * path; any one thread at a time per segment. Allocates nothing.
 */
public final class SegmentMarks
{
    private static final VarHandle WORD = LittleEndian.WORD.varHandle();
    private static final int SLOTS = BucketDescriptor.SLOTS_PER_GROUP;

    private final MemorySegment region;
    private final RegionGeometry geometry;
    private final IndexAtomics atomics;

    /** Marks on {@code region} (the whole region, header at 0), laid out as {@code geometry}. */
    public SegmentMarks(final MemorySegment region, final RegionGeometry geometry, final IndexAtomics atomics)
    {
        this.region = region;
        this.geometry = geometry;
        this.atomics = atomics;
    }

    /**
     * Clears MOVING on every slot of {@code segment} ({@link KeyHash#segment}): a frozen word becomes the word without
     * the bit, the bare bit becomes empty. Nothing else CASes a frozen slot, but a CAS that loses is tried again from
     * what it found.
     *
     * @return the slots cleared (0 when none was frozen)
     */
    public long clearMoving(final long segment)
    {
        final long base = base(segment);
        final long end = base + KeyHash.segmentCount(segment);
        long cleared = 0;
        for (long g = base; g < end; g++)
        {
            for (int s = 0; s < SLOTS; s++)
            {
                final long slot = geometry.slotRegionOffset(g, s);
                long word = atomics.get(slot);
                while (SlotWord.isMoving(word))
                {
                    final long found = atomics.compareAndSwap(slot, word, SlotWord.withoutMoving(word));
                    if (found == word)
                    {
                        cleared++;
                    }
                    word = found == word ? SlotWord.withoutMoving(word) : found;
                }
            }
        }
        return cleared;
    }

    /**
     * Stores the MOVED mark of switch epoch {@code epoch} in the first header of every group of {@code segment}.
     *
     * @return the groups marked
     */
    public long markMoved(final long segment, final long epoch)
    {
        final long base = base(segment);
        final long end = base + KeyHash.segmentCount(segment);
        final long mark = MovedHeader.moved(epoch);
        for (long g = base; g < end; g++)
        {
            // an aligned 8-byte store: a concurrent READ sees it whole (docs/growth.md §15, open question 6)
            WORD.setRelease(region, geometry.groupRegionOffset(g) + BucketDescriptor.MOVED_HEADER_OFFSET, mark);
        }
        return end - base;
    }

    /**
     * Zeroes every slot and both headers (MOVED mark, insert lock) of every group of {@code segment}, through
     * {@link IndexAtomics} (clients CAS slots and locks; a CAS that loses is tried again).
     *
     * @return the words that were not zero
     */
    public long zero(final long segment)
    {
        final long base = base(segment);
        final long end = base + KeyHash.segmentCount(segment);
        long zeroed = 0;
        for (long g = base; g < end; g++)
        {
            final long group = geometry.groupRegionOffset(g);
            zeroed += zeroWord(group + BucketDescriptor.MOVED_HEADER_OFFSET);
            zeroed += zeroWord(group + BucketDescriptor.INSERT_LOCK_OFFSET);
            for (int s = 0; s < SLOTS; s++)
            {
                zeroed += zeroWord(geometry.slotRegionOffset(g, s));
            }
        }
        return zeroed;
    }

    /**
     * Zeroes {@code segment} as {@link #zero} does and returns the blocks its slots named just before (frozen or not;
     * data-area offsets and lengths), for the primary to free: a retired segment being reclaimed, whose words nothing
     * changes any more (every slot carries MOVING).
     */
    public List<Extent> zeroNaming(final long segment)
    {
        final long base = base(segment);
        final long end = base + KeyHash.segmentCount(segment);
        final List<Extent> named = new ArrayList<>();
        for (long g = base; g < end; g++)
        {
            for (int s = 0; s < SLOTS; s++)
            {
                final long word = atomics.get(geometry.slotRegionOffset(g, s));
                if (SlotWord.namesBlock(word))
                {
                    named.add(new Extent(SlotWord.blockOffset(word), SlotWord.blockLength(word)));
                }
            }
        }
        zero(segment);
        return named;
    }

    private int zeroWord(final long offset)
    {
        long word = atomics.get(offset);
        if (word == 0)
        {
            return 0;
        }
        while (word != 0)
        {
            final long found = atomics.compareAndSwap(offset, word, 0);
            word = found == word ? 0 : found;
        }
        return 1;
    }

    private long base(final long segment)
    {
        final long base = KeyHash.segmentBase(segment);
        final long count = KeyHash.segmentCount(segment);
        if (count < 1 || base + count > geometry.groupCount())
        {
            throw new IllegalArgumentException("segment (" + base + ", " + count + ") outside this node's index of " +
                geometry.groupCount() + " groups");
        }
        return base;
    }
}
