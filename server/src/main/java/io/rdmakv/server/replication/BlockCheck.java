package io.rdmakv.server.replication;

import io.rdmakv.common.layout.IndexSegments;
import io.rdmakv.common.layout.KvBlock;
import io.rdmakv.common.layout.RegionGeometry;
import io.rdmakv.common.layout.SlotDamage;
import io.rdmakv.common.layout.SlotWord;

import java.lang.foreign.MemorySegment;

/**
 * What a block read from the primary must be before it is copied: a copy is never the judge of a block's
 * content, so anything a reader would refuse is left behind (and counted). A block is copied only when its
 * slot word points inside the data area, its header's lengths are sane and within the geometry's limits, its
 * length is the one the slot word gives, its checksum holds, its key's fingerprint is the word's and its key
 * hashes to the group the slot is in (inside its partition's segment). A block that fails is either damaged or was changing under the READ.
 */
final class BlockCheck
{
    private final RegionGeometry geometry;
    /** The checks a node makes of its own blocks (REPAIR, damage scans), here over the copy's buffer. */
    private final SlotDamage damage;
    private final KvBlock block = new KvBlock();

    BlockCheck(final RegionGeometry geometry, final IndexSegments segments)
    {
        this.geometry = geometry;
        this.damage = new SlotDamage(MemorySegment.NULL, geometry, segments);
    }

    /** Whether a slot word may be READ at all: a READ outside the data area would break the session. */
    boolean isReadable(final long word)
    {
        return SlotWord.isWithin(word, geometry.dataLength());
    }

    /** Whether the block read into {@code buffer} at {@code offset} for slot word {@code word} of {@code group} may be copied. */
    boolean isValid(final MemorySegment buffer, final long offset, final long word, final long group)
    {
        if (damage.judgeIn(buffer, offset, word) != SlotDamage.NONE)
        {
            return false;
        }
        // stricter than a reader: within this layout's limits too, since the copy becomes a replica of it
        block.wrap(buffer, offset);
        return block.keyLength() <= geometry.maxKeyLength() && block.valueLength() <= geometry.maxValueLength() &&
            damage.keyBelongsAt(group);
    }
}
