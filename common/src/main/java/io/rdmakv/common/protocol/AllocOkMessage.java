package io.rdmakv.common.protocol;

/**
 * ALLOC_OK, server to client: a chunk of the data area is the client's until it says BYE or dies.
 *
 * <pre>
 *  16 chunk_offset   u64   offset in the data area (a multiple of 64)
 *  24 chunk_length   u64
 * </pre>
 */
public record AllocOkMessage(long requestId, long chunkOffset, long chunkLength) implements ControlMessage
{
    public static final int CHUNK_OFFSET_OFFSET = MessageHeaderDescriptor.HEADER_LENGTH;
    public static final int CHUNK_LENGTH_OFFSET = CHUNK_OFFSET_OFFSET + Long.BYTES;
    public static final int LENGTH = CHUNK_LENGTH_OFFSET + Long.BYTES;

    public AllocOkMessage
    {
        if (chunkOffset < 0 || chunkLength <= 0)
        {
            throw new IllegalArgumentException(
                "ALLOC_OK chunk at " + chunkOffset + " of " + chunkLength + " bytes: offset must be at least 0 and " +
                "length more than 0");
        }
    }

    @Override
    public MessageType type()
    {
        return MessageType.ALLOC_OK;
    }

    @Override
    public int encodedLength()
    {
        return LENGTH;
    }

    void encodeBody(final MessageWriter writer)
    {
        writer.u64(chunkOffset).u64(chunkLength);
    }

    static AllocOkMessage decode(final MessageReader reader, final long requestId)
    {
        return new AllocOkMessage(requestId, reader.u64("chunk offset"), reader.u64("chunk length"));
    }
}
