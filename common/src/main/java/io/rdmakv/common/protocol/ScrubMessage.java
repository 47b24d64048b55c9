package io.rdmakv.common.protocol;

import io.rdmakv.common.protocol.wire.MessageHeaderDescriptor;
import io.rdmakv.common.protocol.wire.MessageType;

/**
 * SCRUB, client to a replica group's primary: scrub the backups now and answer with what the pass did (SCRUB_OK),
 * or ERROR when this node is no primary with backups or a backup could not be scrubbed. The header alone.
 */
public record ScrubMessage(long requestId) implements ControlMessage
{
    @Override
    public MessageType type()
    {
        return MessageType.SCRUB;
    }

    @Override
    public int encodedLength()
    {
        return MessageHeaderDescriptor.HEADER_LENGTH;
    }
}
