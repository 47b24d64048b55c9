package io.rdmakv.ycsb;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The binary form of a YCSB record (a map of field name to bytes) stored as one value:
 *
 * <pre>
 * record := FORMAT(u8 = 1) count(varint) field{count}
 * field  := nameLength(varint) name(UTF-8) valueLength(varint) value
 * </pre>
 *
 * A varint is an unsigned LEB128 number of at most 5 bytes, at most {@link Integer#MAX_VALUE}. YCSB's
 * default record (10 fields named field0..field9 of 100 bytes) takes 1,082 bytes. Decoding checks every
 * length against the bytes left and rejects a repeated field name, malformed UTF-8 and trailing bytes,
 * throwing {@link CorruptRecordException}.
 */
public final class RecordCodec
{
    /** The first byte of every record: the format's version. */
    public static final byte FORMAT = 1;

    private RecordCodec()
    {
    }

    /** Encodes {@code fields} in their iteration order. */
    public static byte[] encode(final Map<String, byte[]> fields)
    {
        final byte[][] names = new byte[fields.size()][];
        int length = 1 + varintLength(fields.size());
        int i = 0;
        for (final Map.Entry<String, byte[]> field : fields.entrySet())
        {
            names[i] = field.getKey().getBytes(StandardCharsets.UTF_8);
            length += varintLength(names[i].length) + names[i].length + varintLength(field.getValue().length) +
                field.getValue().length;
            i++;
        }
        final ByteBuffer out = ByteBuffer.allocate(length);
        out.put(FORMAT);
        putVarint(out, fields.size());
        i = 0;
        for (final byte[] value : fields.values())
        {
            putVarint(out, names[i].length);
            out.put(names[i++]);
            putVarint(out, value.length);
            out.put(value);
        }
        return out.array();
    }

    /** Decodes a whole record, fields in stored order. */
    public static Map<String, byte[]> decode(final byte[] record)
    {
        final ByteBuffer in = ByteBuffer.wrap(record);
        if (!in.hasRemaining() || in.get() != FORMAT)
        {
            throw corrupt(record, 0, record.length == 0 ? "empty value" :
                "format byte " + (record[0] & 0xFF) + " is not " + FORMAT);
        }
        final int count = varint(in, record, "field count");
        final Map<String, byte[]> fields = LinkedHashMap.newLinkedHashMap(Math.min(count, record.length / 2));
        for (int i = 0; i < count; i++)
        {
            final int nameAt = in.position();
            final String name = utf8(bytes(in, record, varint(in, record, "field " + i + " name length"),
                "field " + i + " name"), record, nameAt);
            final byte[] value = bytes(in, record, varint(in, record, "field '" + name + "' value length"),
                "field '" + name + "' value");
            if (fields.put(name, value) != null)
            {
                throw corrupt(record, nameAt, "field '" + name + "' appears twice");
            }
        }
        if (in.hasRemaining())
        {
            throw corrupt(record, in.position(), in.remaining() + " bytes after the last of " + count + " fields");
        }
        return fields;
    }

    static int varintLength(final int value)
    {
        return value < 1 << 7 ? 1 : value < 1 << 14 ? 2 : value < 1 << 21 ? 3 : value < 1 << 28 ? 4 : 5;
    }

    private static void putVarint(final ByteBuffer out, final int value)
    {
        int v = value;
        while ((v & ~0x7F) != 0)
        {
            out.put((byte)((v & 0x7F) | 0x80));
            v >>>= 7;
        }
        out.put((byte)v);
    }

    private static int varint(final ByteBuffer in, final byte[] record, final String what)
    {
        final int start = in.position();
        long value = 0;
        for (int shift = 0; shift < 35; shift += 7)
        {
            if (!in.hasRemaining())
            {
                throw corrupt(record, start, what + " runs past the end");
            }
            final byte b = in.get();
            value |= (long)(b & 0x7F) << shift;
            if (b >= 0)
            {
                if (value > Integer.MAX_VALUE)
                {
                    throw corrupt(record, start, what + " " + value + " is too large");
                }
                return (int)value;
            }
        }
        throw corrupt(record, start, what + " is longer than 5 bytes");
    }

    private static byte[] bytes(final ByteBuffer in, final byte[] record, final int length, final String what)
    {
        if (length > in.remaining())
        {
            throw corrupt(record, in.position(), what + " of " + length + " bytes runs past the end (" +
                in.remaining() + " left)");
        }
        final byte[] result = new byte[length];
        in.get(result);
        return result;
    }

    private static String utf8(final byte[] name, final byte[] record, final int at)
    {
        try
        {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(name)).toString();
        }
        catch (final CharacterCodingException e)
        {
            throw corrupt(record, at, "field name is not UTF-8");
        }
    }

    private static CorruptRecordException corrupt(final byte[] record, final int offset, final String problem)
    {
        return new CorruptRecordException("corrupt record (" + record.length + " bytes): " + problem + " at offset " +
            offset);
    }
}
