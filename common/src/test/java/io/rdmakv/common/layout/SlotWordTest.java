package io.rdmakv.common.layout;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SlotWordTest
{
    @Test
    void fieldsSitWhereTheDiagramSays()
    {
        assertEquals(0, SlotWord.OFFSET_SHIFT);
        assertEquals(43, SlotWord.OFFSET_BITS);
        assertEquals(43, SlotWord.MOVING_SHIFT);
        assertEquals(1L << 43, SlotWord.MOVING);
        assertEquals(44, SlotWord.LENGTH_SHIFT);
        assertEquals(12, SlotWord.LENGTH_BITS);
        assertEquals(56, SlotWord.FINGERPRINT_SHIFT);
        assertEquals(8, SlotWord.FINGERPRINT_BITS);
        assertEquals(64, SlotWord.FINGERPRINT_SHIFT + SlotWord.FINGERPRINT_BITS);
        assertEquals(64, SlotWord.UNIT);
        assertEquals(SlotWord.UNIT, 1 << SlotWord.UNIT_SHIFT);
        assertEquals(4095, SlotWord.MAX_LENGTH_UNITS);
        assertEquals(4095 * 64, SlotWord.MAX_BLOCK_LENGTH);
        assertEquals(1L << 49, SlotWord.MAX_DATA_LENGTH);
    }

    @Test
    void packsBitsExactly()
    {
        assertEquals(0xAB00_3000_0000_0002L, SlotWord.encode(0xAB, 3, 2));
        assertEquals(0xFFFF_F7FF_FFFF_FFFFL, SlotWord.encode(0xFF, 4095, (1L << 43) - 1));
        assertEquals(0x0000_1000_0000_0001L, SlotWord.encode(0, 1, 1));
    }

    @ParameterizedTest
    @CsvSource({"0, 1, 1", "255, 4095, 8796093022207", "42, 2, 1000", "128, 100, 123456789"})
    void roundTrips(final int fingerprint, final int lengthUnits, final long offsetUnits)
    {
        final long word = SlotWord.encode(fingerprint, lengthUnits, offsetUnits);
        assertNotEquals(SlotWord.EMPTY, word);
        assertFalse(SlotWord.isEmpty(word));
        assertEquals(fingerprint, SlotWord.fingerprint(word));
        assertEquals(lengthUnits, SlotWord.lengthUnits(word));
        assertEquals(offsetUnits, SlotWord.offsetUnits(word));
        assertEquals(lengthUnits * 64, SlotWord.blockLength(word));
        assertEquals(offsetUnits * 64, SlotWord.blockOffset(word));
    }

    @Test
    void encodesBlocksInBytes()
    {
        final long word = SlotWord.encodeBlock(7, 4096, 192);
        assertEquals(4096, SlotWord.blockOffset(word));
        assertEquals(192, SlotWord.blockLength(word));
        assertEquals(7, SlotWord.fingerprint(word));
    }

    @Test
    void aUsedSlotIsNeverEmptyEvenWithFingerprintZero()
    {
        assertTrue(SlotWord.isEmpty(0));
        assertNotEquals(0, SlotWord.encode(0, 1, 1));
    }

    @Test
    void rejectsOutOfRangeFieldsNamingThem()
    {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> SlotWord.encode(256, 1, 1))
            .getMessage().contains("fingerprint 256"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> SlotWord.encode(-1, 1, 1))
            .getMessage().contains("fingerprint -1"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> SlotWord.encode(1, 0, 1))
            .getMessage().contains("length 0 units"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> SlotWord.encode(1, 4096, 1))
            .getMessage().contains("length 4096 units"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> SlotWord.encode(1, 1, 0))
            .getMessage().contains("unit 0 of the data area is reserved"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> SlotWord.encode(1, 1, 1L << 43))
            .getMessage().contains("offset 8796093022208 units"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> SlotWord.encodeBlock(1, 100, 64))
            .getMessage().contains("multiples of 64"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> SlotWord.encodeBlock(1, 128, 65))
            .getMessage().contains("multiples of 64"));
        assertThrows(IllegalArgumentException.class, () -> SlotWord.encodeBlock(1, 0, 64));
        assertThrows(IllegalArgumentException.class, () -> SlotWord.encodeBlock(1, 64, 4096 * 64));
    }

    @Test
    void packMasksEachFieldToItsOwnBits()
    {
        final long word = SlotWord.pack(0x1FF, 0x1FFF, -1L);
        assertEquals(0xFF, SlotWord.fingerprint(word));
        assertEquals(0xFFF, SlotWord.lengthUnits(word));
        assertEquals(SlotWord.OFFSET_MASK, SlotWord.offsetUnits(word));
        assertFalse(SlotWord.isMoving(word), "an offset out of range never sets MOVING");
    }

    @Test
    void checksThatABlockLiesInsideTheDataArea()
    {
        final long dataLength = 1 << 20;
        assertTrue(SlotWord.isWithin(SlotWord.encodeBlock(1, 64, 64), dataLength));
        assertTrue(SlotWord.isWithin(SlotWord.encodeBlock(1, dataLength - 128, 128), dataLength));
        assertFalse(SlotWord.isWithin(SlotWord.encodeBlock(1, dataLength - 64, 128), dataLength));
        assertFalse(SlotWord.isWithin(SlotWord.pack(1, 1, 0), dataLength));
        assertFalse(SlotWord.isWithin(SlotWord.pack(1, 0, 5), dataLength));
        assertFalse(SlotWord.isWithin(SlotWord.EMPTY, dataLength));
    }

    @Test
    void describesItself()
    {
        assertEquals("slot{empty}", SlotWord.toString(0));
        assertEquals("slot{fp=0x2a len=128 off=4096}", SlotWord.toString(SlotWord.encodeBlock(42, 4096, 128)));
        assertEquals("slot{empty moving}", SlotWord.toString(SlotWord.FROZEN_EMPTY));
        assertEquals("slot{fp=0x2a len=128 off=4096 moving}",
            SlotWord.toString(SlotWord.encodeBlock(42, 4096, 128) | SlotWord.MOVING));
    }

    /** A frozen word still names its block, whole: readers read through it (docs/growth.md §6). */
    @ParameterizedTest
    @CsvSource({"0, 1, 1", "255, 4095, 8796093022207", "42, 2, 1000"})
    void aFrozenWordNamesTheSameBlock(final int fingerprint, final int lengthUnits, final long offsetUnits)
    {
        final long word = SlotWord.encode(fingerprint, lengthUnits, offsetUnits);
        final long frozen = word | SlotWord.MOVING;
        assertFalse(SlotWord.isMoving(word));
        assertTrue(SlotWord.isMoving(frozen));
        assertTrue(SlotWord.namesBlock(frozen));
        assertEquals(word, SlotWord.withoutMoving(frozen));
        assertEquals(fingerprint, SlotWord.fingerprint(frozen));
        assertEquals(lengthUnits, SlotWord.lengthUnits(frozen));
        assertEquals(offsetUnits, SlotWord.offsetUnits(frozen));
        assertEquals(SlotWord.isWithin(word, 1L << 49), SlotWord.isWithin(frozen, 1L << 49));
    }

    @Test
    void aFrozenEmptySlotIsNeitherEmptyNorABlock()
    {
        assertFalse(SlotWord.isEmpty(SlotWord.FROZEN_EMPTY), "no insert may take it");
        assertFalse(SlotWord.namesBlock(SlotWord.FROZEN_EMPTY), "no reader reads a block for it");
        assertFalse(SlotWord.namesBlock(SlotWord.EMPTY));
        assertTrue(SlotWord.isMoving(SlotWord.FROZEN_EMPTY));
        assertFalse(SlotWord.isWithin(SlotWord.FROZEN_EMPTY, 1L << 49));
    }
}
