package io.rdmakv.common.protocol;

import io.rdmakv.common.protocol.wire.MessageHeaderDescriptor;
import io.rdmakv.common.protocol.wire.MessageReader;
import io.rdmakv.common.protocol.wire.MessageType;
import io.rdmakv.common.protocol.wire.MessageWriter;

/**
 * FENCE_WRITERS_OK, node to the primary that sent FENCE_WRITERS: every session of those writers that was open is
 * fenced now (its queue pair in ERR: nothing it sends is carried out any more).
 *
 * <pre>
 *  16 fenced     u32   how many sessions were fenced
 *  20 reserved   u32   zero
 * </pre>
 */
public record FenceWritersOkMessage(long requestId, int fenced) implements ControlMessage
{
    public static final int FENCED_OFFSET = MessageHeaderDescriptor.HEADER_LENGTH;
    public static final int LENGTH = FENCED_OFFSET + Long.BYTES;

    public FenceWritersOkMessage
    {
        if (fenced < 0)
        {
            throw new IllegalArgumentException("FENCE_WRITERS_OK of " + fenced + " sessions");
        }
    }

    @Override
    public MessageType type()
    {
        return MessageType.FENCE_WRITERS_OK;
    }

    @Override
    public int encodedLength()
    {
        return LENGTH;
    }

    void encodeBody(final MessageWriter writer)
    {
        writer.u32(fenced).u32(0);
    }

    static FenceWritersOkMessage decode(final MessageReader reader, final long requestId)
    {
        final int fenced = reader.u32("fenced");
        reader.u32("reserved");
        return new FenceWritersOkMessage(requestId, fenced);
    }
}
