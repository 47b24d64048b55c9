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
 *  80 copy_batch          i64   since protocol 10: the move batch this node copies into as its group's primary,
 *                               {@value MoveProgress#NONE_BATCH} when none
 *  88 copy_keys           u64   keys copied into it so far, every pass (a key copied again counts again)
 *  96 copy_bytes          u64   bytes of those
 * 104 source_batch        i64   the move batch whose source group this node is the primary of, or
 *                               {@value MoveProgress#NONE_BATCH}
 * 112 source_keys         i64   keys that batch's partitions hold here at the node's last count of the index,
 *                               {@value MoveProgress#UNKNOWN} when not counted yet
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
    long writeWindows,
    MoveProgress moves) implements ControlMessage
{
    /**
     * How far the partition moves this node takes part in have come (docs/growth.md §13, {@code kvctl cluster}): as
     * the target group's primary it copies one batch at most, as the source group's primary it gives up one at most
     * (a group is the source and the target of one batch at most at a time).
     */
    public record MoveProgress(long copyBatch, long copyKeys, long copyBytes, long sourceBatch, long sourceKeys)
    {
        /** A batch field's value when there is none. */
        public static final long NONE_BATCH = -1;
        /** {@link #sourceKeys} when the node has not counted the batch's segments. */
        public static final long UNKNOWN = -1;
        /** A node that moves nothing. */
        public static final MoveProgress NONE = new MoveProgress(NONE_BATCH, 0, 0, NONE_BATCH, UNKNOWN);

        public MoveProgress
        {
            if (copyBatch < NONE_BATCH || sourceBatch < NONE_BATCH || sourceKeys < UNKNOWN || copyKeys < 0 ||
                copyBytes < 0)
            {
                throw new IllegalArgumentException("move progress: copy batch " + copyBatch + ", " + copyKeys +
                    " keys, " + copyBytes + " bytes, source batch " + sourceBatch + ", " + sourceKeys + " keys: " +
                    "batches and source keys are -1 or more, copied keys and bytes 0 or more");
            }
        }

        /** Whether this node copies a batch. */
        public boolean copying()
        {
            return copyBatch != NONE_BATCH;
        }

        /** Whether this node is the source primary of a batch. */
        public boolean giving()
        {
            return sourceBatch != NONE_BATCH;
        }
    }

    /** The statistics of a node that moves nothing (and every node before protocol 10 said nothing of moves). */
    public StatsOkMessage(final long requestId, final long memoryTotal, final long memoryUsed, final long memoryFree,
        final long indexSlotsUsed, final long indexSlotsTotal, final long clients, final long grants,
        final long writeWindows)
    {
        this(requestId, memoryTotal, memoryUsed, memoryFree, indexSlotsUsed, indexSlotsTotal, clients, grants,
            writeWindows, MoveProgress.NONE);
    }

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
    public static final int COPY_BATCH_OFFSET = WRITE_WINDOWS_OFFSET + Long.BYTES;
    public static final int COPY_KEYS_OFFSET = COPY_BATCH_OFFSET + Long.BYTES;
    public static final int COPY_BYTES_OFFSET = COPY_KEYS_OFFSET + Long.BYTES;
    public static final int SOURCE_BATCH_OFFSET = COPY_BYTES_OFFSET + Long.BYTES;
    public static final int SOURCE_KEYS_OFFSET = SOURCE_BATCH_OFFSET + Long.BYTES;
    public static final int LENGTH = SOURCE_KEYS_OFFSET + Long.BYTES;

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
            .u64(grants).u64(writeWindows).u64(moves.copyBatch()).u64(moves.copyKeys()).u64(moves.copyBytes())
            .u64(moves.sourceBatch()).u64(moves.sourceKeys());
    }

    static StatsOkMessage decode(final MessageReader reader, final long requestId)
    {
        return new StatsOkMessage(
            requestId, reader.u64("memory total"), reader.u64("memory used"), reader.u64("memory free"),
            reader.u64("index slots used"), reader.u64("index slots total"), reader.u64("clients"),
            reader.u64("grants"), windows(reader.u64("write windows")), moves(reader));
    }

    private static MoveProgress moves(final MessageReader reader)
    {
        final long copyBatch = reader.u64("copy batch");
        final long copyKeys = reader.u64("copy keys");
        final long copyBytes = reader.u64("copy bytes");
        final long sourceBatch = reader.u64("source batch");
        final long sourceKeys = reader.u64("source keys");
        return new MoveProgress(copyBatch, copyKeys, copyBytes, sourceBatch, sourceKeys);
    }
}
