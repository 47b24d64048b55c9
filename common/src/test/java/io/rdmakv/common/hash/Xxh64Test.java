package io.rdmakv.common.hash;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Published XXH64 vectors: the empty input, short strings, and xxHash's own sanity check (a 101-byte buffer
 * whose byte i is the top byte of a 32-bit generator squared i times from 2654435761, hashed at lengths 0,
 * 1, 14 and 101 with seeds 0 and 2654435761).
 */
class Xxh64Test
{
    private static final long PRIME32 = 2654435761L;

    private static byte[] sanityBuffer()
    {
        final byte[] buffer = new byte[101];
        int generator = (int)PRIME32;
        for (int i = 0; i < buffer.length; i++)
        {
            buffer[i] = (byte)(generator >>> 24);
            generator *= generator;
        }
        return buffer;
    }

    private static void check(final long expected, final byte[] input, final int length, final long seed)
    {
        assertEquals(expected, Xxh64.hash(input, 0, length, seed), "array, length " + length + " seed " + seed);
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment segment = arena.allocate(length + 3L);
            MemorySegment.copy(input, 0, segment, java.lang.foreign.ValueLayout.JAVA_BYTE, 3, length);
            assertEquals(expected, Xxh64.hash(segment, 3, length, seed), "segment, length " + length + " seed " + seed);
        }
    }

    @Test
    void emptyInput()
    {
        check(0xEF46DB3751D8E999L, new byte[0], 0, 0);
        check(0xAC75FDA2929B17EFL, new byte[0], 0, PRIME32);
    }

    @Test
    void sanityCheckVectors()
    {
        final byte[] buffer = sanityBuffer();
        check(0x4FCE394CC88952D8L, buffer, 1, 0);
        check(0x739840CB819FA723L, buffer, 1, PRIME32);
        check(0xCFFA8DB881BC3A3DL, buffer, 14, 0);
        check(0x5B9611585EFCC9CBL, buffer, 14, PRIME32);
        check(0x0EAB543384F878ADL, buffer, 101, 0);
        check(0xCAA65939306F1E21L, buffer, 101, PRIME32);
    }

    @Test
    void shortStrings()
    {
        check(0xE934A84ADB052768L, new byte[1], 1, 0);
        check(0xD24EC4F1A98C6E5BL, ascii("a"), 1, 0);
        check(0x44BC2CF5AD770999L, ascii("abc"), 3, 0);
        final byte[] nobody = ascii("Nobody inspects the spammish repetition");
        check(0xFBCEA83C8A378BF1L, nobody, nobody.length, 0);
    }

    @Test
    void arrayAndSegmentAgreeAtEveryLengthAndOffset()
    {
        final Random random = new Random(42);
        final byte[] data = new byte[300];
        random.nextBytes(data);
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment segment = arena.allocate(data.length);
            MemorySegment.copy(data, 0, segment, java.lang.foreign.ValueLayout.JAVA_BYTE, 0, data.length);
            for (int offset = 0; offset < 9; offset++)
            {
                for (int length = 0; offset + length <= data.length; length++)
                {
                    final long seed = random.nextLong();
                    assertEquals(
                        Xxh64.hash(data, offset, length, seed), Xxh64.hash(segment, offset, length, seed),
                        "offset " + offset + " length " + length);
                }
            }
        }
    }

    private static byte[] ascii(final String s)
    {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
