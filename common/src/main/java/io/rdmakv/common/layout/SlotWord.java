package io.rdmakv.common.layout;

/**
 * The index slot: one 64-bit word that a client replaces with a single RDMA compare-and-swap.
 * Zero means empty.
 *
 * <pre>
 *  63        56 55              44   43  42                                           0
 * +------------+------------------+------+---------------------------------------------+
 * | fingerprint|  length units    |MOVING|                 offset units                |
 * |   8 bits   |     12 bits      | 1 bit|                    43 bits                  |
 * +------------+------------------+------+---------------------------------------------+
 * </pre>
 *
 * <ul>
 *   <li><b>fingerprint</b>: 8 bits of the key's hash ({@code KeyHash.fingerprint}); a reader skips slots
 *       whose fingerprint differs before it reads any block.</li>
 *   <li><b>length units</b>: the key-value block's length in {@value #UNIT}-byte units, 1..{@value
 *       #MAX_LENGTH_UNITS}, so a block is at most {@value #MAX_BLOCK_LENGTH} bytes.</li>
 *   <li><b>MOVING</b> ({@link #MOVING}): the slot's partition is frozen for a move (docs/growth.md §6). Set and
 *       cleared only by nodes. A frozen word still names its block, so readers read through it; a frozen empty
 *       slot is the bare bit ({@link #FROZEN_EMPTY}), which names no block and which no insert may take. A
 *       client never CASes from a word with the bit: its writes to the partition wait until it is gone.</li>
 *   <li><b>offset units</b>: the block's offset from the start of the data area in {@value #UNIT}-byte
 *       units. Unit 0 of the data area is reserved and never holds a block, so a used slot is never 0
 *       whatever its fingerprint.</li>
 * </ul>
 *
 * Every method is static, allocation-free and branch-light: this is data-path code.
 */
public final class SlotWord
{
    /** The value of an empty slot. */
    public static final long EMPTY = 0L;

    /** Blocks are placed and sized in units of this many bytes (one cache line). */
    public static final int UNIT = 64;
    public static final int UNIT_SHIFT = 6;

    public static final int OFFSET_SHIFT = 0;
    public static final int OFFSET_BITS = 43;
    public static final int MOVING_SHIFT = OFFSET_SHIFT + OFFSET_BITS;
    public static final int LENGTH_SHIFT = MOVING_SHIFT + 1;
    public static final int LENGTH_BITS = 12;
    public static final int FINGERPRINT_SHIFT = LENGTH_SHIFT + LENGTH_BITS;
    public static final int FINGERPRINT_BITS = 8;

    public static final long OFFSET_MASK = (1L << OFFSET_BITS) - 1;
    public static final int LENGTH_MASK = (1 << LENGTH_BITS) - 1;
    public static final int FINGERPRINT_MASK = (1 << FINGERPRINT_BITS) - 1;

    /** The bit a node sets on every slot of a partition it freezes for a move. */
    public static final long MOVING = 1L << MOVING_SHIFT;

    /** An empty slot frozen for a move: names no block, and no insert may take it. */
    public static final long FROZEN_EMPTY = MOVING;

    /** The largest length a slot can describe, in units. */
    public static final int MAX_LENGTH_UNITS = LENGTH_MASK;

    /** The largest key-value block a slot can point to: 4095 * 64 = 262080 bytes. */
    public static final int MAX_BLOCK_LENGTH = MAX_LENGTH_UNITS * UNIT;

    /** The largest offset a slot can hold, in units. */
    public static final long MAX_OFFSET_UNITS = OFFSET_MASK;

    /** The largest data area a slot can address: 2^43 units of 64 bytes (512 TiB). */
    public static final long MAX_DATA_LENGTH = (MAX_OFFSET_UNITS + 1) * UNIT;

    /** The first offset unit a block may use: unit 0 is reserved so a used slot is never {@link #EMPTY}. */
    public static final long FIRST_OFFSET_UNIT = 1;

    private SlotWord()
    {
    }

    /**
     * Packs a slot from its fields in units.
     *
     * @throws IllegalArgumentException naming the field when a value is out of range: fingerprint outside
     *     0..255, length units outside 1..4095, offset units outside 1..2^43-1.
     */
    public static long encode(final int fingerprint, final int lengthUnits, final long offsetUnits)
    {
        if ((fingerprint & ~FINGERPRINT_MASK) != 0)
        {
            throw new IllegalArgumentException("slot fingerprint " + fingerprint + " outside 0.." + FINGERPRINT_MASK);
        }
        if (lengthUnits < 1 || lengthUnits > MAX_LENGTH_UNITS)
        {
            throw new IllegalArgumentException(
                "slot length " + lengthUnits + " units outside 1.." + MAX_LENGTH_UNITS + " (blocks of at most " +
                MAX_BLOCK_LENGTH + " bytes)");
        }
        if (offsetUnits < FIRST_OFFSET_UNIT || offsetUnits > MAX_OFFSET_UNITS)
        {
            throw new IllegalArgumentException(
                "slot offset " + offsetUnits + " units outside " + FIRST_OFFSET_UNIT + ".." + MAX_OFFSET_UNITS +
                " (unit 0 of the data area is reserved)");
        }
        return pack(fingerprint, lengthUnits, offsetUnits);
    }

    /**
     * Packs a slot from a block's offset in the data area and its length, both in bytes and both multiples
     * of {@value #UNIT}.
     *
     * @throws IllegalArgumentException when either is not a multiple of 64 or out of range.
     */
    public static long encodeBlock(final int fingerprint, final long blockOffset, final int blockLength)
    {
        if ((blockOffset & (UNIT - 1)) != 0 || (blockLength & (UNIT - 1)) != 0)
        {
            throw new IllegalArgumentException(
                "block offset " + blockOffset + " and length " + blockLength + " must be multiples of " + UNIT);
        }
        return encode(fingerprint, blockLength >>> UNIT_SHIFT, blockOffset >> UNIT_SHIFT);
    }

    /**
     * Packs a slot without checking; for callers that have checked the ranges once (the fields are masked,
     * so an out-of-range value corrupts only its own field).
     */
    public static long pack(final int fingerprint, final int lengthUnits, final long offsetUnits)
    {
        return ((long)(fingerprint & FINGERPRINT_MASK) << FINGERPRINT_SHIFT) |
            ((long)(lengthUnits & LENGTH_MASK) << LENGTH_SHIFT) |
            ((offsetUnits & OFFSET_MASK) << OFFSET_SHIFT);
    }

    public static boolean isEmpty(final long word)
    {
        return word == EMPTY;
    }

    /** Whether the word names a block (frozen or not): neither {@link #EMPTY} nor {@link #FROZEN_EMPTY}. */
    public static boolean namesBlock(final long word)
    {
        return (word & ~MOVING) != 0;
    }

    /** Whether the slot is frozen for a move ({@link #MOVING}). */
    public static boolean isMoving(final long word)
    {
        return (word & MOVING) != 0;
    }

    /** The word without {@link #MOVING}: what it was before the freeze, and what it names. */
    public static long withoutMoving(final long word)
    {
        return word & ~MOVING;
    }

    public static int fingerprint(final long word)
    {
        return (int)(word >>> FINGERPRINT_SHIFT) & FINGERPRINT_MASK;
    }

    public static int lengthUnits(final long word)
    {
        return (int)(word >>> LENGTH_SHIFT) & LENGTH_MASK;
    }

    public static long offsetUnits(final long word)
    {
        return (word >>> OFFSET_SHIFT) & OFFSET_MASK;
    }

    /** The block's length in bytes. */
    public static int blockLength(final long word)
    {
        return lengthUnits(word) << UNIT_SHIFT;
    }

    /** The block's offset from the start of the data area, in bytes. */
    public static long blockOffset(final long word)
    {
        return offsetUnits(word) << UNIT_SHIFT;
    }

    /**
     * Whether a non-empty slot points to a block that lies inside a data area of {@code dataLength} bytes
     * and avoids the reserved unit: check this before reading a block, since a read outside the memory
     * region breaks the queue pair ({@code REM_ACCESS_ERR}).
     */
    public static boolean isWithin(final long word, final long dataLength)
    {
        final long offsetUnits = offsetUnits(word);
        final int lengthUnits = lengthUnits(word);
        return offsetUnits >= FIRST_OFFSET_UNIT && lengthUnits > 0 &&
            ((offsetUnits + lengthUnits) << UNIT_SHIFT) <= dataLength;
    }

    /** For logs: {@code slot{fp=0x2a len=128 off=4096}}, {@code slot{empty}}, with " moving" when frozen. */
    public static String toString(final long word)
    {
        if (!namesBlock(word))
        {
            return isMoving(word) ? "slot{empty moving}" : "slot{empty}";
        }
        return "slot{fp=0x" + Integer.toHexString(fingerprint(word)) + " len=" + blockLength(word) + " off=" +
            blockOffset(word) + (isMoving(word) ? " moving}" : "}");
    }
}
