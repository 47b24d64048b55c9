package io.rdmakv.common.layout;

import io.rdmakv.common.LittleEndian;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static io.rdmakv.common.layout.KvBlockDescriptor.CHECKSUM_FROM;
import static io.rdmakv.common.layout.KvBlockDescriptor.CHECKSUM_OFFSET;
import static io.rdmakv.common.layout.KvBlockDescriptor.FLAGS_OFFSET;
import static io.rdmakv.common.layout.KvBlockDescriptor.FLAG_TOMBSTONE;
import static io.rdmakv.common.layout.KvBlockDescriptor.HEADER_LENGTH;
import static io.rdmakv.common.layout.KvBlockDescriptor.KEY_LENGTH_OFFSET;
import static io.rdmakv.common.layout.KvBlockDescriptor.KEY_OFFSET;
import static io.rdmakv.common.layout.KvBlockDescriptor.MAX_KEY_LENGTH;
import static io.rdmakv.common.layout.KvBlockDescriptor.MAX_VALUE_LENGTH;
import static io.rdmakv.common.layout.KvBlockDescriptor.ORIGIN_OFFSET;
import static io.rdmakv.common.layout.KvBlockDescriptor.WRITER_EPOCH_OFFSET;
import static io.rdmakv.common.layout.KvBlockDescriptor.VALUE_LENGTH_OFFSET;

/**
 * Flyweight over one key-value block (layout in {@link KvBlockDescriptor}): writes blocks, reads their
 * fields, computes and checks their CRC-32C, and validates a block a reader fetched.
 *
 * <p>Nothing here allocates once the flyweight has seen its segment: {@link #wrap(MemorySegment, long)}
 * makes a {@link Crc32cView} the first time it meets a segment (setup) and reuses it while the same segment
 * object is wrapped again; {@link #wrap(Crc32cView, long)} shares a view made elsewhere. Not thread-safe:
 * one instance per thread.
 *
 * <p>Field accessors are named after the fields; setters return {@code this}. The data-path results of
 * {@link #validate} are codes, not exceptions: {@link #VALID} or a negative reason a caller can count.
 */
public final class KvBlock
{
    /** The block holds the key asked for, its lengths are sane and its checksum holds. */
    public static final int VALID = 0;
    /** A length field is out of range, or the block would run past the end of the segment. */
    public static final int BAD_HEADER = -1;
    /** The block's length differs from the length the slot gave. */
    public static final int BAD_LENGTH = -2;
    /** The checksum does not hold: the block was torn or is being reused. */
    public static final int BAD_CHECKSUM = -3;
    /** A consistent block, but of another key (a fingerprint collision, or the slot moved on). */
    public static final int KEY_MISMATCH = -4;

    private Crc32cView view;
    private MemorySegment segment;
    private long offset;

    /**
     * Wraps the block at {@code offset}. Allocates a {@link Crc32cView} only when {@code segment} is not the
     * segment this flyweight wrapped last.
     */
    public KvBlock wrap(final MemorySegment segment, final long offset)
    {
        if (view == null || view.segment() != segment)
        {
            view = new Crc32cView(segment);
        }
        return wrap(view, offset);
    }

    /** Wraps the block at {@code offset} of the view's segment; allocates nothing. */
    public KvBlock wrap(final Crc32cView view, final long offset)
    {
        if (offset < 0 || offset > view.segment().byteSize() - HEADER_LENGTH)
        {
            throw new IndexOutOfBoundsException(
                "a block at " + offset + " does not fit its header in a segment of " + view.segment().byteSize() +
                " bytes");
        }
        this.view = view;
        this.segment = view.segment();
        this.offset = offset;
        return this;
    }

    public MemorySegment segment()
    {
        return segment;
    }

    public long offset()
    {
        return offset;
    }

    public int checksum()
    {
        return segment.get(LittleEndian.U32, offset + CHECKSUM_OFFSET);
    }

    public KvBlock checksum(final int checksum)
    {
        segment.set(LittleEndian.U32, offset + CHECKSUM_OFFSET, checksum);
        return this;
    }

    public int flags()
    {
        return LittleEndian.u16(segment, offset + FLAGS_OFFSET);
    }

    public KvBlock flags(final int flags)
    {
        LittleEndian.u16(segment, offset + FLAGS_OFFSET, flags);
        return this;
    }

    public boolean isTombstone()
    {
        return (flags() & FLAG_TOMBSTONE) != 0;
    }

    public int keyLength()
    {
        return LittleEndian.u16(segment, offset + KEY_LENGTH_OFFSET);
    }

    public KvBlock keyLength(final int keyLength)
    {
        LittleEndian.u16(segment, offset + KEY_LENGTH_OFFSET, keyLength);
        return this;
    }

    /** The low 32 bits of the map epoch of the session that wrote the block (0: none). */
    public int writerEpoch()
    {
        return segment.get(LittleEndian.U32, offset + WRITER_EPOCH_OFFSET);
    }

    /**
     * The version the key had on the group its partition was copied from (0: a client wrote this block, and the slot
     * word naming it is the version); see {@link KvBlockDescriptor}.
     */
    public long origin()
    {
        return segment.get(LittleEndian.U64, offset + ORIGIN_OFFSET);
    }

    /**
     * The version of the key this block holds when slot word {@code word} names it in a placement salted {@code salt}
     * ({@link VersionSalt}): the block's {@link #origin()} when it has one (it was copied in a partition move and not
     * rewritten since), else the word without {@link SlotWord#MOVING}, salted. The one rule for what a read returns
     * as a version.
     */
    public long version(final long word, final long salt)
    {
        final long origin = origin();
        return origin != 0L ? origin : SlotWord.withoutMoving(word) ^ salt;
    }

    /** Stores {@code origin} (the checksum is not updated: {@link #updateChecksum()} after). */
    public KvBlock origin(final long origin)
    {
        segment.set(LittleEndian.U64, offset + ORIGIN_OFFSET, origin);
        return this;
    }

    /** The value length as stored (a torn block may hold any value, negative included). */
    public int valueLength()
    {
        return segment.get(LittleEndian.U32, offset + VALUE_LENGTH_OFFSET);
    }

    public KvBlock valueLength(final int valueLength)
    {
        segment.set(LittleEndian.U32, offset + VALUE_LENGTH_OFFSET, valueLength);
        return this;
    }

    /** Offset of the key in the segment. */
    public long keyOffset()
    {
        return offset + KEY_OFFSET;
    }

    /** Offset of the value in the segment. */
    public long valueOffset()
    {
        return offset + KEY_OFFSET + keyLength();
    }

    /** The block's length (a multiple of 64) according to its header. */
    public int blockLength()
    {
        return KvBlockDescriptor.blockLength(keyLength(), valueLength());
    }

    /**
     * Writes a block holding {@code key} and {@code value}, no flags, with its checksum.
     *
     * @return the block's length, a multiple of 64.
     * @throws IllegalArgumentException for a key or value over the limits.
     * @throws IndexOutOfBoundsException when the block does not fit in the segment.
     */
    public int write(final byte[] key, final byte[] value)
    {
        return write(key, 0, key.length, value, 0, value.length, 0);
    }

    /** Writes a tombstone for {@code key}: an empty value with {@link KvBlockDescriptor#FLAG_TOMBSTONE}. */
    public int writeTombstone(final byte[] key)
    {
        return write(key, 0, key.length, key, 0, 0, FLAG_TOMBSTONE);
    }

    /** Writes a block from array slices; see {@link #write(byte[], byte[])}. */
    public int write(
        final byte[] key,
        final int keyOffset,
        final int keyLength,
        final byte[] value,
        final int valueOffset,
        final int valueLength,
        final int flags)
    {
        final int blockLength = prepare(keyLength, valueLength, flags, 0);
        MemorySegment.copy(key, keyOffset, segment, ValueLayout.JAVA_BYTE, offset + KEY_OFFSET, keyLength);
        MemorySegment.copy(
            value, valueOffset, segment, ValueLayout.JAVA_BYTE, offset + KEY_OFFSET + keyLength, valueLength);
        return finish(keyLength, valueLength, blockLength);
    }

    /** Writes a block from segment slices; see {@link #write(byte[], byte[])}. */
    public int write(
        final MemorySegment key,
        final long keyOffset,
        final int keyLength,
        final MemorySegment value,
        final long valueOffset,
        final int valueLength,
        final int flags)
    {
        return write(key, keyOffset, keyLength, value, valueOffset, valueLength, flags, 0);
    }

    /** {@link #write(MemorySegment, long, int, MemorySegment, long, int, int)}, stamped with {@code writerEpoch}. */
    public int write(
        final MemorySegment key,
        final long keyOffset,
        final int keyLength,
        final MemorySegment value,
        final long valueOffset,
        final int valueLength,
        final int flags,
        final int writerEpoch)
    {
        final int blockLength = prepare(keyLength, valueLength, flags, writerEpoch);
        MemorySegment.copy(key, keyOffset, segment, offset + KEY_OFFSET, keyLength);
        MemorySegment.copy(value, valueOffset, segment, offset + KEY_OFFSET + keyLength, valueLength);
        return finish(keyLength, valueLength, blockLength);
    }

    /** Computes the CRC-32C of the block as its header describes it (the header must be in range). */
    public int computeChecksum()
    {
        return view.crc32c(offset + CHECKSUM_FROM, KvBlockDescriptor.checksummedLength(keyLength(), valueLength()));
    }

    /** Stores {@link #computeChecksum()}: call after changing a block in place. */
    public KvBlock updateChecksum()
    {
        return checksum(computeChecksum());
    }

    /** Whether the lengths are in range and the block lies inside the segment (what {@link #BAD_HEADER} checks). */
    public boolean isHeaderSane()
    {
        return isSane(keyLength(), valueLength());
    }

    /** Whether the header is sane and the stored checksum matches the contents. */
    public boolean isChecksumValid()
    {
        return checkConsistency(keyLength(), valueLength(), -1) == VALID;
    }

    /** Whether the block's key is {@code key[keyOffset, keyOffset + keyLength)}; the header must be sane. */
    public boolean keyEquals(final byte[] key, final int keyOffset, final int keyLength)
    {
        return keyLength() == keyLength && SegmentBytes.equals(segment, offset + KEY_OFFSET, key, keyOffset, keyLength);
    }

    /** Whether the block's key is the {@code keyLength} bytes of {@code key} at {@code keyOffset}. */
    public boolean keyEquals(final MemorySegment key, final long keyOffset, final int keyLength)
    {
        return keyLength() == keyLength && SegmentBytes.equals(segment, offset + KEY_OFFSET, key, keyOffset, keyLength);
    }

    /**
     * Validates a block a reader fetched for {@code key}: header in range, length as the slot said (pass a
     * negative {@code expectedBlockLength} to skip that check), checksum, then key. The checksum comes
     * before the key so that a torn block reads as {@link #BAD_CHECKSUM} (retry) rather than {@link
     * #KEY_MISMATCH} (look elsewhere). The header is read once, so a block that changes underneath (the
     * server looking at its own region) yields a reason code, never an exception.
     *
     * @return {@link #VALID} or a negative reason code.
     */
    public int validate(final byte[] key, final int keyOffset, final int keyLength, final int expectedBlockLength)
    {
        final int blockKeyLength = keyLength();
        final int checked = checkConsistency(blockKeyLength, valueLength(), expectedBlockLength);
        if (checked != VALID)
        {
            return checked;
        }
        return blockKeyLength == keyLength &&
            SegmentBytes.equals(segment, offset + KEY_OFFSET, key, keyOffset, keyLength) ? VALID : KEY_MISMATCH;
    }

    /** As {@link #validate(byte[], int, int, int)} with the key in a segment. */
    public int validate(
        final MemorySegment key, final long keyOffset, final int keyLength, final int expectedBlockLength)
    {
        final int blockKeyLength = keyLength();
        final int checked = checkConsistency(blockKeyLength, valueLength(), expectedBlockLength);
        if (checked != VALID)
        {
            return checked;
        }
        return blockKeyLength == keyLength &&
            SegmentBytes.equals(segment, offset + KEY_OFFSET, key, keyOffset, keyLength) ? VALID : KEY_MISMATCH;
    }

    /** Whether the block is a consistent block of {@code key} (checksum holds and the key matches). */
    public boolean isValid(final byte[] key)
    {
        return validate(key, 0, key.length, -1) == VALID;
    }

    /** Whether the block is a consistent block of the key in {@code key} at {@code keyOffset}. */
    public boolean isValid(final MemorySegment key, final long keyOffset, final int keyLength)
    {
        return validate(key, keyOffset, keyLength, -1) == VALID;
    }

    /** Copies the key out (allocates: tools and tests). */
    public byte[] keyBytes()
    {
        return segment.asSlice(offset + KEY_OFFSET, keyLength()).toArray(ValueLayout.JAVA_BYTE);
    }

    /** Copies the value out (allocates: tools and tests). */
    public byte[] valueBytes()
    {
        return segment.asSlice(valueOffset(), valueLength()).toArray(ValueLayout.JAVA_BYTE);
    }

    /** Copies the value into {@code dst} at {@code dstOffset}; returns the value length. */
    public int copyValue(final byte[] dst, final int dstOffset)
    {
        final int valueLength = valueLength();
        MemorySegment.copy(segment, ValueLayout.JAVA_BYTE, valueOffset(), dst, dstOffset, valueLength);
        return valueLength;
    }

    @Override
    public String toString()
    {
        return segment == null ? "KvBlock{unwrapped}" :
            "KvBlock{offset=" + offset + " flags=" + flags() + " keyLength=" + keyLength() + " valueLength=" +
            valueLength() + " checksum=0x" + Integer.toHexString(checksum()) + "}";
    }

    private boolean isSane(final int keyLength, final int valueLength)
    {
        return keyLength <= MAX_KEY_LENGTH && valueLength >= 0 && valueLength <= MAX_VALUE_LENGTH &&
            offset + HEADER_LENGTH + keyLength + valueLength <= segment.byteSize();
    }

    private int checkConsistency(final int keyLength, final int valueLength, final int expectedBlockLength)
    {
        if (!isSane(keyLength, valueLength))
        {
            return BAD_HEADER;
        }
        if (expectedBlockLength >= 0 && KvBlockDescriptor.blockLength(keyLength, valueLength) != expectedBlockLength)
        {
            return BAD_LENGTH;
        }
        final int crc = view.crc32c(
            offset + CHECKSUM_FROM, KvBlockDescriptor.checksummedLength(keyLength, valueLength));
        return crc == checksum() ? VALID : BAD_CHECKSUM;
    }

    private int prepare(final int keyLength, final int valueLength, final int flags, final int writerEpoch)
    {
        KvBlockDescriptor.checkKeyLength(keyLength);
        KvBlockDescriptor.checkValueLength(valueLength);
        final int blockLength = KvBlockDescriptor.blockLength(keyLength, valueLength);
        if (offset > segment.byteSize() - blockLength)
        {
            throw new IndexOutOfBoundsException(
                "a block of " + blockLength + " bytes at " + offset + " does not fit in a segment of " +
                segment.byteSize() + " bytes");
        }
        LittleEndian.u16(segment, offset + FLAGS_OFFSET, flags);
        LittleEndian.u16(segment, offset + KEY_LENGTH_OFFSET, keyLength);
        segment.set(LittleEndian.U32, offset + VALUE_LENGTH_OFFSET, valueLength);
        segment.set(LittleEndian.U32, offset + WRITER_EPOCH_OFFSET, writerEpoch);
        segment.set(LittleEndian.U64, offset + ORIGIN_OFFSET, 0L);
        return blockLength;
    }

    private int finish(final int keyLength, final int valueLength, final int blockLength)
    {
        for (long i = offset + HEADER_LENGTH + keyLength + valueLength, end = offset + blockLength; i < end; i++)
        {
            segment.set(ValueLayout.JAVA_BYTE, i, (byte)0);
        }
        updateChecksum();
        return blockLength;
    }
}
