package io.rdmakv.common;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The value layouts every rdmakv layout is read and written with: little-endian, the byte order of the
 * region, the key-value blocks and the control messages.
 *
 * <p>The index slots are the one place where the order is more than a convention: an RDMA atomic acts on
 * the 8 bytes in the responder's host order, so a region is only valid on a little-endian host (x86-64,
 * aarch64). {@link #checkNativeOrder()} says so clearly where a server starts.
 */
public final class LittleEndian
{
    public static final ValueLayout.OfByte U8 = ValueLayout.JAVA_BYTE;
    public static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    public static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    public static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /** An 8-byte aligned little-endian word: index slots and other CAS targets. */
    public static final ValueLayout.OfLong WORD = ValueLayout.JAVA_LONG.withOrder(ByteOrder.LITTLE_ENDIAN);

    private LittleEndian()
    {
    }

    /** Reads an unsigned 16-bit value. */
    public static int u16(final MemorySegment segment, final long offset)
    {
        return segment.get(U16, offset) & 0xffff;
    }

    /** Writes the low 16 bits of {@code value}. */
    public static void u16(final MemorySegment segment, final long offset, final int value)
    {
        segment.set(U16, offset, (short)value);
    }

    /** Throws when this JVM's native byte order is not little-endian (RDMA atomics act in host order). */
    public static void checkNativeOrder()
    {
        if (ByteOrder.nativeOrder() != ByteOrder.LITTLE_ENDIAN)
        {
            throw new IllegalStateException(
                "rdmakv needs a little-endian host (RDMA atomics act on index slots in host byte order); this one is " +
                ByteOrder.nativeOrder());
        }
    }
}
