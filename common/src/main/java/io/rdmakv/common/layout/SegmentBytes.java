package io.rdmakv.common.layout;

import io.rdmakv.common.LittleEndian;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/** Allocation-free byte comparisons between segments and arrays (key checks on the data path). */
final class SegmentBytes
{
    private static final VarHandle ARRAY_LONG =
        MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private SegmentBytes()
    {
    }

    /** Whether {@code length} bytes at {@code offset} of {@code segment} equal {@code array[arrayOffset..]}. */
    static boolean equals(
        final MemorySegment segment, final long offset, final byte[] array, final int arrayOffset, final int length)
    {
        int i = 0;
        for (; i <= length - Long.BYTES; i += Long.BYTES)
        {
            if (segment.get(LittleEndian.U64, offset + i) != (long)ARRAY_LONG.get(array, arrayOffset + i))
            {
                return false;
            }
        }
        for (; i < length; i++)
        {
            if (segment.get(LittleEndian.U8, offset + i) != array[arrayOffset + i])
            {
                return false;
            }
        }
        return true;
    }

    /** Whether {@code length} bytes at {@code offset} of {@code a} equal those at {@code otherOffset} of {@code b}. */
    static boolean equals(
        final MemorySegment a, final long offset, final MemorySegment b, final long otherOffset, final int length)
    {
        return MemorySegment.mismatch(a, offset, offset + length, b, otherOffset, otherOffset + length) == -1;
    }
}
