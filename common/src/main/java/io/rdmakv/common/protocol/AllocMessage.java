package io.rdmakv.common.protocol;

import io.rdmakv.common.protocol.wire.MessageHeaderDescriptor;
import io.rdmakv.common.protocol.wire.MessageReader;
import io.rdmakv.common.protocol.wire.MessageType;
import io.rdmakv.common.protocol.wire.MessageWriter;

/**
 * ALLOC, client to server: grant me space in the data area (answered by ALLOC_OK or ALLOC_FAILED).
 *
 * <pre>
 *  16 requested_bytes   u64   more than 0; the server grants whole chunks
 * </pre>
 */
public record AllocMessage(long requestId, long requestedBytes) implements ControlMessage
{
    public static final int REQUESTED_BYTES_OFFSET = MessageHeaderDescriptor.HEADER_LENGTH;
    public static final int LENGTH = REQUESTED_BYTES_OFFSET + Long.BYTES;

    public AllocMessage
    {
        if (requestedBytes <= 0)
        {
            throw new IllegalArgumentException("ALLOC of " + requestedBytes + " bytes: must be more than 0");
        }
    }

    @Override
    public MessageType type()
    {
        return MessageType.ALLOC;
    }

    @Override
    public int encodedLength()
    {
        return LENGTH;
    }

    void encodeBody(final MessageWriter writer)
    {
        writer.u64(requestedBytes);
    }

    static AllocMessage decode(final MessageReader reader, final long requestId)
    {
        return new AllocMessage(requestId, reader.u64("requested bytes"));
    }
}
