package io.rdmakv.common.layout;

import io.rdmakv.common.hash.KeyHash;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Judges a used slot on the node's own memory: does its word name a block that could be read at all
 * (inside the data area), and is that block whole (header in range, length as the word says, checksum)?
 * What the node's REPAIR check and its damage scan share, and what a test node plays.
 *
 * <p>A slot's block is immutable while the slot names it, and a freed block waits out the grace period
 * before it is reused, so a referenced block that fails these checks is damaged, not being replaced; the
 * caller decides how long it must have looked damaged before it acts (see the node's repair).
 *
 * <p>The verdicts are codes, {@link #NONE} for a whole block; they travel in REPAIR_REPLY and
 * DAMAGE_SCAN_OK, so their values are part of the protocol. The block's key is {@linkplain
 * #readableKeyLength() readable} when its key length field fits the block the word names: then it can be
 * compared with a key ({@link #keyEquals}) and asked whether it could live in a given slot at all
 * ({@link #keyBelongsAt}); a key that could not is damaged bytes, not evidence of another key.
 *
 * <p>Reads the region with plain loads (blocks are not CAS-able words); never throws for any bytes.
 * Not thread-safe: one instance per thread. Allocates nothing after construction except {@link #keyBytes}.
 */
public final class SlotDamage
{
    /** The block is whole: header in range, length as the word says, checksum holds. */
    public static final int NONE = 0;
    /** The word names a block outside the data area (or in its reserved first unit): it cannot be read. */
    public static final int OUTSIDE_DATA_AREA = 1;
    /** The block's key or value length field is out of range. */
    public static final int BAD_HEADER = 2;
    /** The block's header gives another length than the slot word. */
    public static final int BAD_LENGTH = 3;
    /** The block's checksum does not hold. */
    public static final int BAD_CHECKSUM = 4;

    private final MemorySegment region;
    private final RegionGeometry geometry;
    private final IndexSegments segments;
    private final KvBlock block = new KvBlock();
    private long word;
    /** The segment the last judged block lies in (the region, or a copy's buffer). */
    private MemorySegment judged;
    private int keyLength = -1;

    /** Judges slots of {@code region}, laid out as {@code geometry} says, one segment over its whole index. */
    public SlotDamage(final MemorySegment region, final RegionGeometry geometry)
    {
        this(region, geometry, IndexSegments.whole(geometry));
    }

    /** Judges slots of {@code region}, laid out as {@code geometry} says, keys placed by {@code segments}. */
    public SlotDamage(final MemorySegment region, final RegionGeometry geometry, final IndexSegments segments)
    {
        this.region = region;
        this.geometry = geometry;
        this.segments = segments;
    }

    /** A verdict's name for logs and tools: {@code outside_data_area}, {@code bad_checksum}, ... */
    public static String describe(final int damage)
    {
        return switch (damage)
        {
            case NONE -> "none";
            case OUTSIDE_DATA_AREA -> "outside_data_area";
            case BAD_HEADER -> "bad_header";
            case BAD_LENGTH -> "bad_length";
            case BAD_CHECKSUM -> "bad_checksum";
            default -> "damage_" + damage;
        };
    }

    /**
     * Judges the block that the used slot word {@code word} names; afterwards {@link #readableKeyLength()}
     * and the key methods describe that block.
     *
     * @return {@link #NONE} or the first thing wrong, in the order a reader checks them
     */
    public int judge(final long word)
    {
        return judgeIn(region, geometry.dataOffset() + SlotWord.blockOffset(word), word);
    }

    /**
     * {@link #judge} of a copy of the block: the bytes at {@code offset} of {@code segment} (a block READ from
     * another node into a local buffer), judged as the block that {@code word} names.
     */
    public int judgeIn(final MemorySegment segment, final long offset, final long word)
    {
        this.word = word;
        this.judged = segment;
        keyLength = -1;
        if (!SlotWord.isWithin(word, geometry.dataLength()))
        {
            return OUTSIDE_DATA_AREA;
        }
        block.wrap(segment, offset);
        final int length = block.keyLength();
        if (length <= KvBlockDescriptor.MAX_KEY_LENGTH && KvBlockDescriptor.KEY_OFFSET + length <=
            SlotWord.blockLength(word))
        {
            keyLength = length;
        }
        if (!block.isHeaderSane())
        {
            return BAD_HEADER;
        }
        if (block.blockLength() != SlotWord.blockLength(word))
        {
            return BAD_LENGTH;
        }
        return block.isChecksumValid() ? NONE : BAD_CHECKSUM;
    }

    /** After {@link #judge}: the block's key length when its key lies inside the block, else -1. */
    public int readableKeyLength()
    {
        return keyLength;
    }

    /** After {@link #judge}: whether the block's key is readable and is {@code key}. */
    public boolean keyEquals(final byte[] key)
    {
        return keyLength == key.length &&
            SegmentBytes.equals(judged, block.keyOffset(), key, 0, key.length);
    }

    /**
     * After {@link #judge}: whether the block's key is readable and could live in the judged slot, which is in
     * group {@code group}: its fingerprint is the word's and {@code group} is one of its two candidate groups in its
     * partition's segment.
     */
    public boolean keyBelongsAt(final long group)
    {
        if (keyLength < 0)
        {
            return false;
        }
        final long hash = KeyHash.hash(judged, block.keyOffset(), keyLength);
        return KeyHash.fingerprint(hash) == SlotWord.fingerprint(word) &&
            segments.isCandidateGroup(hash, group);
    }

    /** After {@link #judge}: up to {@code max} bytes of the readable key (empty when unreadable; allocates). */
    public byte[] keyBytes(final int max)
    {
        final int n = Math.min(Math.max(keyLength, 0), max);
        final byte[] bytes = new byte[n];
        if (n > 0)
        {
            MemorySegment.copy(judged, ValueLayout.JAVA_BYTE, block.keyOffset(), bytes, 0, n);
        }
        return bytes;
    }
}
