package io.rdmakv.common.protocol.wire;

import io.rdmakv.common.LittleEndian;
import io.rdmakv.common.protocol.FreeMessage;

import java.lang.foreign.MemorySegment;

/**
 * Builds a FREE message (layout in {@link FreeMessage}) in place, entry by entry, in a send buffer: the
 * client's way to batch frees without allocating. The header's length and the count are kept current
 * after every {@link #add}, so the buffer holds a complete FREE whenever it is not empty.
 *
 * <pre>
 *   batch.wrap(sendBuffer, 0).reset(requestId);
 *   while (!batch.isFull() &amp;&amp; ...) batch.add(blockOffset, blockLength);
 *   post a SEND of batch.length() bytes
 * </pre>
 */
public final class FreeBatch
{
    private MemorySegment segment;
    private long offset;
    private int capacity;
    private int count;

    /**
     * Wraps a buffer; call {@link #reset} before adding.
     *
     * @throws IllegalArgumentException when the buffer has no room for a FREE of one entry.
     */
    public FreeBatch wrap(final MemorySegment segment, final long offset)
    {
        final long room = segment.byteSize() - offset;
        if (offset < 0 || room < FreeMessage.lengthFor(1))
        {
            throw new IllegalArgumentException(
                "no room for a FREE at " + offset + " in a buffer of " + segment.byteSize() + " bytes");
        }
        this.segment = segment;
        this.offset = offset;
        this.capacity = (int)Math.min(
            FreeMessage.MAX_ENTRIES, (room - FreeMessage.ENTRIES_OFFSET) / FreeMessage.ENTRY_LENGTH);
        this.count = 0;
        return this;
    }

    /** Starts an empty batch with request id {@code requestId}. */
    public FreeBatch reset(final long requestId)
    {
        count = 0;
        MessageHeaderDescriptor.write(segment, offset, MessageType.FREE, FreeMessage.ENTRIES_OFFSET, requestId);
        segment.set(LittleEndian.U32, offset + FreeMessage.COUNT_OFFSET, 0);
        segment.set(LittleEndian.U32, offset + FreeMessage.RESERVED_OFFSET, 0);
        return this;
    }

    /**
     * Adds a freed block.
     *
     * @return false, adding nothing, when the batch is full.
     */
    public boolean add(final long blockOffset, final int blockLength)
    {
        if (count == capacity)
        {
            return false;
        }
        final long entry = offset + FreeMessage.ENTRIES_OFFSET + (long)count * FreeMessage.ENTRY_LENGTH;
        segment.set(LittleEndian.U64, entry + FreeMessage.ENTRY_OFFSET_OFFSET, blockOffset);
        segment.set(LittleEndian.U32, entry + FreeMessage.ENTRY_LENGTH_OFFSET, blockLength);
        count++;
        segment.set(LittleEndian.U32, offset + FreeMessage.COUNT_OFFSET, count);
        segment.set(LittleEndian.U32, offset + MessageHeaderDescriptor.LENGTH_OFFSET, FreeMessage.lengthFor(count));
        return true;
    }

    public int count()
    {
        return count;
    }

    /** How many entries this buffer takes (at most {@link FreeMessage#MAX_ENTRIES}). */
    public int capacity()
    {
        return capacity;
    }

    public boolean isEmpty()
    {
        return count == 0;
    }

    public boolean isFull()
    {
        return count == capacity;
    }

    /** The message's length: the bytes to send. */
    public int length()
    {
        return FreeMessage.lengthFor(count);
    }
}
