package io.rdmakv.server.space;

import io.rdmakv.common.hash.KeyHash;
import io.rdmakv.common.layout.BucketDescriptor;
import io.rdmakv.common.layout.IndexSegments;
import io.rdmakv.common.layout.KvBlock;
import io.rdmakv.common.layout.KvBlockDescriptor;
import io.rdmakv.common.layout.RegionGeometry;
import io.rdmakv.common.layout.SlotWord;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * Refuses to free live data: before a FREE'd range is released, every 64-byte unit that starts a
 * well-formed block reaching into the range (units of the range itself, and those up to one largest
 * block before it, so a FREE of a block's tail is caught) is looked up where its key lives (its two
 * candidate groups); if a slot there points at that unit, the block is live and the FREE is refused.
 * Control-path cost: a header read per unit, plus one hash and 28 slot reads per candidate block;
 * {@link #unitsExamined()} counts the units, so callers can bound the work of one duty cycle.
 */
public final class LiveBlockCheck
{
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    private final MemorySegment region;
    private final RegionGeometry geometry;
    private final IndexSegments segments;
    private final KvBlock block = new KvBlock();
    private long unitsExamined;

    /** A check of {@code region} whose keys use its whole index (one segment). */
    public LiveBlockCheck(final MemorySegment region, final RegionGeometry geometry)
    {
        this(region, geometry, IndexSegments.whole(geometry));
    }

    /** A check of {@code region} whose keys are placed by {@code segments} (the node's applied map's table). */
    public LiveBlockCheck(final MemorySegment region, final RegionGeometry geometry, final IndexSegments segments)
    {
        this.region = region;
        this.geometry = geometry;
        this.segments = segments;
    }

    /** True when a slot references a block that overlaps {@code [offset, offset + length)} of the data area. */
    public boolean containsLiveBlock(final long offset, final long length)
    {
        return overlapsLiveBlock(lookbackStart(offset, 0), offset + length, offset);
    }

    /** The first unit whose block could reach {@code offset}: one largest block back, not before {@code floor}. */
    public static long lookbackStart(final long offset, final long floor)
    {
        return Math.max(floor, offset - SlotWord.MAX_BLOCK_LENGTH + KvBlockDescriptor.ALIGNMENT);
    }

    /**
     * True when a unit in {@code [fromUnit, toUnit)} starts a block that a slot references and that ends past
     * {@code rangeStart} (so it overlaps a range starting there). Examines {@code (toUnit - fromUnit) / 64} units.
     */
    public boolean overlapsLiveBlock(final long fromUnit, final long toUnit, final long rangeStart)
    {
        for (long unit = Math.max(fromUnit, 0); unit < toUnit; unit += KvBlockDescriptor.ALIGNMENT)
        {
            unitsExamined++;
            if (isLive(unit, rangeStart))
            {
                return true;
            }
        }
        return false;
    }

    /** The length of the well-formed block that starts at {@code dataOffset}, or 0 when none starts there. */
    public int blockLengthAt(final long dataOffset)
    {
        final long at = geometry.dataOffset() + dataOffset;
        if (dataOffset < 0 || at + KvBlockDescriptor.HEADER_LENGTH > region.byteSize())
        {
            return 0;
        }
        block.wrap(region, at);
        return block.isHeaderSane() && at + block.blockLength() <= region.byteSize() ? block.blockLength() : 0;
    }

    /** Units whose header was read since this check was made (the work FREEs cost). */
    public long unitsExamined()
    {
        return unitsExamined;
    }

    private boolean isLive(final long dataOffset, final long rangeStart)
    {
        final long at = geometry.dataOffset() + dataOffset;
        if (at + KvBlockDescriptor.HEADER_LENGTH > region.byteSize())
        {
            return false;
        }
        block.wrap(region, at);
        if (!block.isHeaderSane() || dataOffset + block.blockLength() <= rangeStart ||
            at + block.blockLength() > region.byteSize())
        {
            return false;
        }
        final long hash = KeyHash.hash(region, block.keyOffset(), block.keyLength());
        return groupPointsAt(segments.group1(hash), dataOffset) || groupPointsAt(segments.group2(hash), dataOffset);
    }

    private boolean groupPointsAt(final long group, final long dataOffset)
    {
        if (group < 0)
        {
            return false;
        }
        for (int s = 0; s < BucketDescriptor.SLOTS_PER_GROUP; s++)
        {
            final long word = (long)LONG.getAcquire(region, geometry.slotRegionOffset(group, s));
            if (SlotWord.namesBlock(word) && SlotWord.blockOffset(word) == dataOffset)
            {
                return true;
            }
        }
        return false;
    }
}
