package io.rdmakv.server.replication;

import io.rdmakv.common.hash.KeyHash;
import io.rdmakv.common.layout.IndexSegments;
import io.rdmakv.common.layout.KvBlock;
import io.rdmakv.common.layout.RegionGeometry;
import io.rdmakv.common.layout.SlotDamage;
import io.rdmakv.common.layout.SlotWord;

import java.lang.foreign.MemorySegment;

/**
 * What a block read from the source group's primary must be before a partition copier takes it: what {@link
 * BlockCheck} asks (inside the source's data area, sane lengths within this node's limits, the word's length, its
 * checksum, the word's fingerprint), and that its key hashes to the partition being moved and to a candidate group
 * of that partition's source segment in which its slot lies. Keeps the key's hash of the last block that passed,
 * for placing it in the target segment, and stamps that block with the version it had on the source ({@link
 * #stampOrigin}) before it is copied.
 */
final class MoveBlockCheck
{
    private final RegionGeometry source;
    private final RegionGeometry target;
    private final SlotDamage damage;
    private final KvBlock block = new KvBlock();
    private long hash;

    /** Blocks of a source laid out as {@code source}, copied into this node's {@code target} layout. */
    MoveBlockCheck(final RegionGeometry source, final RegionGeometry target)
    {
        this.source = source;
        this.target = target;
        this.damage = new SlotDamage(MemorySegment.NULL, source, IndexSegments.whole(source));
    }

    /** Whether a source word may be READ at all: a READ outside the source's data area would break the session. */
    boolean isReadable(final long word)
    {
        return SlotWord.isWithin(word, source.dataLength());
    }

    /**
     * Whether the block in {@code buffer} at {@code offset}, read for source word {@code word} of group {@code group},
     * may be copied for partition {@code partition} of {@code partitionCount} whose source segment starts at group
     * {@code base} and has {@code count} groups. On true, {@link #hash()} is its key's hash.
     */
    boolean isValid(final MemorySegment buffer, final long offset, final long word, final long group,
        final int partition, final int partitionCount, final long base, final long count)
    {
        if (damage.judgeIn(buffer, offset, word) != SlotDamage.NONE || damage.readableKeyLength() < 0)
        {
            return false;
        }
        block.wrap(buffer, offset);
        if (block.keyLength() > target.maxKeyLength() || block.valueLength() > target.maxValueLength())
        {
            return false;
        }
        final long h = KeyHash.hash(buffer, block.keyOffset(), block.keyLength());
        if (KeyHash.fingerprint(h) != SlotWord.fingerprint(word) || KeyHash.partition(h, partitionCount) != partition ||
            !KeyHash.isCandidateGroup(h, group, base, count))
        {
            return false;
        }
        hash = h;
        return true;
    }

    /**
     * Writes into the block {@link #isValid} last passed the version its key has on the source, read under source word
     * {@code word} of a placement salted {@code salt} ({@link KvBlock#version}: the block's own origin when it has one,
     * copied before and never rewritten since, else the word without {@code MOVING}, salted: what a client's GET
     * returned as the version there). The checksum is recomputed, so the copy is a valid block of its own. A key's
     * version then stays what it was across the move (docs/growth.md §15.1).
     */
    void stampOrigin(final long word, final long salt)
    {
        if (block.origin() == 0L)
        {
            block.origin(block.version(word, salt)).updateChecksum();
        }
    }

    /** The key hash of the block {@link #isValid} last passed. */
    long hash()
    {
        return hash;
    }
}
