package io.rdmakv.common.protocol;

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
    long grants) implements ControlMessage
{
    public static final int MEMORY_TOTAL_OFFSET = MessageHeaderDescriptor.HEADER_LENGTH;
    public static final int MEMORY_USED_OFFSET = MEMORY_TOTAL_OFFSET + Long.BYTES;
    public static final int MEMORY_FREE_OFFSET = MEMORY_USED_OFFSET + Long.BYTES;
    public static final int INDEX_SLOTS_USED_OFFSET = MEMORY_FREE_OFFSET + Long.BYTES;
    public static final int INDEX_SLOTS_TOTAL_OFFSET = INDEX_SLOTS_USED_OFFSET + Long.BYTES;
    public static final int CLIENTS_OFFSET = INDEX_SLOTS_TOTAL_OFFSET + Long.BYTES;
    public static final int GRANTS_OFFSET = CLIENTS_OFFSET + Long.BYTES;
    public static final int LENGTH = GRANTS_OFFSET + Long.BYTES;

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
            .u64(grants);
    }

    static StatsOkMessage decode(final MessageReader reader, final long requestId)
    {
        return new StatsOkMessage(
            requestId, reader.u64("memory total"), reader.u64("memory used"), reader.u64("memory free"),
            reader.u64("index slots used"), reader.u64("index slots total"), reader.u64("clients"),
            reader.u64("grants"));
    }
}
