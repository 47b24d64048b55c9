package io.rdmakv.server.replication;

/**
 * What a {@link PartitionCopier} has done so far, for metrics and tests (cumulative over its passes).
 *
 * @param passes          passes run (bulk and delta)
 * @param keysCopied      blocks written into the target segment (new keys, changed keys, and redone copies)
 * @param bytesCopied     bytes of those blocks
 * @param keysRemoved     keys removed from the target because their source slot was emptied
 * @param skippedBlocks   source blocks that failed their check on every read, or were given up after redos
 * @param chunksRedone    chunks redone under the half-grace rule
 * @param changedPerPass  slots each pass changed in the target, in pass order
 * @param nanos           time spent in passes
 */
public record MoveReport(
    long passes,
    long keysCopied,
    long bytesCopied,
    long keysRemoved,
    long skippedBlocks,
    long chunksRedone,
    long[] changedPerPass,
    long nanos)
{
    /** Slots the last pass changed (-1 before any pass). */
    public long lastPassChanged()
    {
        return changedPerPass.length == 0 ? -1 : changedPerPass[changedPerPass.length - 1];
    }
}
