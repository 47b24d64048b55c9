package io.rdmakv.common.protocol;

import io.rdmakv.common.protocol.wire.MalformedMessageException;
import io.rdmakv.common.protocol.wire.MessageHeaderDescriptor;
import io.rdmakv.common.protocol.wire.MessageReader;
import io.rdmakv.common.protocol.wire.MessageType;
import io.rdmakv.common.protocol.wire.MessageWriter;
import java.util.Arrays;

import static io.rdmakv.common.protocol.wire.MalformedMessageException.Kind.BAD_FIELD;
import static io.rdmakv.common.protocol.wire.MalformedMessageException.Kind.BAD_LENGTH;
import static io.rdmakv.common.protocol.wire.MalformedMessageException.Kind.OVERSIZED;

/**
 * FENCE_WRITERS, primary node to its backup (over a session of the primary's own): fence every session of these
 * writers ({@link HelloMessage#writerId}) that is open now, as an expired lease fences, before answering
 * {@link FenceWritersOkMessage}. A primary sends it before it sweeps its backups for a departed writer's words, so
 * that a writer whose session the primary reclaimed cannot CAS a backup afterwards.
 *
 * <pre>
 *  16 count      u32   1..{@value #MAX_WRITERS}
 *  20 reserved   u32   zero
 *  24 writers    count * u64, none 0
 * </pre>
 */
public record FenceWritersMessage(long requestId, long[] writers) implements ControlMessage
{
    public static final int COUNT_OFFSET = MessageHeaderDescriptor.HEADER_LENGTH;
    public static final int RESERVED_OFFSET = COUNT_OFFSET + Integer.BYTES;
    public static final int WRITERS_OFFSET = RESERVED_OFFSET + Integer.BYTES;

    /** The most writers one FENCE_WRITERS names: 509. */
    public static final int MAX_WRITERS = (MessageHeaderDescriptor.MAX_MESSAGE_LENGTH - WRITERS_OFFSET) / Long.BYTES;

    public FenceWritersMessage
    {
        writers = writers.clone();
        if (writers.length == 0 || writers.length > MAX_WRITERS)
        {
            throw new IllegalArgumentException(
                "FENCE_WRITERS of " + writers.length + " writers: must be 1.." + MAX_WRITERS);
        }
        for (final long writer : writers)
        {
            if (writer == 0)
            {
                throw new IllegalArgumentException("FENCE_WRITERS names writer 0, which no client is");
            }
        }
    }

    @Override
    public MessageType type()
    {
        return MessageType.FENCE_WRITERS;
    }

    @Override
    public long[] writers()
    {
        return writers.clone();
    }

    /** Whether {@code writer} is one of those named. */
    public boolean names(final long writer)
    {
        for (final long w : writers)
        {
            if (w == writer)
            {
                return true;
            }
        }
        return false;
    }

    @Override
    public int encodedLength()
    {
        return WRITERS_OFFSET + writers.length * Long.BYTES;
    }

    void encodeBody(final MessageWriter writer)
    {
        writer.u32(writers.length).u32(0);
        for (final long w : writers)
        {
            writer.u64(w);
        }
    }

    static FenceWritersMessage decode(final MessageReader reader, final long requestId)
    {
        final long count = reader.u32("count") & 0xFFFF_FFFFL;
        reader.u32("reserved");
        if (count == 0 || count > MAX_WRITERS)
        {
            throw new MalformedMessageException(count == 0 ? BAD_FIELD : OVERSIZED,
                "FENCE_WRITERS of " + count + " writers: must be 1.." + MAX_WRITERS);
        }
        if (reader.remaining() != count * Long.BYTES)
        {
            throw new MalformedMessageException(BAD_LENGTH, "FENCE_WRITERS of " + count + " writers needs " +
                count * Long.BYTES + " bytes of ids, has " + reader.remaining());
        }
        final long[] writers = new long[(int)count];
        for (int i = 0; i < count; i++)
        {
            writers[i] = reader.u64("writer");
        }
        return new FenceWritersMessage(requestId, writers);
    }

    @Override
    public boolean equals(final Object o)
    {
        return o instanceof FenceWritersMessage m && requestId == m.requestId && Arrays.equals(writers, m.writers);
    }

    @Override
    public int hashCode()
    {
        return Long.hashCode(requestId) * 31 + Arrays.hashCode(writers);
    }

    @Override
    public String toString()
    {
        return "FenceWritersMessage{requestId=" + requestId + " writers=" + writers.length + "}";
    }
}
