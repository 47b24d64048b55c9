package io.rdmakv.common.protocol.wire;

import io.rdmakv.common.LittleEndian;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** Writes a message body field after field; the codec has checked that the whole message fits. */
public final class MessageWriter
{
    private final MemorySegment segment;
    private long position;

    public MessageWriter(final MemorySegment segment, final long position)
    {
        this.segment = segment;
        this.position = position;
    }

    public MessageWriter u16(final int value)
    {
        LittleEndian.u16(segment, position, value);
        position += Short.BYTES;
        return this;
    }

    public MessageWriter u32(final int value)
    {
        segment.set(LittleEndian.U32, position, value);
        position += Integer.BYTES;
        return this;
    }

    public MessageWriter u64(final long value)
    {
        segment.set(LittleEndian.U64, position, value);
        position += Long.BYTES;
        return this;
    }

    public MessageWriter bytes(final byte[] bytes)
    {
        MemorySegment.copy(bytes, 0, segment, ValueLayout.JAVA_BYTE, position, bytes.length);
        position += bytes.length;
        return this;
    }

    public long position()
    {
        return position;
    }
}
