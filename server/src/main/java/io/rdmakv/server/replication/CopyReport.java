package io.rdmakv.server.replication;

/**
 * What one {@link RegionCopier#pass} did.
 *
 * @param slotsCompared slots of the primary's index compared with this node's (every slot, plus those of chunks
 *                      that were redone)
 * @param slotsChanged  slots of this node whose word was changed: set to the primary's word (with its block
 *                      copied first) or cleared; 0 when this node already was equal to the primary
 * @param slotsCleared  of those, slots cleared because the primary's is empty
 * @param blocksCopied  blocks copied (each followed by its slot word)
 * @param bytesCopied   bytes of those blocks
 * @param skippedBlocks slots whose block failed validation on every read (damaged on the primary, or changing
 *                      faster than the copier could read it): neither block nor word was copied
 * @param chunksRedone  chunks whose READs and local writes took longer than half the grace period, and were
 *                      done again
 * @param elapsedNanos  how long the pass took, from opening the session to closing it
 */
public record CopyReport(
    long slotsCompared,
    long slotsChanged,
    long slotsCleared,
    long blocksCopied,
    long bytesCopied,
    long skippedBlocks,
    long chunksRedone,
    long elapsedNanos)
{
    /** True when the pass found this node equal to the primary: nothing changed and nothing was skipped. */
    public boolean converged()
    {
        return slotsChanged == 0 && skippedBlocks == 0;
    }

    /** Bytes of blocks copied per second of the pass, in MiB/s (0 for an instant pass). */
    public double mibPerSecond()
    {
        return elapsedNanos == 0 ? 0 : bytesCopied / (1024.0 * 1024.0) / (elapsedNanos / 1e9);
    }
}
