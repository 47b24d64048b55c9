package io.rdmakv.ycsb;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The field names one thread has met, each decoded once: a record's name bytes map to the same {@code
 * String} every time without decoding or allocating (YCSB's records reuse {@code field0..fieldN}). Open
 * addressing over {@value #SLOTS} slots holding at most {@value #MAX_NAMES} names; a name met when the table
 * is full is decoded each time ({@link #NOT_CACHED}). Not thread-safe: one per binding instance.
 */
final class FieldNames
{
    static final int SLOTS = 256;
    static final int MAX_NAMES = SLOTS / 2;
    /** What {@link #lookup} returns for a valid name it does not keep. */
    static final int NOT_CACHED = -1;
    /** What {@link #lookup} returns for bytes that are not UTF-8. */
    static final int NOT_UTF8 = -2;

    private final byte[][] bytes = new byte[SLOTS][];
    private final String[] names = new String[SLOTS];
    private final CharsetDecoder utf8 = StandardCharsets.UTF_8.newDecoder()
        .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT);
    private int count;
    /** The last name {@link #lookup} decoded without keeping it. */
    private String uncached;

    /**
     * The slot of the name in {@code record[offset, offset + length)}, decoding and keeping it if new;
     * {@link #NOT_CACHED} when the table is full (then {@link #uncached()} is the name), {@link #NOT_UTF8}.
     */
    int lookup(final byte[] record, final int offset, final int length)
    {
        final int mask = SLOTS - 1;
        for (int slot = hash(record, offset, length) & mask; ; slot = (slot + 1) & mask)
        {
            final byte[] known = bytes[slot];
            if (known == null)
            {
                return add(slot, record, offset, length);
            }
            if (Arrays.equals(known, 0, known.length, record, offset, offset + length))
            {
                return slot;
            }
        }
    }

    /** The name in slot {@code slot}. */
    String name(final int slot)
    {
        return names[slot];
    }

    String uncached()
    {
        return uncached;
    }

    private int add(final int slot, final byte[] record, final int offset, final int length)
    {
        final String name;
        try
        {
            name = utf8.reset().decode(ByteBuffer.wrap(record, offset, length)).toString();
        }
        catch (final CharacterCodingException e)
        {
            return NOT_UTF8;
        }
        if (count == MAX_NAMES)
        {
            uncached = name;
            return NOT_CACHED;
        }
        bytes[slot] = Arrays.copyOfRange(record, offset, offset + length);
        names[slot] = name;
        count++;
        return slot;
    }

    private static int hash(final byte[] b, final int offset, final int length)
    {
        int h = 0x811C9DC5;
        for (int i = offset; i < offset + length; i++)
        {
            h = (h ^ b[i]) * 0x01000193;
        }
        return h ^ (h >>> 16);
    }
}
