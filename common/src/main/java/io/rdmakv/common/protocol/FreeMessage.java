package io.rdmakv.common.protocol;

import io.rdmakv.common.protocol.wire.FreeBatch;
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
 * FREE, client to server: these blocks are no longer referenced by any slot (replaced or deleted); the
 * server holds them for a grace period before it reuses them. No reply.
 *
 * <pre>
 *  16 count      u32   1..{@value #MAX_ENTRIES}
 *  20 reserved   u32   zero
 *  24 entries    count * 12 bytes:
 *                  +0 offset u64   the block's offset in the data area
 *                  +8 length u32   the block's length
 * </pre>
 *
 * The count is bounded so that the largest FREE fits in {@link MessageHeaderDescriptor#MAX_MESSAGE_LENGTH}.
 * To build one in a send buffer without allocating, use {@link FreeBatch}.
 */
public record FreeMessage(long requestId, long[] offsets, int[] lengths) implements ControlMessage
{
    public static final int COUNT_OFFSET = MessageHeaderDescriptor.HEADER_LENGTH;
    public static final int RESERVED_OFFSET = COUNT_OFFSET + Integer.BYTES;
    public static final int ENTRIES_OFFSET = RESERVED_OFFSET + Integer.BYTES;

    public static final int ENTRY_OFFSET_OFFSET = 0;
    public static final int ENTRY_LENGTH_OFFSET = ENTRY_OFFSET_OFFSET + Long.BYTES;
    public static final int ENTRY_LENGTH = ENTRY_LENGTH_OFFSET + Integer.BYTES;

    /** The most entries one FREE carries: 339. */
    public static final int MAX_ENTRIES = (MessageHeaderDescriptor.MAX_MESSAGE_LENGTH - ENTRIES_OFFSET) / ENTRY_LENGTH;

    public FreeMessage
    {
        offsets = offsets.clone();
        lengths = lengths.clone();
        if (offsets.length != lengths.length)
        {
            throw new IllegalArgumentException(
                "FREE has " + offsets.length + " offsets but " + lengths.length + " lengths");
        }
        if (offsets.length == 0 || offsets.length > MAX_ENTRIES)
        {
            throw new IllegalArgumentException("FREE of " + offsets.length + " entries: must be 1.." + MAX_ENTRIES);
        }
        for (int i = 0; i < offsets.length; i++)
        {
            if (offsets[i] < 0 || lengths[i] <= 0)
            {
                throw new IllegalArgumentException(
                    "FREE entry " + i + " at " + offsets[i] + " of " + lengths[i] + " bytes: offset must be at " +
                    "least 0 and length more than 0");
            }
        }
    }

    /** The length of a FREE with {@code count} entries. */
    public static int lengthFor(final int count)
    {
        return ENTRIES_OFFSET + count * ENTRY_LENGTH;
    }

    @Override
    public MessageType type()
    {
        return MessageType.FREE;
    }

    @Override
    public long[] offsets()
    {
        return offsets.clone();
    }

    @Override
    public int[] lengths()
    {
        return lengths.clone();
    }

    public int count()
    {
        return offsets.length;
    }

    /** The offset of entry {@code i}. */
    public long offset(final int i)
    {
        return offsets[i];
    }

    /** The length of entry {@code i}. */
    public int length(final int i)
    {
        return lengths[i];
    }

    @Override
    public int encodedLength()
    {
        return lengthFor(offsets.length);
    }

    void encodeBody(final MessageWriter writer)
    {
        writer.u32(offsets.length).u32(0);
        for (int i = 0; i < offsets.length; i++)
        {
            writer.u64(offsets[i]).u32(lengths[i]);
        }
    }

    static FreeMessage decode(final MessageReader reader, final long requestId)
    {
        final long count = reader.u32("count") & 0xFFFF_FFFFL;
        reader.u32("reserved");
        if (count == 0 || count > MAX_ENTRIES)
        {
            throw new MalformedMessageException(
                count == 0 ? BAD_FIELD : OVERSIZED, "FREE of " + count + " entries: must be 1.." + MAX_ENTRIES);
        }
        if (reader.remaining() != count * ENTRY_LENGTH)
        {
            throw new MalformedMessageException(
                BAD_LENGTH, "FREE of " + count + " entries needs " + count * ENTRY_LENGTH + " bytes of entries, has " +
                reader.remaining());
        }
        final long[] offsets = new long[(int)count];
        final int[] lengths = new int[(int)count];
        for (int i = 0; i < count; i++)
        {
            offsets[i] = reader.u64("entry offset");
            lengths[i] = reader.u32("entry length");
        }
        return new FreeMessage(requestId, offsets, lengths);
    }

    @Override
    public boolean equals(final Object o)
    {
        return o instanceof FreeMessage m && requestId == m.requestId && Arrays.equals(offsets, m.offsets) &&
            Arrays.equals(lengths, m.lengths);
    }

    @Override
    public int hashCode()
    {
        return Long.hashCode(requestId) * 31 + Arrays.hashCode(offsets) * 17 + Arrays.hashCode(lengths);
    }

    @Override
    public String toString()
    {
        return "FreeMessage{requestId=" + requestId + " count=" + offsets.length + "}";
    }
}
