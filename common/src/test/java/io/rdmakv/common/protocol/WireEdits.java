package io.rdmakv.common.protocol;

import io.rdmakv.common.LittleEndian;
import io.rdmakv.common.protocol.wire.MalformedMessageException.Kind;
import io.rdmakv.common.protocol.wire.MalformedMessageException;
import io.rdmakv.common.protocol.wire.MessageHeaderDescriptor;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Damaging encoded control messages in tests: patched fields, changed lengths, and the refusal they must earn. */
final class WireEdits
{
    private WireEdits()
    {
    }

    /** Decoding the first {@code available} bytes fails with {@code kind}. */
    static MalformedMessageException malformed(final byte[] bytes, final int available, final Kind kind)
    {
        final MalformedMessageException ex = assertThrows(
            MalformedMessageException.class, () -> ControlCodec.decode(MemorySegment.ofArray(bytes), 0, available));
        assertEquals(kind, ex.kind(), ex.getMessage());
        return ex;
    }

    static MalformedMessageException malformed(final byte[] bytes, final Kind kind)
    {
        return malformed(bytes, bytes.length, kind);
    }

    static byte[] withU16(final byte[] bytes, final int offset, final int value)
    {
        final byte[] copy = bytes.clone();
        LittleEndian.u16(MemorySegment.ofArray(copy), offset, value);
        return copy;
    }

    static byte[] withU32(final byte[] bytes, final int offset, final int value)
    {
        final byte[] copy = bytes.clone();
        MemorySegment.ofArray(copy).set(LittleEndian.U32, offset, value);
        return copy;
    }

    static byte[] withU64(final byte[] bytes, final int offset, final long value)
    {
        final byte[] copy = bytes.clone();
        MemorySegment.ofArray(copy).set(LittleEndian.U64, offset, value);
        return copy;
    }

    /** Changes the length field and the array's length together. */
    static byte[] resized(final byte[] bytes, final int length)
    {
        return withU32(Arrays.copyOf(bytes, length), MessageHeaderDescriptor.LENGTH_OFFSET, length);
    }
}
