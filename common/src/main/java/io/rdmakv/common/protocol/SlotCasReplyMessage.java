package io.rdmakv.common.protocol;

import io.rdmakv.common.LittleEndian;
import io.rdmakv.common.protocol.wire.MalformedMessageException;
import io.rdmakv.common.protocol.wire.MessageHeaderDescriptor;
import io.rdmakv.common.protocol.wire.MessageReader;
import io.rdmakv.common.protocol.wire.MessageType;
import io.rdmakv.common.protocol.wire.MessageWriter;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

import static io.rdmakv.common.protocol.wire.MalformedMessageException.Kind.BAD_FIELD;
import static io.rdmakv.common.protocol.wire.MalformedMessageException.Kind.BAD_LENGTH;
import static io.rdmakv.common.protocol.wire.MalformedMessageException.Kind.OVERSIZED;

/**
 * SLOT_CAS_REPLY, node to client: the word each entry of a {@link SlotCasMessage} held before its CAS ran, in the
 * request's order (equal to the entry's expected word when it swapped).
 *
 * <pre>
 *  16 count      u32   the request's count
 *  20 reserved   u32   zero
 *  24 seen       count * u64
 * </pre>
 */
public record SlotCasReplyMessage(long requestId, long[] seen) implements ControlMessage
{
    public static final int COUNT_OFFSET = MessageHeaderDescriptor.HEADER_LENGTH;
    public static final int RESERVED_OFFSET = COUNT_OFFSET + Integer.BYTES;
    public static final int SEEN_OFFSET = RESERVED_OFFSET + Integer.BYTES;
    public static final int MAX_LENGTH = SEEN_OFFSET + SlotCasMessage.MAX_ENTRIES * Long.BYTES;

    public SlotCasReplyMessage
    {
        seen = seen.clone();
        if (seen.length == 0 || seen.length > SlotCasMessage.MAX_ENTRIES)
        {
            throw new IllegalArgumentException("SLOT_CAS_REPLY of " + seen.length + " words: must be 1.." +
                SlotCasMessage.MAX_ENTRIES);
        }
    }

    @Override
    public MessageType type()
    {
        return MessageType.SLOT_CAS_REPLY;
    }

    @Override
    public long[] seen()
    {
        return seen.clone();
    }

    @Override
    public int encodedLength()
    {
        return lengthOf(seen.length);
    }

    public static int lengthOf(final int count)
    {
        return SEEN_OFFSET + count * Long.BYTES;
    }

    void encodeBody(final MessageWriter writer)
    {
        writer.u32(seen.length).u32(0);
        for (final long word : seen)
        {
            writer.u64(word);
        }
    }

    static SlotCasReplyMessage decode(final MessageReader reader, final long requestId)
    {
        final long count = reader.u32("count") & 0xFFFF_FFFFL;
        final int reserved = reader.u32("reserved");
        if (count == 0 || count > SlotCasMessage.MAX_ENTRIES || reserved != 0)
        {
            throw new MalformedMessageException(count > SlotCasMessage.MAX_ENTRIES ? OVERSIZED : BAD_FIELD,
                "SLOT_CAS_REPLY of " + count + " words (must be 1.." + SlotCasMessage.MAX_ENTRIES +
                "), reserved " + Integer.toUnsignedString(reserved) + " (must be 0)");
        }
        if (reader.remaining() != count * Long.BYTES)
        {
            throw new MalformedMessageException(BAD_LENGTH, "SLOT_CAS_REPLY of " + count + " words needs " +
                count * Long.BYTES + " bytes, has " + reader.remaining());
        }
        final long[] seen = new long[(int)count];
        for (int i = 0; i < count; i++)
        {
            seen[i] = reader.u64("seen");
        }
        return new SlotCasReplyMessage(requestId, seen);
    }

    // ---- in place (the data path: no record) --------------------------------------------------

    /** Starts a reply of {@code count} words at {@code offset}; returns its length. Words go in with {@link #seen}. */
    public static int begin(final MemorySegment segment, final long offset, final long requestId, final int count)
    {
        final int length = lengthOf(count);
        MessageHeaderDescriptor.write(segment, offset, MessageType.SLOT_CAS_REPLY, length, requestId);
        segment.set(LittleEndian.U32, offset + COUNT_OFFSET, count);
        segment.set(LittleEndian.U32, offset + RESERVED_OFFSET, 0);
        return length;
    }

    public static void seen(final MemorySegment segment, final long offset, final int i, final long word)
    {
        segment.set(LittleEndian.U64, offset + SEEN_OFFSET + (long)i * Long.BYTES, word);
    }

    /**
     * The word count of the reply of {@code length} bytes at {@code offset}: -1 unless it is a well-formed
     * SLOT_CAS_REPLY of exactly {@code expectedCount} words.
     */
    public static int count(final MemorySegment segment, final long offset, final long length, final int expectedCount)
    {
        if (length != lengthOf(expectedCount) || MessageHeaderDescriptor.length(segment, offset) != length ||
            MessageHeaderDescriptor.type(segment, offset) != MessageType.SLOT_CAS_REPLY.code())
        {
            return -1;
        }
        final int count = segment.get(LittleEndian.U32, offset + COUNT_OFFSET);
        final int reserved = segment.get(LittleEndian.U32, offset + RESERVED_OFFSET);
        return count == expectedCount && reserved == 0 ? count : -1;
    }

    public static long seen(final MemorySegment segment, final long offset, final int i)
    {
        return segment.get(LittleEndian.U64, offset + SEEN_OFFSET + (long)i * Long.BYTES);
    }

    @Override
    public boolean equals(final Object o)
    {
        return o instanceof SlotCasReplyMessage m && requestId == m.requestId && Arrays.equals(seen, m.seen);
    }

    @Override
    public int hashCode()
    {
        return Long.hashCode(requestId) * 31 + Arrays.hashCode(seen);
    }

    @Override
    public String toString()
    {
        return "SlotCasReplyMessage{requestId=" + requestId + " seen=" + Arrays.toString(seen) + "}";
    }
}
