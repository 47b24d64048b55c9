package io.rdmakv.common.layout;

import io.rdmakv.common.LittleEndian;
import io.rdmakv.common.hash.KeyHash;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Each verdict on a region of plain memory, and what the judged block's key can tell. */
class SlotDamageTest
{
    private static final RegionGeometry GEOMETRY = RegionGeometry.forMemory(4L << 20);
    private static final byte[] KEY = "victim".getBytes(StandardCharsets.UTF_8);

    private final Arena arena = Arena.ofConfined();
    private final MemorySegment region = arena.allocate(GEOMETRY.regionLength(), 4096);
    private final SlotDamage damage = new SlotDamage(region, GEOMETRY);
    private final long hash = KeyHash.hash(KEY);

    @AfterEach
    void close()
    {
        arena.close();
    }

    private long write(final long dataOffset, final byte[] key, final int valueLength)
    {
        final int length = new KvBlock().wrap(region, GEOMETRY.dataOffset() + dataOffset)
            .write(key, new byte[valueLength]);
        return SlotWord.encodeBlock(KeyHash.fingerprint(KeyHash.hash(key)), dataOffset, length);
    }

    @Test
    void aWholeBlockIsNotDamagedAndItsKeyBelongsInItsGroups()
    {
        final long word = write(4096, KEY, 100);
        assertEquals(SlotDamage.NONE, damage.judge(word));
        assertTrue(damage.keyEquals(KEY));
        assertTrue(damage.keyBelongsAt(KeyHash.group1(hash, GEOMETRY.groupCount())));
        assertTrue(damage.keyBelongsAt(KeyHash.group2(hash, GEOMETRY.groupCount())));
        final long other = KeyHash.group1(hash, GEOMETRY.groupCount()) ^ 2;
        if (other != KeyHash.group2(hash, GEOMETRY.groupCount()))
        {
            assertFalse(damage.keyBelongsAt(other));
        }
        assertArrayEquals(KEY, damage.keyBytes(256));
        assertArrayEquals(new byte[] {'v', 'i'}, damage.keyBytes(2));
    }

    @Test
    void aWordOutsideTheDataAreaHasNoKey()
    {
        final long word = SlotWord.pack(KeyHash.fingerprint(hash), 1, GEOMETRY.dataLength() / SlotWord.UNIT);
        assertEquals(SlotDamage.OUTSIDE_DATA_AREA, damage.judge(word));
        assertEquals(-1, damage.readableKeyLength());
        assertFalse(damage.keyEquals(KEY));
        assertEquals(0, damage.keyBytes(256).length);
        assertEquals(SlotDamage.OUTSIDE_DATA_AREA, damage.judge(SlotWord.pack(1, 1, 0)), "the reserved unit");
    }

    @Test
    void aFlippedValueByteIsABadChecksumWithTheKeyStillReadable()
    {
        final long word = write(4096, KEY, 100);
        final long at = GEOMETRY.dataOffset() + 4096 + KvBlockDescriptor.KEY_OFFSET + KEY.length + 5;
        region.set(LittleEndian.U8, at, (byte)0x5A);
        assertEquals(SlotDamage.BAD_CHECKSUM, damage.judge(word));
        assertTrue(damage.keyEquals(KEY));
        assertEquals("bad_checksum", SlotDamage.describe(SlotDamage.BAD_CHECKSUM));
    }

    @Test
    void lengthFieldsOutOfRangeOrDisagreeingWithTheWord()
    {
        final long word = write(4096, KEY, 100);
        region.set(LittleEndian.U32, GEOMETRY.dataOffset() + 4096 + KvBlockDescriptor.VALUE_LENGTH_OFFSET, -7);
        assertEquals(SlotDamage.BAD_HEADER, damage.judge(word));
        assertTrue(damage.keyEquals(KEY), "the key length field still fits the block");

        final long second = write(8192, KEY, 100);
        region.set(LittleEndian.U32, GEOMETRY.dataOffset() + 8192 + KvBlockDescriptor.VALUE_LENGTH_OFFSET, 500);
        assertEquals(SlotDamage.BAD_LENGTH, damage.judge(second));

        final long third = write(16384, KEY, 100);
        LittleEndian.u16(region, GEOMETRY.dataOffset() + 16384 + KvBlockDescriptor.KEY_LENGTH_OFFSET, 2000);
        assertEquals(SlotDamage.BAD_HEADER, damage.judge(third));
        assertEquals(-1, damage.readableKeyLength(), "a key longer than the block is unreadable");
        assertFalse(damage.keyBelongsAt(0));
    }
}
