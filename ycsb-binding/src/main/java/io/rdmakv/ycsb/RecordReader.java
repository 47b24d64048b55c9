package io.rdmakv.ycsb;

import site.ycsb.ByteArrayByteIterator;
import site.ycsb.ByteIterator;

import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Reads a record ({@link RecordCodec}'s format) where it lies, without copying or decoding more than the
 * caller asks for: {@link #parse} checks the whole record and notes where each field's name and value are;
 * {@link #readInto} then hands YCSB the fields it wants, their values in one new array (the result YCSB
 * keeps), their names from {@link FieldNames}. Steady state allocates nothing else; an error message is
 * built only when a record is corrupt. Not thread-safe: one per binding instance.
 */
final class RecordReader
{
    private static final int COUNT = 0;
    private static final int NAME_LENGTH = 1;
    private static final int NAME = 2;
    private static final int VALUE_LENGTH = 3;
    private static final int VALUE = 4;
    private static final byte[] EMPTY = new byte[0];

    private final FieldNames names;
    private int[] nameOffset = new int[16];
    private int[] nameLength = new int[16];
    private int[] slot = new int[16];
    private int[] valueOffset = new int[16];
    private int[] valueLength = new int[16];
    private String[] uncached = new String[16];
    private final int[] seenAt = new int[FieldNames.SLOTS];
    private int stamp;
    private Set<String> uncachedSeen;
    private byte[] record = EMPTY;
    private int length;
    private int position;
    private int count;

    RecordReader(final FieldNames names)
    {
        this.names = names;
    }

    /** Checks and indexes the record in {@code record[0, length)}; throws {@link CorruptRecordException}. */
    int parse(final byte[] record, final int length)
    {
        this.record = record;
        this.length = length;
        this.count = 0;
        if (length == 0 || record[0] != RecordCodec.FORMAT)
        {
            throw RecordCodec.corrupt(length, 0, length == 0 ? "empty value" :
                "format byte " + (record[0] & 0xFF) + " is not " + RecordCodec.FORMAT);
        }
        position = 1;
        final int fields = varint(COUNT, 0);
        ensureCapacity(Math.min(fields, length / 2));
        if (++stamp == 0)
        {
            Arrays.fill(seenAt, 0);
            stamp = 1;
        }
        if (uncachedSeen != null)
        {
            uncachedSeen.clear();
        }
        for (int i = 0; i < fields; i++)
        {
            ensureCapacity(i + 1);
            final int nameAt = position;
            nameLength[i] = varint(NAME_LENGTH, i);
            nameOffset[i] = span(nameLength[i], NAME, i);
            slot[i] = names.lookup(record, nameOffset[i], nameLength[i]);
            if (slot[i] == FieldNames.NOT_UTF8)
            {
                throw RecordCodec.corrupt(length, nameAt, "field name is not UTF-8");
            }
            uncached[i] = slot[i] == FieldNames.NOT_CACHED ? names.uncached() : null;
            valueLength[i] = varint(VALUE_LENGTH, i);
            valueOffset[i] = span(valueLength[i], VALUE, i);
            if (firstTime(i))
            {
                count = i + 1;
                continue;
            }
            throw RecordCodec.corrupt(length, nameAt, "field '" + name(i) + "' appears twice");
        }
        count = fields;
        if (position != length)
        {
            throw RecordCodec.corrupt(length, position, (length - position) + " bytes after the last of " + fields +
                " fields");
        }
        return count;
    }

    int count()
    {
        return count;
    }

    String name(final int field)
    {
        return slot[field] >= 0 ? names.name(slot[field]) : uncached[field];
    }

    int nameOffset(final int field)
    {
        return nameOffset[field];
    }

    int nameLength(final int field)
    {
        return nameLength[field];
    }

    int valueOffset(final int field)
    {
        return valueOffset[field];
    }

    int valueLength(final int field)
    {
        return valueLength[field];
    }

    /** Puts the parsed fields that {@code wanted} names (all when null) into {@code result}. */
    void readInto(final Set<String> wanted, final Map<String, ByteIterator> result)
    {
        int total = 0;
        for (int i = 0; i < count; i++)
        {
            if (wanted == null || wanted.contains(name(i)))
            {
                total += valueLength[i];
            }
        }
        final byte[] values = total == 0 ? EMPTY : new byte[total];
        int at = 0;
        for (int i = 0; i < count; i++)
        {
            if (wanted == null || wanted.contains(name(i)))
            {
                System.arraycopy(record, valueOffset[i], values, at, valueLength[i]);
                result.put(name(i), new ByteArrayByteIterator(values, at, valueLength[i]));
                at += valueLength[i];
            }
        }
    }

    /** The parsed fields as a map of copies, in stored order. */
    Map<String, byte[]> toMap()
    {
        final Map<String, byte[]> fields = LinkedHashMap.newLinkedHashMap(count);
        for (int i = 0; i < count; i++)
        {
            fields.put(name(i), Arrays.copyOfRange(record, valueOffset[i], valueOffset[i] + valueLength[i]));
        }
        return fields;
    }

    private boolean firstTime(final int field)
    {
        if (slot[field] >= 0)
        {
            if (seenAt[slot[field]] == stamp)
            {
                return false;
            }
            seenAt[slot[field]] = stamp;
            return true;
        }
        if (uncachedSeen == null)
        {
            uncachedSeen = new HashSet<>();
        }
        return uncachedSeen.add(uncached[field]);
    }

    private int span(final int bytes, final int what, final int field)
    {
        if (bytes > length - position)
        {
            throw RecordCodec.corrupt(length, position, describe(what, field) + " of " + bytes +
                " bytes runs past the end (" + (length - position) + " left)");
        }
        final int start = position;
        position += bytes;
        return start;
    }

    private int varint(final int what, final int field)
    {
        final int start = position;
        long value = 0;
        for (int shift = 0; shift < 35; shift += 7)
        {
            if (position == length)
            {
                throw RecordCodec.corrupt(length, start, describe(what, field) + " runs past the end");
            }
            final byte b = record[position++];
            value |= (long)(b & 0x7F) << shift;
            if (b >= 0)
            {
                if (value > Integer.MAX_VALUE)
                {
                    throw RecordCodec.corrupt(length, start, describe(what, field) + " " + value + " is too large");
                }
                return (int)value;
            }
        }
        throw RecordCodec.corrupt(length, start, describe(what, field) + " is longer than 5 bytes");
    }

    /** Names a field of the record, for an error message only. */
    private String describe(final int what, final int field)
    {
        return switch (what)
        {
            case COUNT -> "field count";
            case NAME_LENGTH -> "field " + field + " name length";
            case NAME -> "field " + field + " name";
            case VALUE_LENGTH -> "field '" + name(field) + "' value length";
            default -> "field '" + name(field) + "' value";
        };
    }

    private void ensureCapacity(final int fields)
    {
        if (fields > slot.length)
        {
            final int n = Math.max(fields, slot.length * 2);
            nameOffset = Arrays.copyOf(nameOffset, n);
            nameLength = Arrays.copyOf(nameLength, n);
            slot = Arrays.copyOf(slot, n);
            valueOffset = Arrays.copyOf(valueOffset, n);
            valueLength = Arrays.copyOf(valueLength, n);
            uncached = Arrays.copyOf(uncached, n);
        }
    }
}
