package io.rdmakv.server.control;

import io.rdmakv.common.layout.IndexSegments;
import io.rdmakv.common.layout.RegionGeometry;
import io.rdmakv.common.layout.SlotDamage;
import io.rdmakv.common.layout.SlotWord;
import io.rdmakv.server.space.DataAreaAllocator;

import java.lang.foreign.MemorySegment;
import java.util.function.LongPredicate;

/**
 * The rule by which a primary settles a write caught between its first backup's CAS and its own (docs/design.md,
 * "Replicated writes"): it may <b>finish</b> it (push the backup's word onto its own slot) only while that writer
 * could still finish it itself: the word names a block inside the data area, not frozen, lying in a grant of a
 * session still live here, and the block is whole (header, length, checksum) with a key that could live in the
 * slot's group (the word's fingerprint, a candidate group in its partition's segment). Otherwise the writer is
 * gone (its session fenced before its space is reclaimed, so it can never CAS this node again) and the write must
 * be <b>undone</b>: the backups put back to this node's word. HELP ({@link ChainHelp}, which also requires the
 * block to be the asking client's key) and the partition freezer ({@link FreezeDecisions}) both decide with it, so
 * that the two always agree.
 *
 * <p>Control thread only: it reads the allocator, which nothing else changes meanwhile. Allocates nothing.
 */
public final class FinishRule
{
    private final RegionGeometry geometry;
    private final SlotDamage block;
    private final DataAreaAllocator allocator;
    private final LongPredicate liveSession;

    /**
     * @param region      the node's region, whose blocks are judged
     * @param segments    where keys may live in this node's index
     * @param liveSession whether a session id names a session live here
     */
    public FinishRule(final MemorySegment region, final RegionGeometry geometry, final IndexSegments segments,
        final DataAreaAllocator allocator, final LongPredicate liveSession)
    {
        this.geometry = geometry;
        this.block = new SlotDamage(region, geometry, segments);
        this.allocator = allocator;
        this.liveSession = liveSession;
    }

    /**
     * Whether this node may finish the write that left {@code word} on its first backup in a slot of group {@code
     * group} (see the class comment). After true, {@link #keyEquals} tells whether the block is a given key's.
     */
    public boolean mayFinish(final long word, final long group)
    {
        if (!SlotWord.namesBlock(word) || SlotWord.isMoving(word) || !SlotWord.isWithin(word, geometry.dataLength()))
        {
            return false;
        }
        final long owner = allocator.ownerOf(SlotWord.blockOffset(word), SlotWord.blockLength(word));
        if (owner <= DataAreaAllocator.NO_OWNER || !liveSession.test(owner))
        {
            return false;
        }
        return block.judge(word) == SlotDamage.NONE && block.keyBelongsAt(group);
    }

    /** After {@link #mayFinish} answered true: whether the block is {@code key}'s. */
    public boolean keyEquals(final byte[] key)
    {
        return block.keyEquals(key);
    }
}
