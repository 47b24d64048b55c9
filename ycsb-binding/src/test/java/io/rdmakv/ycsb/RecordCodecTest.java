package io.rdmakv.ycsb;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RecordCodecTest
{
    static Map<String, byte[]> ycsbRecord()
    {
        final Map<String, byte[]> record = new LinkedHashMap<>();
        for (int i = 0; i < 10; i++)
        {
            final byte[] value = new byte[100];
            Arrays.fill(value, (byte)('a' + i));
            record.put("field" + i, value);
        }
        return record;
    }

    private static void assertRoundTrip(final Map<String, byte[]> record)
    {
        final Map<String, byte[]> decoded = RecordCodec.decode(RecordCodec.encode(record));
        assertEquals(record.keySet().stream().toList(), decoded.keySet().stream().toList(), "names, in order");
        for (final Map.Entry<String, byte[]> field : record.entrySet())
        {
            assertArrayEquals(field.getValue(), decoded.get(field.getKey()), field.getKey());
        }
    }

    @Test
    void ycsbDefaultRecordRoundTripsIn1082Bytes()
    {
        assertEquals(1082, RecordCodec.encode(ycsbRecord()).length);
        assertRoundTrip(ycsbRecord());
    }

    @Test
    void edgeCasesRoundTrip()
    {
        assertRoundTrip(Map.of());
        final Map<String, byte[]> record = new LinkedHashMap<>();
        record.put("", new byte[0]);
        record.put("naïve-名前", new byte[] {0, -1, 127, -128});
        record.put("x".repeat(200), new byte[20_000]);
        record.put("y", new byte[128]);
        assertRoundTrip(record);
    }

    @Test
    void varintLengthsMatchTheEncoding()
    {
        for (final int n : new int[] {0, 127, 128, 16_383, 16_384, 2_097_151, 2_097_152, 268_435_455, 268_435_456})
        {
            assertEquals(n < 128 ? 1 : n < 16_384 ? 2 : n < 2_097_152 ? 3 : n < 268_435_456 ? 4 : 5,
                RecordCodec.varintLength(n), "n=" + n);
        }
    }

    @Test
    void everyTruncationIsCorrupt()
    {
        final byte[] record = RecordCodec.encode(ycsbRecord());
        for (int length = 0; length < record.length; length++)
        {
            final int n = length;
            assertThrows(CorruptRecordException.class, () -> RecordCodec.decode(Arrays.copyOf(record, n)),
                "truncated to " + n);
        }
    }

    @Test
    void corruptInputIsRejectedWithAClearMessage()
    {
        final byte[] good = RecordCodec.encode(ycsbRecord());

        assertMessage("empty value", new byte[0]);
        assertMessage("format byte 123 is not 1", "{\"field0\":\"x\"}".getBytes(StandardCharsets.UTF_8));
        assertMessage("1 bytes after the last of 10 fields", Arrays.copyOf(good, good.length + 1));
        assertMessage("field 'a' appears twice", new byte[] {1, 2, 1, 'a', 0, 1, 'a', 0});
        assertMessage("field name is not UTF-8", new byte[] {1, 1, 1, (byte)0xFF, 0});
        assertMessage("field count is longer than 5 bytes", new byte[] {1, -1, -1, -1, -1, -1, 1});
        assertMessage("field count 34359738367 is too large", new byte[] {1, -1, -1, -1, -1, 127});
        assertMessage("field 'a' value of 100 bytes runs past the end (2 left)", new byte[] {1, 1, 1, 'a', 100, 0, 0});
    }

    private static void assertMessage(final String expected, final byte[] record)
    {
        final CorruptRecordException e = assertThrows(CorruptRecordException.class, () -> RecordCodec.decode(record));
        assertTrue(e.getMessage().contains(expected), e.getMessage());
        assertTrue(e.getMessage().startsWith("corrupt record (" + record.length + " bytes): "), e.getMessage());
    }
}
