package io.rdmakv.common.protocol;

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
