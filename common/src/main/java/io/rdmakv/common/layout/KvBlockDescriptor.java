package io.rdmakv.common.layout;

/**
 * Layout of a key-value block: what a slot points to. A client writes a block out of place into space it
 * was granted, then swings a slot to it with compare-and-swap; from then on the block is immutable until
 * it is freed. Blocks start on a {@value #ALIGNMENT}-byte boundary of the data area and their length is a
 * multiple of {@value #ALIGNMENT}.
 *
 * <pre>
 *   0               4          6             8                12                 16             24
 *   +---------------+----------+-------------+----------------+------------------+--------------+
 *   | checksum u32  | flags u16| key_len u16 | value_len u32  | writer_epoch u32 | origin u64   |
 *   +---------------+----------+-------------+----------------+------------------+--------------+
 *  24 key bytes (key_len)
 *  24 + key_len: value bytes (value_len)
 *  24 + key_len + value_len: zero padding up to a multiple of 64
 * </pre>
 *
 * <ul>
 *   <li><b>checksum</b>: CRC-32C (Castagnoli, {@link java.util.zip.CRC32C}) of bytes {@code [4, 24 + key_len
 *       + value_len)}: the rest of the header, the key and the value, not the padding.</li>
 *   <li><b>flags</b>: {@link #FLAG_TOMBSTONE}; other bits zero.</li>
 *   <li><b>writer_epoch</b>: the low 32 bits of the map epoch of the session that wrote the block (0: none).</li>
 *   <li><b>origin</b>: 0 for a block a client wrote, whose version is the slot word naming it. A partition
 *       copier moving the key to another replica group writes the version the key had on the source there
 *       (the source's {@code origin} when not 0, else the source slot word without {@code MOVING}), so that a
 *       key's version does not change when its partition moves (docs/growth.md §15.1).</li>
 * </ul>
 *
 * A reader accepts a block only if its lengths are in range, its checksum holds and its key is the key it
 * asked for; anything else means the block was torn or reused under it, and it retries.
 *
 * <p>The limits on keys and values live here and only here. A block must fit in one slot's length field
 * ({@link SlotWord#MAX_BLOCK_LENGTH}, 262080 bytes), so the value limit is what remains of that after the
 * header and the longest key: 261032 bytes.
 */
public final class KvBlockDescriptor
{
    public static final int ALIGNMENT = SlotWord.UNIT;

    public static final int FLAG_TOMBSTONE = 1;

    public static final int CHECKSUM_OFFSET;
    public static final int FLAGS_OFFSET;
    public static final int KEY_LENGTH_OFFSET;
    public static final int VALUE_LENGTH_OFFSET;
    public static final int WRITER_EPOCH_OFFSET;
    public static final int ORIGIN_OFFSET;
    public static final int HEADER_LENGTH;
    public static final int KEY_OFFSET;

    /** The checksum covers the block from here (the byte after the checksum field). */
    public static final int CHECKSUM_FROM;

    static
    {
        int offset = 0;
        CHECKSUM_OFFSET = offset;
        offset += Integer.BYTES;

        FLAGS_OFFSET = offset;
        offset += Short.BYTES;

        KEY_LENGTH_OFFSET = offset;
        offset += Short.BYTES;

        VALUE_LENGTH_OFFSET = offset;
        offset += Integer.BYTES;

        WRITER_EPOCH_OFFSET = offset;
        offset += Integer.BYTES;

        ORIGIN_OFFSET = offset;
        offset += Long.BYTES;

        HEADER_LENGTH = offset;
        KEY_OFFSET = offset;
        CHECKSUM_FROM = FLAGS_OFFSET;
    }

    /** The longest key, in bytes. */
    public static final int MAX_KEY_LENGTH = 1024;

    /** The longest block a slot can describe. */
    public static final int MAX_BLOCK_LENGTH = SlotWord.MAX_BLOCK_LENGTH;

    /** The longest value, in bytes: what a maximal block leaves after the header and the longest key. */
    public static final int MAX_VALUE_LENGTH = MAX_BLOCK_LENGTH - HEADER_LENGTH - MAX_KEY_LENGTH;

    private KvBlockDescriptor()
    {
    }

    /** The length of a block holding such a key and value: header + key + value, rounded up to 64. */
    public static int blockLength(final int keyLength, final int valueLength)
    {
        return align(HEADER_LENGTH + keyLength + valueLength);
    }

    /** Offset of the value inside a block whose key has {@code keyLength} bytes. */
    public static int valueOffset(final int keyLength)
    {
        return KEY_OFFSET + keyLength;
    }

    /** The number of bytes the checksum covers. */
    public static int checksummedLength(final int keyLength, final int valueLength)
    {
        return HEADER_LENGTH - CHECKSUM_FROM + keyLength + valueLength;
    }

    /** Rounds {@code length} up to a multiple of {@value #ALIGNMENT}. */
    public static int align(final int length)
    {
        return (length + ALIGNMENT - 1) & -ALIGNMENT;
    }

    /**
     * Checks a key length against {@link #MAX_KEY_LENGTH}.
     *
     * @throws IllegalArgumentException naming the length and the limit.
     */
    public static void checkKeyLength(final int keyLength)
    {
        if (keyLength < 0 || keyLength > MAX_KEY_LENGTH)
        {
            throw new IllegalArgumentException(
                "key of " + keyLength + " bytes is too long: keys may have at most " + MAX_KEY_LENGTH + " bytes");
        }
    }

    /**
     * Checks a value length against {@link #MAX_VALUE_LENGTH}.
     *
     * @throws IllegalArgumentException naming the length and the limit.
     */
    public static void checkValueLength(final int valueLength)
    {
        if (valueLength < 0 || valueLength > MAX_VALUE_LENGTH)
        {
            throw new IllegalArgumentException(
                "value of " + valueLength + " bytes is too long: values may have at most " + MAX_VALUE_LENGTH +
                " bytes");
        }
    }
}
