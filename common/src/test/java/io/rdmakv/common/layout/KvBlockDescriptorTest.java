package io.rdmakv.common.layout;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class KvBlockDescriptorTest
{
    @Test
    void pinsHeaderOffsets()
    {
        assertEquals(0, KvBlockDescriptor.CHECKSUM_OFFSET);
        assertEquals(4, KvBlockDescriptor.FLAGS_OFFSET);
        assertEquals(6, KvBlockDescriptor.KEY_LENGTH_OFFSET);
        assertEquals(8, KvBlockDescriptor.VALUE_LENGTH_OFFSET);
        assertEquals(12, KvBlockDescriptor.WRITER_EPOCH_OFFSET);
        assertEquals(16, KvBlockDescriptor.ORIGIN_OFFSET);
        assertEquals(24, KvBlockDescriptor.HEADER_LENGTH);
        assertEquals(24, KvBlockDescriptor.KEY_OFFSET);
        assertEquals(4, KvBlockDescriptor.CHECKSUM_FROM);
        assertEquals(64, KvBlockDescriptor.ALIGNMENT);
        assertEquals(1, KvBlockDescriptor.FLAG_TOMBSTONE);
    }

    @Test
    void pinsLimitsAndTheyFitASlot()
    {
        assertEquals(1024, KvBlockDescriptor.MAX_KEY_LENGTH);
        assertEquals(262080, KvBlockDescriptor.MAX_BLOCK_LENGTH);
        assertEquals(261032, KvBlockDescriptor.MAX_VALUE_LENGTH);
        assertEquals(
            SlotWord.MAX_BLOCK_LENGTH,
            KvBlockDescriptor.blockLength(KvBlockDescriptor.MAX_KEY_LENGTH, KvBlockDescriptor.MAX_VALUE_LENGTH));
    }

    @Test
    void blockLengthsAreAlignedTo64()
    {
        assertEquals(64, KvBlockDescriptor.blockLength(0, 0));
        assertEquals(64, KvBlockDescriptor.blockLength(8, 32));
        assertEquals(128, KvBlockDescriptor.blockLength(8, 33));
        assertEquals(1024 + 64, KvBlockDescriptor.blockLength(1000, 64));
        assertEquals(24 + 5, KvBlockDescriptor.valueOffset(5));
        assertEquals(20 + 5 + 7, KvBlockDescriptor.checksummedLength(5, 7));
    }

    @Test
    void rejectsOversizedKeysAndValuesClearly()
    {
        KvBlockDescriptor.checkKeyLength(1024);
        KvBlockDescriptor.checkValueLength(KvBlockDescriptor.MAX_VALUE_LENGTH);
        final String key = assertThrows(IllegalArgumentException.class, () -> KvBlockDescriptor.checkKeyLength(1025))
            .getMessage();
        assertEquals("key of 1025 bytes is too long: keys may have at most 1024 bytes", key);
        final String value = assertThrows(
            IllegalArgumentException.class, () -> KvBlockDescriptor.checkValueLength(1 << 20)).getMessage();
        assertEquals("value of 1048576 bytes is too long: values may have at most 261032 bytes", value);
        assertTrue(assertThrows(IllegalArgumentException.class, () -> KvBlockDescriptor.checkKeyLength(-1))
            .getMessage().contains("-1"));
    }
}
