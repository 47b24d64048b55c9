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
 * SLOT_CAS, client to node, on a node whose clients cannot CAS its index (the node-assisted write path, HELLO_OK's
 * {@link HelloOkMessage#NODE_ASSISTED_WRITES} flag): compare-and-swap these index words for me, in order, through
 * the node's own atomics, and answer {@link SlotCasReplyMessage} with the word each held before (equal to
 * {@code expected} when it swapped), as an RDMA CAS would have left in the client's buffer. Entries are slots or
 * insert locks; the node checks each before it runs any (8-byte aligned, a slot or an insert lock of the index,
 * a lock only taken for or given back by the asking session) and refuses the whole request with ERROR
 * {@code BAD_SLOT_CAS} otherwise.
 *
 * <pre>
 *  16 count      u32   1..{@value #MAX_ENTRIES}
 *  20 reserved   u32   zero
 *  24 entries    count * { region_offset u64 (the word's offset in the node's region), expected u64, swap u64 }
 * </pre>
 *
 * The data path writes and reads it in place, without a record ({@link #begin}, {@link #entry}, {@link #finish};
 * {@link #count}, {@link #regionOffset}, {@link #expected}, {@link #swap}); the record is for the codec and tests.
 */
public record SlotCasMessage(long requestId, long[] regionOffsets, long[] expected, long[] swaps)
    implements ControlMessage
{
    public static final int COUNT_OFFSET = MessageHeaderDescriptor.HEADER_LENGTH;
    public static final int RESERVED_OFFSET = COUNT_OFFSET + Integer.BYTES;
    public static final int ENTRIES_OFFSET = RESERVED_OFFSET + Integer.BYTES;
    public static final int ENTRY_LENGTH = 3 * Long.BYTES;
    /** The most words one SLOT_CAS changes: a batch's 16 slot CASes. */
    public static final int MAX_ENTRIES = 16;
    public static final int MAX_LENGTH = ENTRIES_OFFSET + MAX_ENTRIES * ENTRY_LENGTH;

    public SlotCasMessage
    {
        regionOffsets = regionOffsets.clone();
        expected = expected.clone();
        swaps = swaps.clone();
        if (regionOffsets.length == 0 || regionOffsets.length > MAX_ENTRIES)
        {
            throw new IllegalArgumentException("SLOT_CAS of " + regionOffsets.length + " words: must be 1.." +
                MAX_ENTRIES);
        }
        if (expected.length != regionOffsets.length || swaps.length != regionOffsets.length)
        {
            throw new IllegalArgumentException("SLOT_CAS needs as many expected and swap words as offsets");
        }
    }

    @Override
    public MessageType type()
    {
        return MessageType.SLOT_CAS;
    }

    @Override
    public long[] regionOffsets()
    {
        return regionOffsets.clone();
    }

    @Override
    public long[] expected()
    {
        return expected.clone();
    }

    @Override
    public long[] swaps()
    {
        return swaps.clone();
    }

    @Override
    public int encodedLength()
    {
        return lengthOf(regionOffsets.length);
    }

    /** The length of a SLOT_CAS of {@code count} entries. */
    public static int lengthOf(final int count)
    {
        return ENTRIES_OFFSET + count * ENTRY_LENGTH;
    }

    void encodeBody(final MessageWriter writer)
    {
        writer.u32(regionOffsets.length).u32(0);
        for (int i = 0; i < regionOffsets.length; i++)
        {
            writer.u64(regionOffsets[i]).u64(expected[i]).u64(swaps[i]);
        }
    }

    static SlotCasMessage decode(final MessageReader reader, final long requestId)
    {
        final long count = reader.u32("count") & 0xFFFF_FFFFL;
        final int reserved = reader.u32("reserved");
        if (count == 0 || count > MAX_ENTRIES)
        {
            throw new MalformedMessageException(count == 0 ? BAD_FIELD : OVERSIZED,
                "SLOT_CAS of " + count + " words: must be 1.." + MAX_ENTRIES);
        }
        if (reserved != 0)
        {
            throw new MalformedMessageException(BAD_FIELD, "SLOT_CAS reserved field is " +
                Integer.toUnsignedString(reserved) + ", must be 0");
        }
        if (reader.remaining() != count * ENTRY_LENGTH)
        {
            throw new MalformedMessageException(BAD_LENGTH, "SLOT_CAS of " + count + " words needs " +
                count * ENTRY_LENGTH + " bytes of entries, has " + reader.remaining());
        }
        final int n = (int)count;
        final long[] offsets = new long[n];
        final long[] expected = new long[n];
        final long[] swaps = new long[n];
        for (int i = 0; i < n; i++)
        {
            offsets[i] = reader.u64("region offset");
            expected[i] = reader.u64("expected");
            swaps[i] = reader.u64("swap");
        }
        return new SlotCasMessage(requestId, offsets, expected, swaps);
    }

    // ---- in place (the data path: no record) --------------------------------------------------

    /** Starts a SLOT_CAS at {@code offset} of {@code segment}; entries follow with {@link #entry}. */
    public static void begin(final MemorySegment segment, final long offset, final long requestId)
    {
        MessageHeaderDescriptor.write(segment, offset, MessageType.SLOT_CAS, ENTRIES_OFFSET, requestId);
        segment.set(LittleEndian.U64, offset + COUNT_OFFSET, 0L);
    }

    /** Writes entry {@code i} (below {@link #MAX_ENTRIES}) of the SLOT_CAS at {@code offset}. */
    public static void entry(final MemorySegment segment, final long offset, final int i, final long regionOffset,
        final long expected, final long swap)
    {
        final long at = offset + ENTRIES_OFFSET + (long)i * ENTRY_LENGTH;
        segment.set(LittleEndian.U64, at, regionOffset);
        segment.set(LittleEndian.U64, at + Long.BYTES, expected);
        segment.set(LittleEndian.U64, at + 2 * Long.BYTES, swap);
    }

    /** Sets the count and length of the SLOT_CAS at {@code offset}; returns its length. */
    public static int finish(final MemorySegment segment, final long offset, final int count)
    {
        if (count < 1 || count > MAX_ENTRIES)
        {
            throw new IllegalArgumentException("SLOT_CAS of " + count + " words: must be 1.." + MAX_ENTRIES);
        }
        final int length = lengthOf(count);
        segment.set(LittleEndian.U32, offset + MessageHeaderDescriptor.LENGTH_OFFSET, length);
        segment.set(LittleEndian.U32, offset + COUNT_OFFSET, count);
        return length;
    }

    /**
     * The entry count of the SLOT_CAS of {@code length} bytes at {@code offset}, checked against its length;
     * -1 when the message is malformed (a count of 0, over {@link #MAX_ENTRIES}, a nonzero reserved field or a
     * length that disagrees).
     */
    public static int count(final MemorySegment segment, final long offset, final long length)
    {
        if (length < ENTRIES_OFFSET || length > MAX_LENGTH ||
            MessageHeaderDescriptor.length(segment, offset) != length)
        {
            return -1;
        }
        final long count = segment.get(LittleEndian.U32, offset + COUNT_OFFSET) & 0xFFFF_FFFFL;
        final int reserved = segment.get(LittleEndian.U32, offset + RESERVED_OFFSET);
        return count >= 1 && count <= MAX_ENTRIES && reserved == 0 && lengthOf((int)count) == length ?
            (int)count : -1;
    }

    public static long regionOffset(final MemorySegment segment, final long offset, final int i)
    {
        return segment.get(LittleEndian.U64, offset + ENTRIES_OFFSET + (long)i * ENTRY_LENGTH);
    }

    public static long expected(final MemorySegment segment, final long offset, final int i)
    {
        return segment.get(LittleEndian.U64, offset + ENTRIES_OFFSET + (long)i * ENTRY_LENGTH + Long.BYTES);
    }

    public static long swap(final MemorySegment segment, final long offset, final int i)
    {
        return segment.get(LittleEndian.U64, offset + ENTRIES_OFFSET + (long)i * ENTRY_LENGTH + 2 * Long.BYTES);
    }

    @Override
    public boolean equals(final Object o)
    {
        return o instanceof SlotCasMessage m && requestId == m.requestId &&
            Arrays.equals(regionOffsets, m.regionOffsets) && Arrays.equals(expected, m.expected) &&
            Arrays.equals(swaps, m.swaps);
    }

    @Override
    public int hashCode()
    {
        return (Long.hashCode(requestId) * 31 + Arrays.hashCode(regionOffsets)) * 31 + Arrays.hashCode(swaps);
    }

    @Override
    public String toString()
    {
        return "SlotCasMessage{requestId=" + requestId + " words=" + regionOffsets.length + "}";
    }
}
