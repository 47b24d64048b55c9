package io.rdmakv.server.replication;

import java.util.concurrent.CompletableFuture;

/**
 * A copy of a move batch into this node's group, as the node's move role drives it ({@link PartitionCopy} on a
 * worker thread of its own): bulk passes from the start, the delta once the source's freeze has begun, then either
 * the hand-over (from SWITCH on) or the abort (the batch abandoned before SWITCH). A seam, so that the role is
 * tested without a region.
 */
public interface MoveCopy extends AutoCloseable
{
    /** The bulk passes' result: {@code BULK} or {@code FAILED}. */
    CompletableFuture<PartitionCopier.Result> bulk();

    /** The source's freeze has begun: passes until the delta, after the bulk passes; {@code FINAL} or {@code FAILED}. */
    CompletableFuture<PartitionCopier.Result> freezeBegun();

    /** Stops the pass under way, zeroes the target segments on every replica, gives the grants back. */
    CompletableFuture<PartitionCopier.Result> abort();

    /** After {@code FINAL}, from SWITCH on: the blocks the target segments name are handed over; bytes given back. */
    CompletableFuture<Long> handOver();

    /** Keys copied so far, every pass (a key copied again counts again); read from any thread. */
    default long keysCopied()
    {
        return 0;
    }

    /** Bytes of those; read from any thread. */
    default long bytesCopied()
    {
        return 0;
    }

    /** Stops the copy and frees its buffer (after the hand-over or the abort). */
    @Override
    void close();
}
