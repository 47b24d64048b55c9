package io.rdmakv.common.hash;

import io.rdmakv.common.LittleEndian;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * XXH64, the 64-bit xxHash, written from its published specification (xxHash's {@code
 * doc/xxhash_spec.md}): four lanes over 32-byte stripes, then the remaining 8-, 4- and 1-byte steps, then
 * the avalanche. Input is read little-endian, as the specification requires, so the result is the same on
 * every machine and equals what the reference implementation computes.
 *
 * <p>Static, allocation-free, over arrays and memory segments.
 */
public final class Xxh64
{
    static final long PRIME64_1 = 0x9E3779B185EBCA87L;
    static final long PRIME64_2 = 0xC2B2AE3D27D4EB4FL;
    static final long PRIME64_3 = 0x165667B19E3779F9L;
    static final long PRIME64_4 = 0x85EBCA77C2B2AE63L;
    static final long PRIME64_5 = 0x27D4EB2F165667C5L;

    private static final int STRIPE_LENGTH = 32;

    private static final VarHandle ARRAY_LONG =
        MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle ARRAY_INT =
        MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

    private Xxh64()
    {
    }

    /** XXH64 of all of {@code input}. */
    public static long hash(final byte[] input, final long seed)
    {
        return hash(input, 0, input.length, seed);
    }

    /** XXH64 of {@code length} bytes of {@code input} from {@code offset}. */
    public static long hash(final byte[] input, final int offset, final int length, final long seed)
    {
        final int end = offset + length;
        int p = offset;
        long h;
        if (length >= STRIPE_LENGTH)
        {
            long v1 = seed + PRIME64_1 + PRIME64_2;
            long v2 = seed + PRIME64_2;
            long v3 = seed;
            long v4 = seed - PRIME64_1;
            for (final int limit = end - STRIPE_LENGTH; p <= limit; p += STRIPE_LENGTH)
            {
                v1 = round(v1, (long)ARRAY_LONG.get(input, p));
                v2 = round(v2, (long)ARRAY_LONG.get(input, p + 8));
                v3 = round(v3, (long)ARRAY_LONG.get(input, p + 16));
                v4 = round(v4, (long)ARRAY_LONG.get(input, p + 24));
            }
            h = converge(v1, v2, v3, v4);
        }
        else
        {
            h = seed + PRIME64_5;
        }
        h += length;
        for (; p + Long.BYTES <= end; p += Long.BYTES)
        {
            h = step8(h, (long)ARRAY_LONG.get(input, p));
        }
        if (p + Integer.BYTES <= end)
        {
            h = step4(h, (int)ARRAY_INT.get(input, p));
            p += Integer.BYTES;
        }
        for (; p < end; p++)
        {
            h = step1(h, input[p]);
        }
        return avalanche(h);
    }

    /** XXH64 of {@code length} bytes of {@code input} from {@code offset}. */
    public static long hash(final MemorySegment input, final long offset, final long length, final long seed)
    {
        final long end = offset + length;
        long p = offset;
        long h;
        if (length >= STRIPE_LENGTH)
        {
            long v1 = seed + PRIME64_1 + PRIME64_2;
            long v2 = seed + PRIME64_2;
            long v3 = seed;
            long v4 = seed - PRIME64_1;
            for (final long limit = end - STRIPE_LENGTH; p <= limit; p += STRIPE_LENGTH)
            {
                v1 = round(v1, input.get(LittleEndian.U64, p));
                v2 = round(v2, input.get(LittleEndian.U64, p + 8));
                v3 = round(v3, input.get(LittleEndian.U64, p + 16));
                v4 = round(v4, input.get(LittleEndian.U64, p + 24));
            }
            h = converge(v1, v2, v3, v4);
        }
        else
        {
            h = seed + PRIME64_5;
        }
        h += length;
        for (; p + Long.BYTES <= end; p += Long.BYTES)
        {
            h = step8(h, input.get(LittleEndian.U64, p));
        }
        if (p + Integer.BYTES <= end)
        {
            h = step4(h, input.get(LittleEndian.U32, p));
            p += Integer.BYTES;
        }
        for (; p < end; p++)
        {
            h = step1(h, input.get(LittleEndian.U8, p));
        }
        return avalanche(h);
    }

    private static long round(final long accumulator, final long lane)
    {
        return Long.rotateLeft(accumulator + lane * PRIME64_2, 31) * PRIME64_1;
    }

    private static long mergeRound(final long accumulator, final long lane)
    {
        return (accumulator ^ round(0, lane)) * PRIME64_1 + PRIME64_4;
    }

    private static long converge(final long v1, final long v2, final long v3, final long v4)
    {
        long h = Long.rotateLeft(v1, 1) + Long.rotateLeft(v2, 7) + Long.rotateLeft(v3, 12) + Long.rotateLeft(v4, 18);
        h = mergeRound(h, v1);
        h = mergeRound(h, v2);
        h = mergeRound(h, v3);
        return mergeRound(h, v4);
    }

    private static long step8(final long h, final long lane)
    {
        return Long.rotateLeft(h ^ round(0, lane), 27) * PRIME64_1 + PRIME64_4;
    }

    private static long step4(final long h, final int lane)
    {
        return Long.rotateLeft(h ^ ((lane & 0xFFFF_FFFFL) * PRIME64_1), 23) * PRIME64_2 + PRIME64_3;
    }

    private static long step1(final long h, final byte lane)
    {
        return Long.rotateLeft(h ^ ((lane & 0xFFL) * PRIME64_5), 11) * PRIME64_1;
    }

    static long avalanche(final long hash)
    {
        long h = hash;
        h ^= h >>> 33;
        h *= PRIME64_2;
        h ^= h >>> 29;
        h *= PRIME64_3;
        h ^= h >>> 32;
        return h;
    }
}
