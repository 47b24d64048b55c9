package io.rdmakv.ycsb;

import org.junit.jupiter.api.Test;
import site.ycsb.ByteArrayByteIterator;
import site.ycsb.ByteIterator;
import site.ycsb.RandomByteIterator;
import site.ycsb.StringByteIterator;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static io.rdmakv.ycsb.RecordCodecTest.ycsbRecord;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The binding's reused read and write buffers: what they produce, and what a read allocates. */
class RecordReaderTest
{
    private final RecordReader reader = new RecordReader(new FieldNames());
    private final RecordUpdate update = new RecordUpdate();

    private static byte[] bytes(final MemorySegment segment)
    {
        return segment.toArray(ValueLayout.JAVA_BYTE);
    }

    private Map<String, ByteIterator> read(final byte[] record, final Set<String> fields)
    {
        final byte[] padded = java.util.Arrays.copyOf(record, record.length + 7); // only [0, length) is the record
        reader.parse(padded, record.length);
        final Map<String, ByteIterator> result = new HashMap<>();
        reader.readInto(fields, result);
        return result;
    }

    @Test
    void readsAllOrTheWantedFieldsWithNamesDecodedOnce()
    {
        final byte[] record = RecordCodec.encode(ycsbRecord());
        final Map<String, ByteIterator> all = read(record, null);
        assertEquals(10, all.size());
        for (final Map.Entry<String, byte[]> field : ycsbRecord().entrySet())
        {
            assertArrayEquals(field.getValue(), all.get(field.getKey()).toArray(), field.getKey());
        }
        final String name = all.keySet().stream().filter("field3"::equals).findFirst().orElseThrow();
        final Map<String, ByteIterator> some = read(record, Set.of("field3", "field7", "absent"));
        assertEquals(Set.of("field3", "field7"), some.keySet());
        assertEquals("ddd", some.get("field3").toString().substring(0, 3));
        assertSame(name, some.keySet().stream().filter("field3"::equals).findFirst().orElseThrow(),
            "the same String: decoded once per thread");
        assertEquals(0, read(RecordCodec.encode(Map.of()), null).size());
    }

    @Test
    void aRecordWithMoreNamesThanTheCacheKeepsStillReads()
    {
        final Map<String, byte[]> record = new LinkedHashMap<>();
        for (int i = 0; i < FieldNames.MAX_NAMES + 50; i++)
        {
            record.put("name-" + i, new byte[] {(byte)i});
        }
        final Map<String, ByteIterator> result = read(RecordCodec.encode(record), null);
        assertEquals(record.size(), result.size());
        assertArrayEquals(new byte[] {(byte)(FieldNames.MAX_NAMES + 49)},
            result.get("name-" + (FieldNames.MAX_NAMES + 49)).toArray());
        // the last name again, past the names the cache keeps: still caught
        final List<String> names = new java.util.ArrayList<>(record.keySet());
        names.add("name-" + (FieldNames.MAX_NAMES + 49));
        final byte[] repeated = encodeNames(names);
        final CorruptRecordException e =
            assertThrows(CorruptRecordException.class, () -> reader.parse(repeated, repeated.length));
        assertTrue(e.getMessage().contains("field 'name-" + (FieldNames.MAX_NAMES + 49) + "' appears twice"),
            e.getMessage());
        final List<String> cached = List.of("a", "b", "a");
        assertThrows(CorruptRecordException.class, () -> reader.parse(encodeNames(cached), encodeNames(cached).length));
    }

    /** A record of the given names (repeats allowed), each with an empty value. */
    private static byte[] encodeNames(final List<String> names)
    {
        final java.nio.ByteBuffer out = java.nio.ByteBuffer.allocate(16 + names.size() * 16);
        out.put(RecordCodec.FORMAT);
        RecordCodec.putVarint(out, names.size());
        for (final String name : names)
        {
            RecordCodec.putVarint(out, name.length());
            out.put(name.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            RecordCodec.putVarint(out, 0);
        }
        return java.util.Arrays.copyOf(out.array(), out.position());
    }

    @Test
    void updateMergesLikePutAllAndInsertWritesTheFields()
    {
        final Map<String, byte[]> stored = ycsbRecord();
        final byte[] record = RecordCodec.encode(stored);
        final Map<String, ByteIterator> changes = new LinkedHashMap<>();
        changes.put("field4", new StringByteIterator("new four"));
        changes.put("zeta", new ByteArrayByteIterator(new byte[] {1, 2, 3}));
        changes.put("naïve", new StringByteIterator("ü"));
        changes.put("field0", new RandomByteIterator(5000));
        update.collect(changes);
        reader.parse(record, record.length);
        final Map<String, byte[]> merged = RecordCodec.decode(bytes(update.merge(reader, record)));

        final Map<String, byte[]> expected = new LinkedHashMap<>(stored);
        expected.put("field4", "new four".getBytes());
        expected.put("zeta", new byte[] {1, 2, 3});
        expected.put("naïve", new StringByteIterator("ü").toArray()); // YCSB's string iterator: a byte per char
        expected.put("field0", merged.get("field0"));
        assertEquals(5000, merged.get("field0").length, "a value longer than the first buffers");
        assertEquals(List.copyOf(expected.keySet()), List.copyOf(merged.keySet()), "stored order, new fields last");
        for (final String name : expected.keySet())
        {
            assertArrayEquals(expected.get(name), merged.get(name), name);
        }

        update.collect(Map.of("only", new StringByteIterator("x")));
        assertEquals(Set.of("only"), RecordCodec.decode(bytes(update.merge(null, null))).keySet());
        assertArrayEquals(RecordCodec.encode(Map.of()), bytes(collected(Map.of())));
    }

    private MemorySegment collected(final Map<String, ByteIterator> values)
    {
        update.collect(values);
        return update.merge(null, null);
    }

    /**
     * A read's decode allocates only the result YCSB keeps. For a record of F fields and V value bytes that is
     * one array of the values (16 + V bytes), per field one iterator and one entry of YCSB's map (32 + 32
     * bytes), and YCSB's map itself (48 bytes and a table of 80 for up to 12 entries): 1,784 bytes for the
     * default 10 x 100. The decode it replaced allocated about 8 KB (a decoder per field, every field's error
     * messages).
     */
    @Test
    void aReadsDecodeAllocatesOnlyTheResult()
    {
        final byte[] record = RecordCodec.encode(ycsbRecord());
        final int fields = 10;
        final int valueBytes = 1000;
        final long bound = 16 + valueBytes + fields * (32 + 32) + 48 + 80;
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        long sink = 0;
        for (int i = 0; i < 50_000; i++)
        {
            sink += read(record).size();
        }
        final int n = 50_000;
        final long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < n; i++)
        {
            sink += read(record).size();
        }
        final double perRead = (threads.getCurrentThreadAllocatedBytes() - before) / (double)n;
        System.out.println("decode bytes allocated per read: " + perRead + " (bound " + bound + ")");
        assertTrue(perRead <= bound, "a read's decode allocated " + perRead + " bytes, more than its result's " + bound);
        assertEquals(2L * n * fields, sink);
    }

    private Map<String, ByteIterator> read(final byte[] record)
    {
        reader.parse(record, record.length);
        final Map<String, ByteIterator> result = new HashMap<>();
        reader.readInto(null, result);
        return result;
    }
}
