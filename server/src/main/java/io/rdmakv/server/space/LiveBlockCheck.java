package io.rdmakv.server.space;

import io.rdmakv.common.hash.KeyHash;
import io.rdmakv.common.layout.BucketDescriptor;
import io.rdmakv.common.layout.KvBlock;
import io.rdmakv.common.layout.KvBlockDescriptor;
import io.rdmakv.common.layout.RegionGeometry;
import io.rdmakv.common.layout.SlotWord;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * Refuses to free live data: before a FREE'd range is released, every 64-byte unit in it that starts
 * a well-formed block is looked up where its key lives (its two candidate groups); if a slot there
 * points at that unit, the block is live and the FREE is refused. A client can free any block it
 * superseded (another client may have written it), so ownership alone cannot decide; this can.
 * Control-path cost: one hash and 28 slot reads per candidate block.
 */
public final class LiveBlockCheck
{
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    private final MemorySegment region;
    private final RegionGeometry geometry;
    private final KvBlock block = new KvBlock();

    public LiveBlockCheck(final MemorySegment region, final RegionGeometry geometry)
    {
        this.region = region;
        this.geometry = geometry;
    }

    /** True when a slot references a block starting anywhere in {@code [offset, offset + length)} of the data area. */
    public boolean containsLiveBlock(final long offset, final long length)
    {
        for (long unit = offset; unit < offset + length; unit += KvBlockDescriptor.ALIGNMENT)
        {
            if (isLive(unit))
            {
                return true;
            }
        }
        return false;
    }

    private boolean isLive(final long dataOffset)
    {
        final long at = geometry.dataOffset() + dataOffset;
        if (at + KvBlockDescriptor.HEADER_LENGTH > region.byteSize())
        {
            return false;
        }
        block.wrap(region, at);
        if (!block.isHeaderSane())
        {
            return false;
        }
        final long hash = KeyHash.hash(region, block.keyOffset(), block.keyLength());
        final long groups = geometry.groupCount();
        return groupPointsAt(KeyHash.group1(hash, groups), dataOffset) ||
            groupPointsAt(KeyHash.group2(hash, groups), dataOffset);
    }

    private boolean groupPointsAt(final long group, final long dataOffset)
    {
        for (int s = 0; s < BucketDescriptor.SLOTS_PER_GROUP; s++)
        {
            final long word = (long)LONG.getAcquire(region, geometry.slotRegionOffset(group, s));
            if (word != SlotWord.EMPTY && SlotWord.blockOffset(word) == dataOffset)
            {
                return true;
            }
        }
        return false;
    }
}
