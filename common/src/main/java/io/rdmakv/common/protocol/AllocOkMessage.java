package io.rdmakv.common.protocol;

import io.rdmakv.common.protocol.wire.MessageHeaderDescriptor;
import io.rdmakv.common.protocol.wire.MessageReader;
import io.rdmakv.common.protocol.wire.MessageType;
import io.rdmakv.common.protocol.wire.MessageWriter;

/**
 * ALLOC_OK, server to client: a chunk of the data area is the client's until it says BYE or dies, and the
 * rkey its blocks there are written with.
 *
 * <pre>
 *  16 chunk_offset   u64   offset in the data area (a multiple of 64)
 *  24 chunk_length   u64
 *  32 write_rkey     u32   the rkey of the memory window bound over exactly this chunk on the session's
 *                          queue pair (or the data area's own rkey on a node without memory windows)
 *  36 reserved       u32   zero
 *  40 grant_secret   u64   in a replicated group, what the client shows the group's other replicas to get its
 *                          window over the chunk there (BIND_WINDOW, {@link GrantMessage}); else 0
 * </pre>
 */
public record AllocOkMessage(long requestId, long chunkOffset, long chunkLength, int writeRkey, long grantSecret)
    implements ControlMessage
{
    public static final int CHUNK_OFFSET_OFFSET = MessageHeaderDescriptor.HEADER_LENGTH;
    public static final int CHUNK_LENGTH_OFFSET = CHUNK_OFFSET_OFFSET + Long.BYTES;
    public static final int WRITE_RKEY_OFFSET = CHUNK_LENGTH_OFFSET + Long.BYTES;
    public static final int RESERVED_OFFSET = WRITE_RKEY_OFFSET + Integer.BYTES;
    public static final int GRANT_SECRET_OFFSET = RESERVED_OFFSET + Integer.BYTES;
    public static final int LENGTH = GRANT_SECRET_OFFSET + Long.BYTES;

    /** A grant of a node whose data area no other replica mirrors (no secret). */
    public AllocOkMessage(final long requestId, final long chunkOffset, final long chunkLength, final int writeRkey)
    {
        this(requestId, chunkOffset, chunkLength, writeRkey, 0);
    }

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
        writer.u64(chunkOffset).u64(chunkLength).u32(writeRkey).u32(0).u64(grantSecret);
    }

    static AllocOkMessage decode(final MessageReader reader, final long requestId)
    {
        final long offset = reader.u64("chunk offset");
        final long length = reader.u64("chunk length");
        final int rkey = reader.u32("write rkey");
        final int reserved = reader.u32("reserved");
        if (reserved != 0)
        {
            throw new IllegalArgumentException("reserved field is " + Integer.toUnsignedString(reserved) +
                ", must be 0");
        }
        return new AllocOkMessage(requestId, offset, length, rkey, reader.u64("grant secret"));
    }
}
