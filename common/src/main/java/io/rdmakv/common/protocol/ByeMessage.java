package io.rdmakv.common.protocol;

import io.rdmakv.common.protocol.wire.MessageHeaderDescriptor;
import io.rdmakv.common.protocol.wire.MessageType;

/**
 * BYE, client to server: the client is closing its session; the server reclaims what it was granted. The
 * header alone: no body.
 */
public record ByeMessage(long requestId) implements ControlMessage
{
    @Override
    public MessageType type()
    {
        return MessageType.BYE;
    }

    @Override
    public int encodedLength()
    {
        return MessageHeaderDescriptor.HEADER_LENGTH;
    }
}
