package io.rdmakv.client.internal;

import io.rdmakv.common.SpaceTiming;

/**
 * A lane's share of a node's data area: the extent it carves new blocks from, and the batch of blocks
 * it superseded and will FREE. Single-threaded, allocation-free.
 */
final class ClientSpace
{
    private long extentEnd;
    private long cursor;

    private final long[] freeOffset;
    private final int[] freeLength;
    private final long[] freeStamp;
    private int freeCount;
    private int freeHead;
    private long dropped;

    ClientSpace(final int freeBatchCapacity)
    {
        freeOffset = new long[freeBatchCapacity];
        freeLength = new int[freeBatchCapacity];
        freeStamp = new long[freeBatchCapacity];
    }

    /** The data-area offset where a block of {@code length} bytes can go, or -1 when the extent is too small. */
    long peek(final int length)
    {
        return extentEnd - cursor >= length ? cursor : -1;
    }

    /** Takes the {@code length} bytes {@link #peek} offered. */
    void commit(final int length)
    {
        cursor += length;
    }

    /**
     * Starts carving from a newly granted extent; the unused tail of the previous one goes in the
     * free batch (it is referenced by nothing).
     */
    void newExtent(final long offset, final long length, final long nowNanos)
    {
        if (extentEnd > cursor)
        {
            addFree(cursor, (int)Math.min(Integer.MAX_VALUE, extentEnd - cursor), nowNanos);
        }
        extentEnd = offset + length;
        cursor = offset;
    }

    /** Queues a block for FREE. Returns false when the batch is full (flush first). */
    boolean addFree(final long offset, final int length, final long nowNanos)
    {
        if (freeCount == freeOffset.length)
        {
            return false;
        }
        final int i = (freeHead + freeCount) % freeOffset.length;
        freeOffset[i] = offset;
        freeLength[i] = length;
        freeStamp[i] = nowNanos;
        freeCount++;
        return true;
    }

    int freeCount()
    {
        return freeCount;
    }

    /** True when the batch is full or its oldest entry has waited {@link SpaceTiming#FREE_FLUSH_NANOS}. */
    boolean shouldFlush(final long nowNanos)
    {
        return freeCount == freeOffset.length ||
            (freeCount > 0 && nowNanos - freeStamp[freeHead] >= SpaceTiming.FREE_FLUSH_NANOS);
    }

    /** Drops entries too old to send safely (see {@link SpaceTiming}); returns how many were dropped. */
    int dropStale(final long nowNanos)
    {
        int n = 0;
        while (freeCount > 0 && nowNanos - freeStamp[freeHead] >= SpaceTiming.FREE_MAX_AGE_NANOS)
        {
            freeHead = (freeHead + 1) % freeOffset.length;
            freeCount--;
            n++;
        }
        dropped += n;
        return n;
    }

    long freeOffsetAt(final int k)
    {
        return freeOffset[(freeHead + k) % freeOffset.length];
    }

    int freeLengthAt(final int k)
    {
        return freeLength[(freeHead + k) % freeLength.length];
    }

    /** Forgets the first {@code n} entries (they were sent). */
    void consumed(final int n)
    {
        freeHead = (freeHead + n) % freeOffset.length;
        freeCount -= n;
    }

    long droppedFrees()
    {
        return dropped;
    }
}
