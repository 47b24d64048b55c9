package io.rdmakv.ycsb;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
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

    /** Decodes a whole record, fields in stored order (allocates; the binding reads with {@link RecordReader}). */
    public static Map<String, byte[]> decode(final byte[] record)
    {
        final RecordReader reader = new RecordReader(new FieldNames());
        reader.parse(record, record.length);
        return reader.toMap();
    }

    static int varintLength(final int value)
    {
        return value < 1 << 7 ? 1 : value < 1 << 14 ? 2 : value < 1 << 21 ? 3 : value < 1 << 28 ? 4 : 5;
    }

    static void putVarint(final ByteBuffer out, final int value)
    {
        int v = value;
        while ((v & ~0x7F) != 0)
        {
            out.put((byte)((v & 0x7F) | 0x80));
            v >>>= 7;
        }
        out.put((byte)v);
    }

    /** The exception for a corrupt record of {@code length} bytes (its message is built here, on the error path only). */
    static CorruptRecordException corrupt(final int length, final int offset, final String problem)
    {
        return new CorruptRecordException("corrupt record (" + length + " bytes): " + problem + " at offset " + offset);
    }
}
