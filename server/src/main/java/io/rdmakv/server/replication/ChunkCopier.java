package io.rdmakv.server.replication;

import io.rdmakv.common.protocol.wire.RemoteRegion;
import io.rdmakv.peer.RemoteReads;
import io.rdmakv.peer.NodeSession;
import io.rdmakv.peer.Status;
import io.rdmakv.common.LittleEndian;
import io.rdmakv.common.layout.BucketDescriptor;
import io.rdmakv.common.layout.IndexSegments;
import io.rdmakv.common.layout.RegionGeometry;
import io.rdmakv.common.layout.SlotWord;
import org.agrona.concurrent.NanoClock;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.net.InetSocketAddress;
import java.util.BitSet;
import java.util.function.BooleanSupplier;

/**
 * One pass over the index, a chunk at a time (one READ of up to {@link CopyBuffer#indexBytes()} of the primary's
 * index): every slot is compared with this node's; a slot whose primary word is empty is cleared here, one whose
 * word differs gets its block READ (chains of as many READs as the session's send queue takes, into the {@link
 * CopyBuffer}), checked ({@link BlockCheck}), copied to the same data-area offset, then its word stored. A block
 * that fails its check is retried from a fresh READ of its slot (the slot moved on under us, or the block was
 * torn) up to {@link #MAX_READS} reads in all, then skipped: neither it nor its word is copied. This node's
 * insert-lock words (bucket headers) are never copied, and cleared when set.
 *
 * <p><b>Why a slow chunk is redone.</b> The primary reuses freed space only a grace period after the FREE, and
 * a block is freed only after its slot stops naming it. A word the index READ saw was in the slot when the READ
 * executed, after it was posted; so if everything from posting the index READ to the last local write of the
 * chunk took less than half the grace period (half: the margin GETs keep too, for timer slack on either node),
 * every block read for that chunk is the block its word named, not a reused one, and no writer can have
 * been granted that space again in the meantime to WRITE a new block there (writers WRITE every new block to a
 * copying node too, at the same offset). A chunk that took longer is done again: the slots it installed are
 * copied again even if their words are still equal (the word may have come back with a reused block: ABA), in
 * two halves, each half again until a single group is fast enough (a slot read afresh after a failed check is
 * covered too: its READ came later than the chunk's); a group still too slow after
 * {@link #MAX_REDO_DEPTH} tries has the slots it installed cleared and counted as skipped (a later pass
 * copies them). Slow chunks also halve the chunk size for the rest of the pass; fast ones double it back.
 *
 * <p>Local writes are CPU stores: block bytes first, then the slot word with release semantics. Nobody else
 * changes a copying node's index (clients only WRITE blocks into its data area).
 */
final class ChunkCopier
{
    /** Reads of one slot's block before it counts as skipped. */
    static final int MAX_READS = 4;
    /** Redos of one chunk (halving on each) before its installed slots are given up for this pass. */
    static final int MAX_REDO_DEPTH = 16;

    private static final VarHandle WORD = LittleEndian.WORD.varHandle();
    private static final int SLOTS = BucketDescriptor.SLOTS_PER_GROUP;

    private final InetSocketAddress primary;
    private final NodeSession session;
    private final RemoteReads reads;
    private final RemoteRegion index;
    private final RemoteRegion data;
    private final MemorySegment region;
    private final RegionGeometry geometry;
    private final CopyBuffer buffer;
    private final MemorySegment local;
    private final BlockCheck check;
    private final CopyTally tally;
    private final long halfGraceNanos;
    private final BooleanSupplier stop;
    private final NanoClock clock;
    private final int maxGroups;
    private final BitSet forced;
    private final int[] installed;
    private int installedCount;
    private Work pending;
    private Work retries;
    private long base;
    private int groupsPerChunk;

    ChunkCopier(final InetSocketAddress primary, final NodeSession session, final RemoteReads reads,
        final MemorySegment region, final RegionGeometry geometry, final IndexSegments segments, final CopyBuffer buffer, final CopyTally tally,
        final long graceNanos, final BooleanSupplier stop, final NanoClock clock)
    {
        this.primary = primary;
        this.session = session;
        this.reads = reads;
        this.index = session.hello().indexRegion();
        this.data = session.hello().dataRegion();
        this.region = region;
        this.geometry = geometry;
        this.buffer = buffer;
        this.local = buffer.segment();
        this.check = new BlockCheck(geometry, segments);
        this.tally = tally;
        this.halfGraceNanos = graceNanos / 2;
        this.stop = stop;
        this.clock = clock;
        maxGroups = buffer.indexBytes() / BucketDescriptor.GROUP_LENGTH;
        forced = new BitSet(maxGroups * SLOTS);
        installed = new int[maxGroups * SLOTS];
        pending = new Work(maxGroups * SLOTS);
        retries = new Work(maxGroups * SLOTS);
        groupsPerChunk = maxGroups;
    }

    /** Copies the whole index, chunk by chunk. */
    void copyAll()
    {
        final long groups = geometry.groupCount();
        long g = 0;
        while (g < groups)
        {
            final int n = (int)Math.min(groupsPerChunk, groups - g);
            base = g;
            forced.clear();
            if (copyRange(g, n, 0))
            {
                groupsPerChunk = Math.max(1, n / 2);
            }
            else if (n == groupsPerChunk)
            {
                groupsPerChunk = Math.min(maxGroups, groupsPerChunk * 2);
            }
            g += n;
        }
    }

    /** Copies groups {@code [g0, g0 + n)}; returns whether the first attempt was too slow (and so redone). */
    private boolean copyRange(final long g0, final int n, final int depth)
    {
        if (!attempt(g0, n))
        {
            return false;
        }
        tally.chunksRedone++;
        for (int i = 0; i < installedCount; i++)
        {
            forced.set(installed[i]);
        }
        if (depth >= MAX_REDO_DEPTH)
        {
            giveUp(g0, n);
        }
        else if (n == 1)
        {
            copyRange(g0, 1, depth + 1);
        }
        else
        {
            final int half = n / 2;
            copyRange(g0, half, depth + 1);
            copyRange(g0 + half, n - half, depth + 1);
        }
        return true;
    }

    /** One attempt at groups {@code [g0, g0 + n)}; returns true when it took longer than half the grace period. */
    private boolean attempt(final long g0, final int n)
    {
        if (stop.getAsBoolean())
        {
            throw new CopyFailedException("the copy from " + primary + " was stopped: the node is closing");
        }
        installedCount = 0;
        pending.clear();
        final long postedAt = clock.nanoTime();
        reads.read(buffer.address(0), n * BucketDescriptor.GROUP_LENGTH, buffer.lkey(),
            index.addressOf(geometry.groupRegionOffset(g0)), index.rkey());
        ring("the index");
        for (int i = 0; i < n; i++)
        {
            final long g = g0 + i;
            copyHeaders(g, (long)WORD.get(local, (long)i * BucketDescriptor.GROUP_LENGTH +
                BucketDescriptor.MOVED_HEADER_OFFSET));
            for (int s = 0; s < SLOTS; s++)
            {
                tally.slotsCompared++;
                final int rel = (int)((g - base) * SLOTS + s);
                final boolean force = forced.get(rel);
                forced.clear(rel);
                settle(rel, (long)WORD.get(local, (long)i * BucketDescriptor.GROUP_LENGTH +
                    BucketDescriptor.slotOffsetInGroup(s)), force, 0);
            }
        }
        drain();
        return clock.nanoTime() - postedAt > halfGraceNanos;
    }

    /** Decides one slot on the primary's word {@code word}: nothing to do, clear it here, or copy its block. */
    private void settle(final int rel, final long word, final boolean force, final int reads)
    {
        final long slot = slotOffset(rel);
        final long own = (long)WORD.getAcquire(region, slot);
        if (word == own && !force)
        {
            return;
        }
        if (!SlotWord.namesBlock(word))
        {
            // empty, or frozen empty (a partition frozen for a move): no block to copy, the word as it is
            if (own != word)
            {
                WORD.setRelease(region, slot, word);
                tally.slotsChanged++;
                tally.slotsCleared++;
            }
            return;
        }
        pending.add(rel, word, force, reads);
    }

    /** Reads, checks and installs every pending block; failures are re-read from their slot, a few times. */
    private void drain()
    {
        while (pending.count > 0)
        {
            retries.clear();
            int i = 0;
            while (i < pending.count)
            {
                final int first = i;
                int used = 0;
                while (i < pending.count && !reads.isFull())
                {
                    final long word = pending.word[i];
                    if (check.isReadable(word))
                    {
                        final int length = SlotWord.blockLength(word);
                        if (used + length > buffer.blockBytes())
                        {
                            break;
                        }
                        pending.at[i] = used;
                        reads.read(buffer.address(buffer.blocksOffset() + used), length, buffer.lkey(),
                            data.addressOf(SlotWord.blockOffset(word)), data.rkey());
                        used += length;
                    }
                    i++;
                }
                ring("blocks");
                for (int j = first; j < i; j++)
                {
                    final long word = pending.word[j];
                    if (check.isReadable(word) && check.isValid(local, buffer.blocksOffset() + pending.at[j], word,
                        groupOf(pending.rel[j])))
                    {
                        install(pending.rel[j], word, buffer.blocksOffset() + pending.at[j]);
                    }
                    else if (pending.reads[j] + 1 >= MAX_READS)
                    {
                        skip(pending.rel[j], pending.force[j]);
                    }
                    else
                    {
                        retries.add(pending.rel[j], word, pending.force[j], pending.reads[j] + 1);
                    }
                }
            }
            rereadSlots();
        }
    }

    /** READs the slots of the retries afresh and settles each on its new word (into {@link #pending}). */
    private void rereadSlots()
    {
        pending.clear();
        int i = 0;
        while (i < retries.count)
        {
            final int first = i;
            while (i < retries.count && !reads.isFull() && i - first < buffer.slotCapacity())
            {
                reads.read(buffer.address(buffer.slotOffset(i - first)), Long.BYTES, buffer.lkey(),
                    index.addressOf(slotOffset(retries.rel[i])), index.rkey());
                i++;
            }
            ring("slots");
            for (int j = first; j < i; j++)
            {
                settle(retries.rel[j], (long)WORD.get(local, (long)buffer.slotOffset(j - first)), retries.force[j],
                    retries.reads[j]);
            }
        }
    }

    private void install(final int rel, final long word, final long from)
    {
        final int length = SlotWord.blockLength(word);
        MemorySegment.copy(local, from, region, geometry.dataOffset() + SlotWord.blockOffset(word), length);
        final long slot = slotOffset(rel);
        final long own = (long)WORD.getAcquire(region, slot);
        WORD.setRelease(region, slot, word);
        if (own != word)
        {
            tally.slotsChanged++;
        }
        tally.blocksCopied++;
        tally.bytesCopied += length;
        installed[installedCount++] = rel;
    }

    /**
     * Leaves a slot whose block never passed its check: counted, not copied. A forced slot (installed by a chunk
     * that was too slow) is cleared, since the block it was installed with may have been reused space.
     */
    private void skip(final int rel, final boolean force)
    {
        if (force)
        {
            WORD.setRelease(region, slotOffset(rel), SlotWord.EMPTY);
        }
        tally.skippedBlocks++;
    }

    /** A group still too slow after every redo: what it installed may name reused space, so it is cleared. */
    private void giveUp(final long g0, final int n)
    {
        final int from = (int)((g0 - base) * SLOTS);
        for (int rel = forced.nextSetBit(from); rel >= 0 && rel < from + n * SLOTS; rel = forced.nextSetBit(rel + 1))
        {
            WORD.setRelease(region, slotOffset(rel), SlotWord.EMPTY);
            forced.clear(rel);
            tally.skippedBlocks++;
        }
    }

    /**
     * Takes group {@code group}'s first header (the MOVED mark) from the primary's, {@code moved} as read with the
     * group, and clears its insert lock (the locks of the primary's writers mean nothing here).
     */
    private void copyHeaders(final long group, final long moved)
    {
        final long first = geometry.groupRegionOffset(group) + BucketDescriptor.MOVED_HEADER_OFFSET;
        if ((long)WORD.getAcquire(region, first) != moved)
        {
            WORD.setRelease(region, first, moved);
        }
        final long lock = geometry.groupRegionOffset(group) + BucketDescriptor.INSERT_LOCK_OFFSET;
        if ((long)WORD.getAcquire(region, lock) != 0)
        {
            WORD.setRelease(region, lock, 0L);
        }
    }

    /** Rings the chain; keeps the session's lease first (no janitor thread heartbeats this session). */
    private void ring(final String what)
    {
        session.heartbeatIfDue(System.nanoTime());
        final int rc = reads.ring();
        if (rc != Status.OK)
        {
            throw new CopyFailedException("reading " + what + " of primary " + primary + " failed (status " + rc +
                (rc == Status.TIMEOUT ? ": timed out" : rc == Status.REMOTE_ERROR ? ": refused by the node" :
                    ": connection lost") + ")");
        }
    }

    private long groupOf(final int rel)
    {
        return base + rel / SLOTS;
    }

    private long slotOffset(final int rel)
    {
        return geometry.slotRegionOffset(groupOf(rel), rel % SLOTS);
    }

    /** A list of slots to copy: which slot, the primary's word, whether forced, reads so far, staging offset. */
    private static final class Work
    {
        final int[] rel;
        final long[] word;
        final boolean[] force;
        final int[] reads;
        final int[] at;
        int count;

        Work(final int capacity)
        {
            rel = new int[capacity];
            word = new long[capacity];
            force = new boolean[capacity];
            reads = new int[capacity];
            at = new int[capacity];
        }

        void clear()
        {
            count = 0;
        }

        void add(final int slot, final long primaryWord, final boolean forcedCopy, final int readsSoFar)
        {
            rel[count] = slot;
            word[count] = primaryWord;
            force[count] = forcedCopy;
            reads[count] = readsSoFar;
            count++;
        }
    }
}
