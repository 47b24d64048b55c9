package io.rdmakv.common.protocol.wire;

import io.rdmakv.common.LittleEndian;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

import static io.rdmakv.common.protocol.wire.MalformedMessageException.Kind.BAD_LENGTH;
import static io.rdmakv.common.protocol.wire.MalformedMessageException.Kind.OVERSIZED;

/**
 * Reads a message body field after field and never past the message's length: a field that would cross
 * it is a {@link MalformedMessageException}, not an {@code IndexOutOfBoundsException}.
 */
public final class MessageReader
{
    private final MemorySegment segment;
    private final long end;
    private final MessageType type;
    private long position;

    public MessageReader(
        final MemorySegment segment, final long messageOffset, final long messageLength, final MessageType type)
    {
        this.segment = segment;
        this.position = messageOffset + MessageHeaderDescriptor.HEADER_LENGTH;
        this.end = messageOffset + messageLength;
        this.type = type;
    }

    public MessageType type()
    {
        return type;
    }

    public long remaining()
    {
        return end - position;
    }

    public int u16(final String field)
    {
        need(Short.BYTES, field);
        final int value = LittleEndian.u16(segment, position);
        position += Short.BYTES;
        return value;
    }

    public int u32(final String field)
    {
        need(Integer.BYTES, field);
        final int value = segment.get(LittleEndian.U32, position);
        position += Integer.BYTES;
        return value;
    }

    public long u64(final String field)
    {
        need(Long.BYTES, field);
        final long value = segment.get(LittleEndian.U64, position);
        position += Long.BYTES;
        return value;
    }

    /** Reads a length field and checks it against {@code max}. */
    public int length(final int value, final int max, final String field)
    {
        if (value < 0 || value > max)
        {
            throw new MalformedMessageException(
                OVERSIZED, type + " " + field + " of " + (value & 0xFFFF_FFFFL) + " bytes is over the limit of " + max);
        }
        return value;
    }

    public byte[] bytes(final int length, final String field)
    {
        need(length, field);
        final byte[] bytes = new byte[length];
        MemorySegment.copy(segment, ValueLayout.JAVA_BYTE, position, bytes, 0, length);
        position += length;
        return bytes;
    }

    String utf8(final int length, final String field)
    {
        return new String(bytes(length, field), StandardCharsets.UTF_8);
    }

    public void expectEnd()
    {
        if (position != end)
        {
            throw new MalformedMessageException(
                BAD_LENGTH, type + " message has " + (end - position) + " bytes after its last field");
        }
    }

    private void need(final long length, final String field)
    {
        if (length > end - position)
        {
            throw new MalformedMessageException(
                BAD_LENGTH, type + " message too short for its " + field + ": needs " + length + " more bytes, has " +
                (end - position));
        }
    }
}
