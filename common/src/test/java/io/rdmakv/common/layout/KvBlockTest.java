package io.rdmakv.common.layout;

import io.rdmakv.common.LittleEndian;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.zip.CRC32C;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class KvBlockTest
{
    private final Arena arena = Arena.ofConfined();
    private final MemorySegment segment = arena.allocate(1 << 20, 64);
    private final KvBlock block = new KvBlock();

    @AfterEach
    void close()
    {
        arena.close();
    }

    private static byte[] bytes(final String s)
    {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void writesTheLayoutByteForByte()
    {
        segment.fill((byte)0x5A);
        final int length = block.wrap(segment, 128).write(bytes("key"), bytes("value!"));
        assertEquals(64, length);
        assertEquals(0, LittleEndian.u16(segment, 128 + 4));
        assertEquals(3, LittleEndian.u16(segment, 128 + 6));
        assertEquals(6, segment.get(LittleEndian.U32, 128 + 8));
        assertEquals(0, segment.get(LittleEndian.U32, 128 + 12));
        assertEquals(0L, segment.get(LittleEndian.U64, 128 + 16), "a client's block has no origin");
        assertArrayEquals(bytes("key"), segment.asSlice(128 + 24, 3).toArray(ValueLayout.JAVA_BYTE));
        assertArrayEquals(bytes("value!"), segment.asSlice(128 + 27, 6).toArray(ValueLayout.JAVA_BYTE));
        for (int i = 128 + 33; i < 128 + 64; i++)
        {
            assertEquals(0, segment.get(ValueLayout.JAVA_BYTE, i), "padding byte " + i);
        }
        assertEquals(0x5A, segment.get(ValueLayout.JAVA_BYTE, 128 + 64), "nothing written past the block");

        final CRC32C crc = new CRC32C();
        crc.update(segment.asSlice(128 + 4, 20 + 3 + 6).toArray(ValueLayout.JAVA_BYTE));
        assertEquals((int)crc.getValue(), segment.get(LittleEndian.U32, 128));
        assertEquals((int)crc.getValue(), block.checksum());
    }

    @Test
    void theWriterEpochIsStampedAndCoveredByTheChecksum()
    {
        final MemorySegment key = MemorySegment.ofArray(bytes("key"));
        final MemorySegment value = MemorySegment.ofArray(bytes("value!"));
        block.wrap(segment, 0).write(key, 0, 3, value, 0, 6, 0, 0xFFFF_FFF7);
        assertEquals(0xFFFF_FFF7, block.writerEpoch());
        assertEquals(0xFFFF_FFF7, segment.get(LittleEndian.U32, KvBlockDescriptor.WRITER_EPOCH_OFFSET));
        assertEquals(KvBlock.VALID, block.validate(bytes("key"), 0, 3, 64));
        final int stamped = block.checksum();
        block.wrap(segment, 64).write(key, 0, 3, value, 0, 6, 0);
        assertEquals(0, block.writerEpoch(), "unstamped writes carry 0");
        assertTrue(stamped != block.checksum(), "the epoch is covered by the checksum");
        segment.set(LittleEndian.U32, 64 + KvBlockDescriptor.WRITER_EPOCH_OFFSET, 5);
        assertEquals(KvBlock.BAD_CHECKSUM, block.validate(bytes("key"), 0, 3, 64), "a changed epoch fails the check");
    }

    @Test
    void theOriginIsZeroForAWriteAndCoveredByTheChecksum()
    {
        segment.fill((byte)0x5A);
        block.wrap(segment, 0).write(bytes("key"), bytes("value!"));
        assertEquals(0L, block.origin(), "a written block has no origin, whatever the memory held before");
        final int unstamped = block.checksum();
        block.origin(0x0123_4567_89AB_CDEFL);
        assertEquals(KvBlock.BAD_CHECKSUM, block.validate(bytes("key"), 0, 3, 64), "the origin is covered");
        block.updateChecksum();
        assertEquals(KvBlock.VALID, block.validate(bytes("key"), 0, 3, 64));
        assertEquals(0x0123_4567_89AB_CDEFL, new KvBlock().wrap(segment, 0).origin());
        assertTrue(unstamped != block.checksum());
        assertArrayEquals(bytes("value!"), block.valueBytes(), "the value stays where it was");
    }

    @Test
    void readsBackWhatItWrote()
    {
        final byte[] value = new byte[5000];
        Arrays.fill(value, (byte)7);
        block.wrap(segment, 0).write(bytes("user:42"), value);
        final KvBlock reader = new KvBlock().wrap(segment, 0);
        assertEquals(7, reader.keyLength());
        assertEquals(5000, reader.valueLength());
        assertEquals(KvBlockDescriptor.blockLength(7, 5000), reader.blockLength());
        assertEquals(31, reader.valueOffset());
        assertFalse(reader.isTombstone());
        assertArrayEquals(bytes("user:42"), reader.keyBytes());
        assertArrayEquals(value, reader.valueBytes());
        final byte[] copy = new byte[5002];
        assertEquals(5000, reader.copyValue(copy, 2));
        assertEquals(7, copy[5001]);
        assertTrue(reader.isValid(bytes("user:42")));
        assertTrue(reader.isChecksumValid());
    }

    @Test
    void writesFromSegments()
    {
        final MemorySegment source = arena.allocate(64);
        source.copyFrom(MemorySegment.ofArray(bytes("xxkeyvaluexx")));
        final int length = block.wrap(segment, 64).write(source, 2, 3, source, 5, 5, 0);
        assertEquals(64, length);
        assertArrayEquals(bytes("key"), block.keyBytes());
        assertArrayEquals(bytes("value"), block.valueBytes());
        assertTrue(block.isValid(source, 2, 3));
        assertFalse(block.isValid(source, 5, 3));
        assertEquals(KvBlock.VALID, block.validate(source, 2, 3, 64));
    }

    @Test
    void writesTombstones()
    {
        block.wrap(segment, 0).writeTombstone(bytes("gone"));
        assertTrue(block.isTombstone());
        assertEquals(0, block.valueLength());
        assertTrue(block.isValid(bytes("gone")));
    }

    @Test
    void validationNamesWhatIsWrong()
    {
        final byte[] key = bytes("the-key");
        final int length = block.wrap(segment, 256).write(key, bytes("the value"));
        assertEquals(KvBlock.VALID, block.validate(key, 0, key.length, length));
        assertEquals(KvBlock.VALID, block.validate(key, 0, key.length, -1));
        assertEquals(KvBlock.BAD_LENGTH, block.validate(key, 0, key.length, length + 64));
        assertEquals(KvBlock.KEY_MISMATCH, block.validate(bytes("the-kex"), 0, 7, length));
        assertEquals(KvBlock.KEY_MISMATCH, block.validate(bytes("the-key2"), 0, 8, length));
        assertEquals(KvBlock.VALID, block.validate(bytes("xthe-key"), 1, 7, length));

        // a torn value: the checksum catches it
        segment.set(ValueLayout.JAVA_BYTE, 256 + 24 + 7 + 2, (byte)'X');
        assertEquals(KvBlock.BAD_CHECKSUM, block.validate(key, 0, key.length, length));
        assertFalse(block.isValid(key));
        assertFalse(block.isChecksumValid());
        block.updateChecksum();
        assertTrue(block.isValid(key));

        // the reserved word is covered too
        segment.set(LittleEndian.U32, 256 + 12, 1);
        assertEquals(KvBlock.BAD_CHECKSUM, block.validate(key, 0, key.length, length));
        segment.set(LittleEndian.U32, 256 + 12, 0);

        block.valueLength(-5);
        assertEquals(KvBlock.BAD_HEADER, block.validate(key, 0, key.length, length));
        block.valueLength(KvBlockDescriptor.MAX_VALUE_LENGTH + 1);
        assertEquals(KvBlock.BAD_HEADER, block.validate(key, 0, key.length, length));
        block.valueLength(9).keyLength(KvBlockDescriptor.MAX_KEY_LENGTH + 1);
        assertEquals(KvBlock.BAD_HEADER, block.validate(key, 0, key.length, length));
        block.keyLength(7);
        assertEquals(KvBlock.VALID, block.validate(key, 0, key.length, length));
    }

    @Test
    void zeroedMemoryIsNeverAValidBlock()
    {
        segment.fill((byte)0);
        assertFalse(block.wrap(segment, 0).isValid(new byte[0]));
        assertEquals(KvBlock.BAD_CHECKSUM, block.validate(new byte[0], 0, 0, 64));
    }

    @Test
    void garbageYieldsReasonCodesNeverExceptions()
    {
        final java.util.Random random = new java.util.Random(11);
        final byte[] bytes = new byte[8192];
        final MemorySegment garbage = MemorySegment.ofArray(bytes);
        final byte[] key = new byte[1024];
        final KvBlock reader = new KvBlock();
        for (int round = 0; round < 20_000; round++)
        {
            random.nextBytes(bytes);
            if (random.nextBoolean())
            {
                // plausible lengths, so the checksum and key paths run too
                garbage.set(LittleEndian.U32, 0, 0);
                LittleEndian.u16(garbage, 6, random.nextInt(1100));
                garbage.set(LittleEndian.U32, 8, random.nextInt(8000));
            }
            final int at = random.nextBoolean() ? 0 : random.nextInt(bytes.length - KvBlockDescriptor.HEADER_LENGTH);
            final int code = reader.wrap(garbage, at).validate(key, 0, random.nextInt(key.length + 1), -1);
            assertTrue(code <= KvBlock.VALID && code >= KvBlock.KEY_MISMATCH, "code " + code);
        }
    }

    @Test
    void aBlockRunningPastTheSegmentIsABadHeader()
    {
        block.wrap(segment, segment.byteSize() - 64).valueLength(100).keyLength(0);
        assertEquals(KvBlock.BAD_HEADER, block.validate(new byte[0], 0, 0, -1));
    }

    @Test
    void rejectsOversizedInputAndBlocksThatDoNotFit()
    {
        block.wrap(segment, 0);
        final String key = assertThrows(
            IllegalArgumentException.class, () -> block.write(new byte[1025], new byte[1])).getMessage();
        assertTrue(key.contains("key of 1025 bytes"), key);
        final String value = assertThrows(
            IllegalArgumentException.class, () -> block.write(new byte[1], new byte[300_000])).getMessage();
        assertTrue(value.contains("value of 300000 bytes"), value);

        block.wrap(segment, segment.byteSize() - 64);
        assertThrows(IndexOutOfBoundsException.class, () -> block.write(new byte[10], new byte[100]));
        assertThrows(IndexOutOfBoundsException.class, () -> block.wrap(segment, segment.byteSize() - 8));
        assertThrows(IndexOutOfBoundsException.class, () -> block.wrap(segment, -1));
    }

    @Test
    void writesTheLargestBlock()
    {
        final byte[] key = new byte[KvBlockDescriptor.MAX_KEY_LENGTH];
        final byte[] value = new byte[KvBlockDescriptor.MAX_VALUE_LENGTH];
        Arrays.fill(key, (byte)1);
        Arrays.fill(value, (byte)2);
        assertEquals(SlotWord.MAX_BLOCK_LENGTH, block.wrap(segment, 64).write(key, value));
        assertTrue(block.isValid(key));
    }

    @Test
    void reusesItsChecksumViewForTheSameSegment()
    {
        final Crc32cView view = new Crc32cView(segment);
        block.wrap(view, 0).write(bytes("a"), bytes("b"));
        final KvBlock other = new KvBlock().wrap(view, 0);
        assertSame(segment, other.segment());
        assertTrue(other.isValid(bytes("a")));

        final MemorySegment second = arena.allocate(4096);
        new KvBlock().wrap(second, 0).write(bytes("a"), bytes("b"));
        assertEquals(block.checksum(), new KvBlock().wrap(second, 0).checksum());
        assertNotSame(segment, second);
    }

    @Test
    void worksOnHeapSegments()
    {
        final MemorySegment heap = MemorySegment.ofArray(new byte[256]);
        block.wrap(heap, 64).write(bytes("k"), bytes("v"));
        assertTrue(block.isValid(bytes("k")));
        final KvBlock offHeap = new KvBlock().wrap(segment, 0);
        offHeap.write(bytes("k"), bytes("v"));
        assertEquals(offHeap.checksum(), block.checksum());
    }

    @Test
    void checksumsBlocksBeyondTwoGibibytes(@TempDir final Path dir) throws IOException
    {
        final long size = (3L << 30) + 4096;
        try (FileChannel channel = FileChannel.open(
                dir.resolve("sparse"), StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                StandardOpenOption.WRITE, StandardOpenOption.SPARSE);
             Arena mapArena = Arena.ofConfined())
        {
            final MemorySegment big = channel.map(FileChannel.MapMode.READ_WRITE, 0, size, mapArena);
            final Crc32cView view = new Crc32cView(big);
            final KvBlock large = new KvBlock();
            final byte[] key = bytes("far-away");
            final byte[] value = new byte[200_000];
            Arrays.fill(value, (byte)3);
            // straddles the 1 GiB and 2 GiB window boundaries and ends at the end of the segment
            for (final long at : new long[] {(1L << 30) - 64, (2L << 30) - 128, size - 200_064})
            {
                final int length = large.wrap(view, at).write(key, value);
                assertTrue(large.isValid(key), "block at " + at);
                assertEquals(KvBlock.VALID, large.validate(key, 0, key.length, length));
                final CRC32C crc = new CRC32C();
                crc.update(big.asSlice(at + 4, 20 + key.length + value.length).asByteBuffer());
                assertEquals((int)crc.getValue(), large.checksum(), "block at " + at);
            }
            assertThrows(IndexOutOfBoundsException.class, () -> view.crc32c(0, 1 << 30));
        }
    }
}
