package io.rdmakv.common.protocol;

import io.rdmakv.common.protocol.wire.MessageHeaderDescriptor;
import io.rdmakv.common.protocol.wire.MessageReader;
import io.rdmakv.common.protocol.wire.MessageType;
import io.rdmakv.common.protocol.wire.MessageWriter;

/**
 * STATS_OK, server to client: the node's statistics.
 *
 * <pre>
 *  16 memory_total        u64   bytes in the data area
 *  24 memory_used         u64   bytes granted to clients
 *  32 memory_free         u64   bytes free to grant
 *  40 index_slots_used    u64
 *  48 index_slots_total   u64
 *  56 clients             u64   open sessions
 *  64 grants              u64   chunks granted and not reclaimed
 *  72 write_windows       i64   memory windows bound now (one per session with a grant), or
 *                               {@value #NO_WINDOWS} when the node writes grants through the data area's rkey
 * </pre>
 */
public record StatsOkMessage(
    long requestId,
    long memoryTotal,
    long memoryUsed,
    long memoryFree,
    long indexSlotsUsed,
    long indexSlotsTotal,
    long clients,
    long grants,
    long writeWindows) implements ControlMessage
{
    /** {@link #writeWindows} of a node without memory windows ({@code --memory-windows=off}, or none on the device). */
    public static final long NO_WINDOWS = -1;

    public static final int MEMORY_TOTAL_OFFSET = MessageHeaderDescriptor.HEADER_LENGTH;
    public static final int MEMORY_USED_OFFSET = MEMORY_TOTAL_OFFSET + Long.BYTES;
    public static final int MEMORY_FREE_OFFSET = MEMORY_USED_OFFSET + Long.BYTES;
    public static final int INDEX_SLOTS_USED_OFFSET = MEMORY_FREE_OFFSET + Long.BYTES;
    public static final int INDEX_SLOTS_TOTAL_OFFSET = INDEX_SLOTS_USED_OFFSET + Long.BYTES;
    public static final int CLIENTS_OFFSET = INDEX_SLOTS_TOTAL_OFFSET + Long.BYTES;
    public static final int GRANTS_OFFSET = CLIENTS_OFFSET + Long.BYTES;
    public static final int WRITE_WINDOWS_OFFSET = GRANTS_OFFSET + Long.BYTES;
    public static final int LENGTH = WRITE_WINDOWS_OFFSET + Long.BYTES;

    /** Whether the node writes grants through memory windows. */
    public boolean memoryWindows()
    {
        return writeWindows != NO_WINDOWS;
    }

    private static long windows(final long value)
    {
        if (value < NO_WINDOWS)
        {
            throw new IllegalArgumentException("write windows " + value + ": a count, or " + NO_WINDOWS);
        }
        return value;
    }

    @Override
    public MessageType type()
    {
        return MessageType.STATS_OK;
    }

    @Override
    public int encodedLength()
    {
        return LENGTH;
    }

    void encodeBody(final MessageWriter writer)
    {
        writer.u64(memoryTotal).u64(memoryUsed).u64(memoryFree).u64(indexSlotsUsed).u64(indexSlotsTotal).u64(clients)
            .u64(grants).u64(writeWindows);
    }

    static StatsOkMessage decode(final MessageReader reader, final long requestId)
    {
        return new StatsOkMessage(
            requestId, reader.u64("memory total"), reader.u64("memory used"), reader.u64("memory free"),
            reader.u64("index slots used"), reader.u64("index slots total"), reader.u64("clients"),
            reader.u64("grants"), windows(reader.u64("write windows")));
    }
}
