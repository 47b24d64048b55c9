package io.rdmakv.ycsb;

import site.ycsb.ByteIterator;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;

/**
 * Builds the record an insert or update writes, in reused buffers: {@link #collect} copies YCSB's new
 * field values once (a {@link ByteIterator} can be read only once, and an update may retry), {@link #merge}
 * writes the stored record's fields with the new values in place of theirs and the new fields after them
 * (the order {@code LinkedHashMap.putAll} gives), in {@link RecordCodec}'s format. Allocates only to grow
 * its buffers. Not thread-safe: one per binding instance.
 */
final class RecordUpdate
{
    private byte[] changes = new byte[4096];
    private int changesLength;
    private int[] nameOffset = new int[16];
    private int[] nameLength = new int[16];
    private int[] valueOffset = new int[16];
    private int[] valueLength = new int[16];
    private boolean[] replaced = new boolean[16];
    private int count;
    private byte[] out = new byte[4096];
    private ByteBuffer outBuffer = ByteBuffer.wrap(out);
    private MemorySegment outSegment = MemorySegment.ofArray(out);
    /** The last record's segment: YCSB's records keep one length, so it is made once. */
    private MemorySegment lastRecord = outSegment.asSlice(0, 0);

    /** Takes the new field values (consuming the iterators). */
    void collect(final Map<String, ByteIterator> values)
    {
        count = 0;
        changesLength = 0;
        ensureFields(values.size());
        for (final Map.Entry<String, ByteIterator> value : values.entrySet())
        {
            nameOffset[count] = changesLength;
            nameLength[count] = putName(value.getKey());
            valueOffset[count] = changesLength;
            valueLength[count] = putValue(value.getValue());
            count++;
        }
    }

    /**
     * Writes the record: the fields {@code current} parsed from {@code record} (none when {@code current} is
     * null: an insert), updated, then the new ones. Returns the record as a segment of its length.
     */
    MemorySegment merge(final RecordReader current, final byte[] record)
    {
        Arrays.fill(replaced, 0, count, false);
        final int stored = current == null ? 0 : current.count();
        int fields = stored;
        int length = 0;
        for (int i = 0; i < stored; i++)
        {
            final int change = find(record, current.nameOffset(i), current.nameLength(i));
            length += fieldLength(current.nameLength(i), change >= 0 ? valueLength[change] : current.valueLength(i));
        }
        for (int c = 0; c < count; c++)
        {
            if (!replaced[c])
            {
                fields++;
                length += fieldLength(nameLength[c], valueLength[c]);
            }
        }
        length += 1 + RecordCodec.varintLength(fields);
        ensureOut(length);
        outBuffer.clear();
        outBuffer.put(RecordCodec.FORMAT);
        RecordCodec.putVarint(outBuffer, fields);
        for (int i = 0; i < stored; i++)
        {
            put(record, current.nameOffset(i), current.nameLength(i));
            final int change = find(record, current.nameOffset(i), current.nameLength(i));
            if (change >= 0)
            {
                put(changes, valueOffset[change], valueLength[change]);
            }
            else
            {
                put(record, current.valueOffset(i), current.valueLength(i));
            }
        }
        for (int c = 0; c < count; c++)
        {
            if (!replaced[c])
            {
                put(changes, nameOffset[c], nameLength[c]);
                put(changes, valueOffset[c], valueLength[c]);
            }
        }
        if (lastRecord.byteSize() != length)
        {
            lastRecord = outSegment.asSlice(0, length);
        }
        return lastRecord;
    }

    private static int fieldLength(final int name, final int value)
    {
        return RecordCodec.varintLength(name) + name + RecordCodec.varintLength(value) + value;
    }

    /** The new value for the stored name at {@code record[offset, +length)}, marked replaced; -1 if none. */
    private int find(final byte[] record, final int offset, final int length)
    {
        for (int c = 0; c < count; c++)
        {
            if (nameLength[c] == length &&
                Arrays.equals(changes, nameOffset[c], nameOffset[c] + length, record, offset, offset + length))
            {
                replaced[c] = true;
                return c;
            }
        }
        return -1;
    }

    private void put(final byte[] from, final int offset, final int length)
    {
        RecordCodec.putVarint(outBuffer, length);
        outBuffer.put(from, offset, length);
    }

    private int putName(final String name)
    {
        final int n = name.length();
        ensureChanges(n * 3);
        for (int i = 0; i < n; i++)
        {
            final char c = name.charAt(i);
            if (c >= 0x80)
            {
                final byte[] utf8 = name.getBytes(StandardCharsets.UTF_8);
                System.arraycopy(utf8, 0, changes, changesLength, utf8.length);
                changesLength += utf8.length;
                return utf8.length;
            }
            changes[changesLength + i] = (byte)c;
        }
        changesLength += n;
        return n;
    }

    private int putValue(final ByteIterator value)
    {
        final int start = changesLength;
        while (value.hasNext())
        {
            final long left = value.bytesLeft();
            ensureChanges((int)Math.min(Integer.MAX_VALUE - changesLength - 1, Math.max(1, left)));
            // nextBuf fills up to the array's end; what it took is what bytesLeft lost
            final byte[] window = changes;
            final long before = value.bytesLeft();
            value.nextBuf(window, changesLength);
            final long taken = before - value.bytesLeft();
            if (taken <= 0)
            {
                changes[changesLength++] = value.nextByte();
            }
            else
            {
                changesLength += (int)taken;
            }
        }
        return changesLength - start;
    }

    private void ensureChanges(final int more)
    {
        if (changesLength + more > changes.length)
        {
            changes = Arrays.copyOf(changes, Math.max(changesLength + more, changes.length * 2));
        }
    }

    private void ensureFields(final int fields)
    {
        if (fields > nameOffset.length)
        {
            nameOffset = Arrays.copyOf(nameOffset, fields);
            nameLength = Arrays.copyOf(nameLength, fields);
            valueOffset = Arrays.copyOf(valueOffset, fields);
            valueLength = Arrays.copyOf(valueLength, fields);
            replaced = Arrays.copyOf(replaced, fields);
        }
    }

    private void ensureOut(final int length)
    {
        if (length > out.length)
        {
            out = new byte[Math.max(length, out.length * 2)];
            outBuffer = ByteBuffer.wrap(out);
            outSegment = MemorySegment.ofArray(out);
            lastRecord = outSegment.asSlice(0, 0);
        }
    }
}
