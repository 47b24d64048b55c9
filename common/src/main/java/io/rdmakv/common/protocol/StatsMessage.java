package io.rdmakv.common.protocol;

import io.rdmakv.common.protocol.wire.MessageHeaderDescriptor;
import io.rdmakv.common.protocol.wire.MessageType;

/** STATS, client to server: send statistics (answered by STATS_OK). The header alone: no body. */
public record StatsMessage(long requestId) implements ControlMessage
{
    @Override
    public MessageType type()
    {
        return MessageType.STATS;
    }

    @Override
    public int encodedLength()
    {
        return MessageHeaderDescriptor.HEADER_LENGTH;
    }
}
