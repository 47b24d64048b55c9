package io.rdmakv.server.replication;

/** The counters of one pass while it runs (one thread); {@link #report} freezes them. */
final class CopyTally
{
    long slotsCompared;
    long slotsChanged;
    long slotsCleared;
    long blocksCopied;
    long bytesCopied;
    long skippedBlocks;
    long chunksRedone;

    CopyReport report(final long elapsedNanos)
    {
        return new CopyReport(slotsCompared, slotsChanged, slotsCleared, blocksCopied, bytesCopied, skippedBlocks,
            chunksRedone, elapsedNanos);
    }
}
