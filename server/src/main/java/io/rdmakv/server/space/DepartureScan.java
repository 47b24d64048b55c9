package io.rdmakv.server.space;

import io.rdmakv.common.layout.BucketDescriptor;
import io.rdmakv.common.layout.RegionGeometry;
import io.rdmakv.common.layout.SlotWord;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A walk of the index for departed sessions, taken a range of bucket groups at a time and shared by every owner
 * added to it: per owner (a session id, which is also its insert-lock word), the blocks inside its grants that a
 * slot references, and the insert locks it held, released. Owners may join and leave between ranges; an owner has
 * been scanned once every group was visited after it joined (the caller counts that: {@code control.DepartureWalk}).
 *
 * <p>Visiting a group at one moment and another group later is as good as visiting them together: the owners'
 * sessions are fenced, so no slot comes to name their space after it joined (only a fenced session could write a
 * block there), and a slot that stops naming a block meanwhile leaves it to the FREE of whoever replaced it. A
 * lock is released with a CAS from the word read. Grants of different owners never overlap (the allocator grants
 * a byte to one owner at a time), so each referenced block is found in at most one owner's grants.
 */
public final class DepartureScan
{
    private final IndexAtomics atomics;
    private final RegionGeometry geometry;
    private final Map<Long, List<Extent>> grants = new HashMap<>();
    private final Map<Long, List<Extent>> live = new HashMap<>();
    private final Map<Long, int[]> locks = new HashMap<>();
    /** Every owner's grants, sorted by offset, and the owner of each (by the grant's offset). */
    private final List<Extent> sorted = new ArrayList<>();
    private final Map<Long, Long> ownerOfStart = new HashMap<>();

    public DepartureScan(final IndexAtomics atomics, final RegionGeometry geometry)
    {
        this.atomics = atomics;
        this.geometry = geometry;
    }

    /** Owners join the walk with what they held; an owner already in it is an error. */
    public void add(final Map<Long, List<Extent>> grantsByOwner)
    {
        grantsByOwner.forEach((owner, held) ->
        {
            if (grants.putIfAbsent(owner, List.copyOf(held)) != null)
            {
                throw new IllegalStateException("session " + owner + " is scanned for already");
            }
            live.put(owner, new ArrayList<>());
            locks.put(owner, new int[1]);
        });
        index();
    }

    /** Owners leave the walk: what was found for each (blocks sorted by offset). */
    public Map<Long, IndexScanner.Departure> remove(final Collection<Long> owners)
    {
        final Map<Long, IndexScanner.Departure> found = new HashMap<>();
        for (final Long owner : owners)
        {
            grants.remove(owner);
            final List<Extent> blocks = live.remove(owner);
            final int[] released = locks.remove(owner);
            if (blocks != null)
            {
                blocks.sort(Comparator.comparingLong(Extent::offset));
                found.put(owner, new IndexScanner.Departure(blocks, released[0]));
            }
        }
        index();
        return found;
    }

    /** Whether no owner is in the walk. */
    public boolean isEmpty()
    {
        return grants.isEmpty();
    }

    private void index()
    {
        sorted.clear();
        ownerOfStart.clear();
        grants.forEach((owner, held) ->
        {
            for (final Extent grant : held)
            {
                sorted.add(grant);
                ownerOfStart.put(grant.offset(), owner);
            }
        });
        sorted.sort(Comparator.comparingLong(Extent::offset));
    }

    /** Visits groups {@code [fromGroup, toGroup)} for every owner in the walk now. */
    public void visit(final long fromGroup, final long toGroup)
    {
        for (long g = fromGroup; g < toGroup; g++)
        {
            final long lockOffset = geometry.groupRegionOffset(g) + BucketDescriptor.INSERT_LOCK_OFFSET;
            final long lock = atomics.get(lockOffset);
            if (lock != 0)
            {
                final int[] released = locks.get(lock);
                if (released != null && atomics.compareAndSwap(lockOffset, lock, 0L) == lock)
                {
                    released[0]++;
                }
            }
            if (sorted.isEmpty())
            {
                continue;
            }
            for (int s = 0; s < BucketDescriptor.SLOTS_PER_GROUP; s++)
            {
                final long word = atomics.get(geometry.slotRegionOffset(g, s));
                final int at = !SlotWord.namesBlock(word) ? -1 : Extent.indexHolding(sorted, SlotWord.blockOffset(word));
                if (at >= 0)
                {
                    live.get(ownerOfStart.get(sorted.get(at).offset()))
                        .add(new Extent(SlotWord.blockOffset(word), SlotWord.blockLength(word)));
                }
            }
        }
    }
}
