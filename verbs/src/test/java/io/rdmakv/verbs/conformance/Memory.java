package io.rdmakv.verbs.conformance;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.fail;

/** Byte patterns and 8-byte words in native memory, and assertions over them. */
final class Memory
{
    private Memory()
    {
    }

    /** Fills {@code segment} with a pattern that differs per {@code seed} and per byte position. */
    static MemorySegment pattern(final MemorySegment segment, final int seed)
    {
        for (long i = 0; i < segment.byteSize(); i++)
        {
            segment.set(ValueLayout.JAVA_BYTE, i, (byte)(seed * 131 + i * 31 + 7));
        }
        return segment;
    }

    /** Fails unless {@code actual} holds exactly the bytes of {@code expected}. */
    static void assertSameBytes(final MemorySegment expected, final MemorySegment actual, final String what)
    {
        if (expected.byteSize() != actual.byteSize())
        {
            fail(what + ": " + actual.byteSize() + " bytes, expected " + expected.byteSize());
        }
        final long at = expected.mismatch(actual);
        if (at != -1)
        {
            fail(what + ": first difference at byte " + at + ": expected " + expected.get(ValueLayout.JAVA_BYTE, at) +
                " but was " + actual.get(ValueLayout.JAVA_BYTE, at));
        }
    }

    /** Fails unless every byte of {@code segment} is {@code value}. */
    static void assertFilled(final MemorySegment segment, final byte value, final String what)
    {
        for (long i = 0; i < segment.byteSize(); i++)
        {
            final byte b = segment.get(ValueLayout.JAVA_BYTE, i);
            if (b != value)
            {
                fail(what + ": byte " + i + " is " + b + ", expected " + value);
            }
        }
    }

    /** The 8-byte word at {@code offset}, in native byte order (how RDMA atomics see it). */
    static long word(final MemorySegment segment, final long offset)
    {
        return segment.get(ValueLayout.JAVA_LONG, offset);
    }

    static void word(final MemorySegment segment, final long offset, final long value)
    {
        segment.set(ValueLayout.JAVA_LONG, offset, value);
    }
}
