package io.rdmakv.common.protocol;

import io.rdmakv.common.protocol.wire.MessageHeaderDescriptor;
import io.rdmakv.common.protocol.wire.MessageType;

/**
 * SHUTDOWN, server to client, unsolicited (request id 0): the server is going away; finish or abandon what
 * is in flight and close. The header alone: no body.
 */
public record ShutdownMessage(long requestId) implements ControlMessage
{
    @Override
    public MessageType type()
    {
        return MessageType.SHUTDOWN;
    }

    @Override
    public int encodedLength()
    {
        return MessageHeaderDescriptor.HEADER_LENGTH;
    }
}
