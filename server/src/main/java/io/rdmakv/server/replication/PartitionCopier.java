package io.rdmakv.server.replication;

import io.rdmakv.common.LittleEndian;
import io.rdmakv.common.hash.KeyHash;
import io.rdmakv.common.layout.BucketDescriptor;
import io.rdmakv.common.layout.RegionGeometry;
import io.rdmakv.common.layout.SlotWord;
import io.rdmakv.common.protocol.wire.RemoteRegion;
import io.rdmakv.peer.NodeSession;
import io.rdmakv.peer.RemoteReads;
import io.rdmakv.peer.SessionFailedException;
import io.rdmakv.peer.SessionRefusedException;
import io.rdmakv.peer.Status;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.server.space.Extent;
import io.rdmakv.verbs.Context;
import io.rdmakv.verbs.ProtectionDomain;
import org.agrona.concurrent.NanoClock;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Copies a batch of partitions from group A's primary into this node's group B, on B's primary (docs/growth.md
 * §7, "Where B's copies live" and "Copying"). Runs on one worker thread: {@link #bulk}, then, once A's freeze has
 * begun, {@link #delta}; or {@link #abort} at any point after {@link #stop}.
 *
 * <ul>
 *   <li><b>Target segments.</b> Before the first pass each {@code X_B} is prepared on every B replica: headers 0,
 *       every slot the bare {@code MOVING} bit ({@link SlotWord#FROZEN_EMPTY}), so that every word of {@code X_B}
 *       carries MOVING until OPEN and no insert can take an empty slot there at SWITCH.</li>
 *   <li><b>Mover grants.</b> Copied blocks, stamped with the key's version on A ({@link MoveBlockCheck#stampOrigin}),
 *       are packed into chunks of this node's data area granted to an
 *       owner of the node's own ({@link MoverGrants}). B's word names B's offset with A's length and fingerprint,
 *       and MOVING.</li>
 *   <li><b>Placement.</b> A target segment of the source's size takes each key at the same slot index; another
 *       size re-places it by its hash (first free slot of group 1, then of group 2); no free slot fails the move.</li>
 *   <li><b>Chain.</b> Each change goes to B's replicas as a writer's would ({@link TargetChain}): the block
 *       WRITten to every backup at its offset, the slot CASed on each backup in chain order from the word installed
 *       before, then stored here. A block or slot given up is given back to the allocator at once (no client ever
 *       read {@code X_B}). A backup takes the block through a window it binds over the block's mover grant under
 *       this node's {@link NodeGrant} (the scrub's writer id and secret), so its memory windows may be on.</li>
 *   <li><b>Shadow.</b> Per source slot, the source word last copied and the target slot ({@link MoveShadow}); a
 *       pass copies what changed, removes what was emptied, inserts what is new.</li>
 *   <li><b>Checks and timing.</b> Per block, {@link MoveBlockCheck}; a failing block is re-read from a fresh
 *       slot READ, {@link #MAX_READS} reads in all, then skipped for the pass. A chunk whose index READ was posted
 *       more than half a grace period before its last change was made is redone in halves, its slots copied
 *       again (as in {@link ChunkCopier}).</li>
 * </ul>
 *
 * Not thread-safe, but for {@link #stop}: one worker drives it.
 */
public final class PartitionCopier implements AutoCloseable
{
    /** How a run of passes ended. */
    public enum Outcome
    {
        /** Bulk passes converged (the target is close to the source). */
        BULK,
        /** A pass saw every source word frozen and copied it all: the target holds the whole batch. */
        FINAL,
        /** No room in a target segment or the data area, or the source or a backup cannot be used. */
        FAILED,
        /** Stopped, then aborted: every target segment is zeroed and the mover grants returned. */
        ABORTED
    }

    /** The end of {@link #bulk}, {@link #delta} or {@link #abort}: the outcome, why when failed, and the counters. */
    public record Result(Outcome outcome, String reason, MoveReport report)
    {
    }

    /** A pass that changes at most this many slots ends the bulk passes. */
    static final int SMALL_PASS = 64;
    /** Bulk passes at most. */
    static final int MAX_BULK_PASSES = 8;
    /** Frozen passes that still skipped a block, at most, before the move fails. */
    static final int MAX_FROZEN_PASSES = 8;
    /** Reads of one slot's block before it is skipped for the pass. */
    static final int MAX_READS = ChunkCopier.MAX_READS;
    /** Redos of one chunk before what it installed is given up for the pass. */
    static final int MAX_REDO_DEPTH = ChunkCopier.MAX_REDO_DEPTH;
    /** How long A's primary may lag the move's epoch before the pass fails. */
    static final long EPOCH_WAIT_NANOS = TimeUnit.SECONDS.toNanos(2);

    private static final VarHandle WORD = LittleEndian.WORD.varHandle();
    private static final int SLOTS = BucketDescriptor.SLOTS_PER_GROUP;

    private final ProtectionDomain pd;
    private final MemorySegment region;
    private final RegionGeometry geometry;
    private final PeerSessions peers;
    private final MoverGrants grants;
    private final GrantChunks chunks = new GrantChunks();
    private final long owner;
    private final PartitionMove move;
    private final MoveShadow shadow;
    private final long halfGraceNanos;
    private final NanoClock clock;
    private final int[] shadowBase;
    private final int maxGroups;
    private final BitSet forced;
    private final int[] installed;
    private final Work pending;
    private final Work retries;
    private final TargetChain chain;
    private final List<Long> changedPerPass = new ArrayList<>();
    private volatile boolean stopping;
    private CopyBuffer buffer;
    private boolean prepared;

    // the mover grant blocks are packed into now
    private long grantNext;
    private long grantEnd;

    // the pass under way
    private NodeSession source;
    private RemoteReads reads;
    private RemoteRegion sourceIndex;
    private RemoteRegion sourceData;
    private RegionGeometry sourceGeometry;
    private MoveBlockCheck check;
    private int k;
    private long baseA;
    private long countA;
    private long baseB;
    private long countB;
    private long chunkBase;
    private int installedCount;
    private long passChanged;
    private long passSkipped;
    private long passUnfrozen;

    // totals
    private long passes;
    /** Written by the copying thread only; volatile so that a STATS reads how far it has come (kvctl cluster). */
    private volatile long keysCopied;
    private volatile long bytesCopied;
    private long keysRemoved;
    private long skippedBlocks;
    private long chunksRedone;
    private long nanos;

    /**
     * A copier of {@code move} into {@code region} (this node's, laid out as {@code geometry}), dialling A's
     * primary and B's backups through {@code context} and {@code pd} with {@code config}'s auth token, TLS and
     * grace period, under {@code nodeGrant}'s writer id (whose secret binds its windows on B's backups), and
     * packing blocks into space from {@code grants}.
     */
    public PartitionCopier(final Context context, final ProtectionDomain pd, final MemorySegment region,
        final RegionGeometry geometry, final ServerConfig config, final NodeGrant nodeGrant, final MoverGrants grants,
        final PartitionMove move)
    {
        for (final long target : move.targetSegments())
        {
            if (KeyHash.segmentBase(target) + KeyHash.segmentCount(target) > geometry.groupCount())
            {
                throw new IllegalArgumentException("target segment (" + KeyHash.segmentBase(target) + ", " +
                    KeyHash.segmentCount(target) + ") outside this node's index of " + geometry.groupCount() + " groups");
            }
        }
        this.pd = pd;
        this.region = region;
        this.geometry = geometry;
        this.peers = new PeerSessions(context, pd, geometry, config, nodeGrant.writerId());
        this.grants = grants;
        this.owner = grants.newOwner();
        this.move = move;
        this.shadow = new MoveShadow(move.sourceSlots());
        this.halfGraceNanos = config.graceNanos() / 2;
        this.clock = move.clock();
        shadowBase = new int[move.partitions().length];
        int at = 0;
        for (int i = 0; i < shadowBase.length; i++)
        {
            shadowBase[i] = at;
            at += (int)(KeyHash.segmentCount(move.sourceSegments()[i]) * SLOTS);
        }
        maxGroups = RegionCopier.INDEX_CHUNK_BYTES / BucketDescriptor.GROUP_LENGTH;
        forced = new BitSet(maxGroups * SLOTS);
        installed = new int[maxGroups * SLOTS];
        pending = new Work(maxGroups * SLOTS);
        retries = new Work(maxGroups * SLOTS);
        // a re-placed key: a removal and an insert
        chain = new TargetChain(region, geometry, peers, grants, chunks, nodeGrant, move.backups(),
            2 * maxGroups * SLOTS, maxGroups);
    }

    /** The owner id of this copy's mover grants in this node's allocator. */
    public long owner()
    {
        return owner;
    }

    /** Keys copied so far, every pass (a key copied again counts again); read from any thread. */
    public long keysCopied()
    {
        return keysCopied;
    }

    /** Bytes of those; read from any thread. */
    public long bytesCopied()
    {
        return bytesCopied;
    }

    /** The counters so far. */
    public MoveReport report()
    {
        final long[] changed = new long[changedPerPass.size()];
        for (int i = 0; i < changed.length; i++)
        {
            changed[i] = changedPerPass.get(i);
        }
        return new MoveReport(passes, keysCopied, bytesCopied, keysRemoved, skippedBlocks, chunksRedone, changed, nanos);
    }

    /**
     * Prepares the target segments (first call only), then passes until one changes at most {@link #SMALL_PASS}
     * slots, or no fewer than the pass before, or {@link #MAX_BULK_PASSES} passes: {@link Outcome#BULK}.
     */
    public Result bulk()
    {
        try
        {
            if (!prepared)
            {
                fillTargets(SlotWord.FROZEN_EMPTY);
                prepared = true;
            }
            long last = Long.MAX_VALUE;
            for (int i = 0; i < MAX_BULK_PASSES; i++)
            {
                pass();
                if (passChanged <= SMALL_PASS || passChanged >= last)
                {
                    break;
                }
                last = passChanged;
            }
            return result(Outcome.BULK, null);
        }
        catch (final NoRoomException | CopyFailedException | IllegalStateException e)
        {
            return result(Outcome.FAILED, e.getMessage());
        }
    }

    /**
     * For after A's freeze has begun: passes until one finds every source word frozen on A's primary and skips no
     * block; that pass is the delta, and {@link Outcome#FINAL} follows it. {@link Outcome#FAILED} when a frozen pass
     * still skips blocks {@link #MAX_FROZEN_PASSES} times, or as {@link #bulk} fails; stops at {@link #stop}.
     */
    public Result delta()
    {
        try
        {
            if (!prepared)
            {
                fillTargets(SlotWord.FROZEN_EMPTY);
                prepared = true;
            }
            int frozenWithSkips = 0;
            while (true)
            {
                pass();
                if (passUnfrozen == 0)
                {
                    if (passSkipped == 0)
                    {
                        return result(Outcome.FINAL, null);
                    }
                    if (++frozenWithSkips >= MAX_FROZEN_PASSES)
                    {
                        return result(Outcome.FAILED, passSkipped + " blocks of the frozen source failed their " +
                            "checks in " + frozenWithSkips + " passes");
                    }
                }
                else
                {
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
                }
            }
        }
        catch (final NoRoomException | CopyFailedException | IllegalStateException e)
        {
            return result(Outcome.FAILED, e.getMessage());
        }
    }

    /**
     * Undoes the copy: zeroes every target segment on every B replica (headers too) and gives back all the mover
     * grants at once. Call on the worker thread, after {@link #stop} ended a pass under way. When a replica cannot
     * be zeroed the result is {@link Outcome#FAILED} and the grants stay held, for another abort.
     */
    public Result abort()
    {
        chain.clear();
        try
        {
            fillTargets(SlotWord.EMPTY);
        }
        catch (final CopyFailedException | IllegalStateException e)
        {
            // the grants stay held: a replica's target may still name blocks in them (a later abort gives them back)
            return result(Outcome.FAILED, "not aborted: the target segments could not be zeroed on every replica, " +
                "the mover grants stay held: " + e.getMessage());
        }
        grants.giveBackAll(owner);
        chunks.clear();
        grantNext = 0;
        grantEnd = 0;
        for (int i = 0; i < shadow.length(); i++)
        {
            shadow.forget(i);
        }
        prepared = false;
        return result(Outcome.ABORTED, null);
    }

    /**
     * Hands the mover grants over to nobody, for when the partitions open on B (OPEN): the blocks the target
     * segments name stay granted, to {@code DataAreaAllocator.NO_OWNER} (a FREE of one is then judged as a departed
     * writer's block, and refused while a slot names it), and the rest of the grants waits out the quarantine and
     * becomes free. Returns the bytes given back. The copier copies nothing after this.
     */
    public long handOver()
    {
        final List<Extent> live = new ArrayList<>();
        for (k = 0; k < move.partitions().length; k++)
        {
            baseB = KeyHash.segmentBase(move.targetSegments()[k]);
            final int slots = (int)(KeyHash.segmentCount(move.sourceSegments()[k]) * SLOTS);
            for (int i = shadowBase[k]; i < shadowBase[k] + slots; i++)
            {
                final int target = shadow.targetSlot(i);
                if (target != MoveShadow.NONE)
                {
                    final long word = targetWord(target);
                    if (SlotWord.namesBlock(word))
                    {
                        live.add(new Extent(SlotWord.blockOffset(word), SlotWord.blockLength(word)));
                    }
                }
            }
        }
        live.sort(java.util.Comparator.comparingLong(Extent::offset));
        stopping = true;
        chunks.clear();
        grantNext = 0;
        grantEnd = 0;
        return grants.handOver(owner, live);
    }

    /** Ends a pass under way at its next chunk (any thread); the worker's call then fails or aborts. */
    public void stop()
    {
        stopping = true;
    }

    private Result result(final Outcome outcome, final String reason)
    {
        return new Result(outcome, reason, report());
    }

    // ---------------------------------------------------------------------------------------------------------------
    // one pass

    private void pass()
    {
        final long start = System.nanoTime();
        passChanged = 0;
        passSkipped = 0;
        passUnfrozen = 0;
        chain.clear(); // what a failed pass left undone
        try
        {
            openSource();
            chain.open(buffer);
            for (k = 0; k < move.partitions().length; k++)
            {
                baseA = KeyHash.segmentBase(move.sourceSegments()[k]);
                countA = KeyHash.segmentCount(move.sourceSegments()[k]);
                baseB = KeyHash.segmentBase(move.targetSegments()[k]);
                countB = KeyHash.segmentCount(move.targetSegments()[k]);
                if (baseA + countA > sourceGeometry.groupCount())
                {
                    throw new CopyFailedException("source segment (" + baseA + ", " + countA + ") outside the index " +
                        "of " + sourceGeometry.groupCount() + " groups of " + move.source());
                }
                copySegment();
            }
        }
        finally
        {
            closeSessions();
            passes++;
            changedPerPass.add(passChanged);
            nanos += System.nanoTime() - start;
        }
    }

    private void copySegment()
    {
        int groupsPerChunk = maxGroups;
        long g = baseA;
        while (g < baseA + countA)
        {
            final int n = (int)Math.min(groupsPerChunk, baseA + countA - g);
            chunkBase = g;
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

    /** Copies source groups {@code [g0, g0 + n)}; returns whether the first attempt was too slow (and so redone). */
    private boolean copyRange(final long g0, final int n, final int depth)
    {
        if (!attempt(g0, n))
        {
            return false;
        }
        chunksRedone++;
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

    /** One attempt at source groups {@code [g0, g0 + n)}; true when it took longer than half the grace period. */
    private boolean attempt(final long g0, final int n)
    {
        if (stopping)
        {
            throw new CopyFailedException("the copy from " + move.source() + " was stopped");
        }
        installedCount = 0;
        pending.clear();
        final long postedAt = clock.nanoTime();
        reads.read(buffer.address(0), n * BucketDescriptor.GROUP_LENGTH, buffer.lkey(),
            sourceIndex.addressOf(sourceGeometry.groupRegionOffset(g0)), sourceIndex.rkey());
        ringSource("the index");
        final MemorySegment local = buffer.segment();
        for (int i = 0; i < n; i++)
        {
            for (int s = 0; s < SLOTS; s++)
            {
                final int rel = (int)((g0 + i - chunkBase) * SLOTS + s);
                final long word = (long)WORD.get(local, (long)i * BucketDescriptor.GROUP_LENGTH +
                    BucketDescriptor.slotOffsetInGroup(s));
                if (!SlotWord.isMoving(word))
                {
                    passUnfrozen++;
                }
                final boolean force = forced.get(rel);
                forced.clear(rel);
                settle(chunkShadow(rel), word, force, 0);
            }
        }
        drain();
        chain.flush();
        return clock.nanoTime() - postedAt > halfGraceNanos;
    }

    /** Decides one source slot (shadow index {@code idx}) on the source's word {@code word}. */
    private void settle(final int idx, final long word, final boolean force, final int readsSoFar)
    {
        final long plain = SlotWord.withoutMoving(word);
        if (plain == shadow.sourceWord(idx) && !force)
        {
            return;
        }
        if (!SlotWord.namesBlock(plain))
        {
            if (shadow.targetSlot(idx) != MoveShadow.NONE)
            {
                remove(idx);
            }
            shadow.forget(idx);
            return;
        }
        pending.add(idx, plain, force, readsSoFar);
    }

    /** Reads, checks and installs every pending block; failures are re-read from their slot, a few times. */
    private void drain()
    {
        final MemorySegment local = buffer.segment();
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
                            sourceData.addressOf(SlotWord.blockOffset(word)), sourceData.rkey());
                        used += length;
                    }
                    i++;
                }
                ringSource("blocks");
                for (int j = first; j < i; j++)
                {
                    final int idx = pending.idx[j];
                    final long word = pending.word[j];
                    final long group = sourceGroup(idx);
                    if (check.isReadable(word) && check.isValid(local, buffer.blocksOffset() + pending.at[j], word,
                        group, move.partitions()[k], move.partitionCount(), baseA, countA))
                    {
                        check.stampOrigin(word, move.sourceSalt(k));
                        install(idx, word, buffer.blocksOffset() + pending.at[j], check.hash(), pending.force[j]);
                    }
                    else if (pending.reads[j] + 1 >= MAX_READS)
                    {
                        skip(idx, pending.force[j]);
                    }
                    else
                    {
                        retries.add(idx, word, pending.force[j], pending.reads[j] + 1);
                    }
                }
                chain.flush(); // the staged blocks are WRITten before the next READs reuse the buffer
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
                    sourceIndex.addressOf(sourceSlotOffset(retries.idx[i])), sourceIndex.rkey());
                i++;
            }
            ringSource("slots");
            for (int j = first; j < i; j++)
            {
                settle(retries.idx[j], (long)WORD.get(buffer.segment(), (long)buffer.slotOffset(j - first)),
                    retries.force[j], retries.reads[j]);
            }
        }
    }

    /**
     * Puts the block checked at {@code from} of the buffer, for source word {@code word} of shadow slot {@code idx},
     * into the target: at a new offset of a mover grant, in the slot the shadow names or a new one.
     */
    private void install(final int idx, final long word, final long from, final long hash, final boolean force)
    {
        final int length = SlotWord.blockLength(word);
        int target = shadow.targetSlot(idx);
        if (target != MoveShadow.NONE && force && word == shadow.sourceWord(idx) &&
            (sameSize() || KeyHash.isCandidateGroup(hash, baseB + target / SLOTS, baseB, countB)))
        {
            // a redo of an unchanged word: the block again, at the offset it has (a reused source block is caught)
            final long installedWord = targetWord(target);
            chain.change(targetSlotOffset(target), installedWord, installedWord, (int)from,
                SlotWord.blockOffset(installedWord), length);
            placed(idx, word, target, length);
            return;
        }
        if (target != MoveShadow.NONE && !sameSize() &&
            !KeyHash.isCandidateGroup(hash, baseB + target / SLOTS, baseB, countB))
        {
            remove(idx); // another key now, whose groups in X_B are others
            target = MoveShadow.NONE;
        }
        if (target == MoveShadow.NONE)
        {
            target = place(idx, hash);
        }
        final long offset = allocate(length);
        final long replaced = targetWord(target);
        final long installedWord = SlotWord.encodeBlock(SlotWord.fingerprint(word), offset, length) | SlotWord.MOVING;
        chain.change(targetSlotOffset(target), replaced, installedWord, (int)from, offset, length);
        if (SlotWord.namesBlock(replaced))
        {
            chain.free(SlotWord.blockOffset(replaced), SlotWord.blockLength(replaced));
        }
        placed(idx, word, target, length);
    }

    private void placed(final int idx, final long word, final int target, final int length)
    {
        shadow.copied(idx, word, target);
        installed[installedCount++] = idx - chunkShadow(0);
        keysCopied++;
        bytesCopied += length;
        passChanged++;
    }

    /** Takes the key of shadow slot {@code idx} out of the target (every replica), its block given back. */
    private void remove(final int idx)
    {
        final int target = shadow.targetSlot(idx);
        final long replaced = targetWord(target);
        chain.change(targetSlotOffset(target), replaced, SlotWord.FROZEN_EMPTY, -1, 0, 0);
        if (SlotWord.namesBlock(replaced))
        {
            chain.free(SlotWord.blockOffset(replaced), SlotWord.blockLength(replaced));
        }
        shadow.forget(idx);
        keysRemoved++;
        passChanged++;
    }

    /** A slot whose block never passed its check: counted; a forced one is taken out (its copy may be reused space). */
    private void skip(final int idx, final boolean force)
    {
        if (force && shadow.targetSlot(idx) != MoveShadow.NONE)
        {
            remove(idx);
        }
        skippedBlocks++;
        passSkipped++;
    }

    /** A group still too slow after every redo: what it installed may be reused space, so it is taken out. */
    private void giveUp(final long g0, final int n)
    {
        final int from = (int)((g0 - chunkBase) * SLOTS);
        for (int rel = forced.nextSetBit(from); rel >= 0 && rel < from + n * SLOTS; rel = forced.nextSetBit(rel + 1))
        {
            final int idx = chunkShadow(rel);
            if (shadow.targetSlot(idx) != MoveShadow.NONE)
            {
                remove(idx);
            }
            shadow.forget(idx);
            forced.clear(rel);
            skippedBlocks++;
            passSkipped++;
        }
        chain.flush();
    }

    /** The target slot of a new key: the source's slot index (same size), else the first free one by hash. */
    private int place(final int idx, final long hash)
    {
        if (sameSize())
        {
            return idx - shadowBase[k];
        }
        final long g1 = KeyHash.group1(hash, baseB, countB);
        final long g2 = KeyHash.group2(hash, baseB, countB);
        final int first = freeSlotIn(g1);
        final int target = first != MoveShadow.NONE ? first : freeSlotIn(g2);
        if (target != MoveShadow.NONE)
        {
            return target;
        }
        throw new NoRoomException("no free slot for a key of partition " + move.partitions()[k] + " in groups " + g1 +
            " and " + g2 + " of its target segment (" + baseB + ", " + countB + ")");
    }

    /** The first target slot of group {@code g} that names no block and that no pending change fills, or NONE. */
    private int freeSlotIn(final long g)
    {
        for (int s = 0; s < SLOTS; s++)
        {
            final int target = (int)((g - baseB) * SLOTS + s);
            if (!SlotWord.namesBlock(targetWord(target)) && !chain.fills(targetSlotOffset(target)))
            {
                return target;
            }
        }
        return MoveShadow.NONE;
    }

    /** A data-area offset of {@code length} bytes in a mover grant (a new grant when the current one is full). */
    private long allocate(final int length)
    {
        if (grantEnd - grantNext < length)
        {
            final Extent grant = grants.take(owner, length, Math.max(length, geometry.chunkSize()));
            if (grant == null)
            {
                throw new NoRoomException("no space left in this node's data area for a mover grant of " + length +
                    " bytes");
            }
            chunks.add(grant.offset(), grant.end());
            grantNext = grant.offset();
            grantEnd = grant.end();
        }
        final long offset = grantNext;
        grantNext += (length + SlotWord.UNIT - 1) / SlotWord.UNIT * SlotWord.UNIT;
        return offset;
    }

    // ---------------------------------------------------------------------------------------------------------------
    // sessions

    private void openSource()
    {
        final long deadline = System.nanoTime() + EPOCH_WAIT_NANOS;
        while (true)
        {
            final NodeSession session = open(move.source(), "the source primary");
            final long served = PeerSessions.servedEpoch(session.hello());
            if (served >= move.epoch())
            {
                source = session;
                break;
            }
            session.close();
            if (System.nanoTime() - deadline > 0)
            {
                throw new CopyFailedException("source primary " + move.source() + " serves map epoch " + served +
                    ", the move is of epoch " + move.epoch());
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
        }
        reads = RemoteReads.on(source, RemoteReads.maxCapacity());
        sourceIndex = source.hello().indexRegion();
        sourceData = source.hello().dataRegion();
        sourceGeometry = source.hello().geometry();
        check = new MoveBlockCheck(sourceGeometry, geometry);
        ensureBuffer();
    }

    private void ensureBuffer()
    {
        if (buffer == null)
        {
            buffer = new CopyBuffer(pd, RegionCopier.INDEX_CHUNK_BYTES, RemoteReads.maxCapacity(),
                RegionCopier.BLOCK_BUFFER_BYTES);
        }
    }

    /** Sets every target segment on every B replica: headers to 0, slots to {@code slotWord}. */
    private void fillTargets(final long slotWord)
    {
        ensureBuffer();
        chain.fill(move.targetSegments(), slotWord, buffer);
    }

    private NodeSession open(final InetSocketAddress address, final String what)
    {
        try
        {
            return peers.open(address);
        }
        catch (final SessionRefusedException | SessionFailedException e)
        {
            throw new CopyFailedException("cannot open a session with " + what + " " + address + ": " + e.getMessage(),
                e);
        }
    }

    private void closeSessions()
    {
        chain.close();
        if (reads != null)
        {
            reads.close();
            reads = null;
        }
        if (source != null)
        {
            source.close();
            source = null;
        }
    }

    private void ringSource(final String what)
    {
        source.heartbeatIfDue(System.nanoTime());
        final int rc = reads.ring();
        if (rc != Status.OK)
        {
            throw new CopyFailedException("reading " + what + " of source primary " + move.source() + " failed " +
                "(status " + rc + ")");
        }
    }

    // ---------------------------------------------------------------------------------------------------------------
    // where things are

    private boolean sameSize()
    {
        return countA == countB;
    }

    /** The shadow index of chunk-relative slot {@code rel}. */
    private int chunkShadow(final int rel)
    {
        return shadowBase[k] + (int)((chunkBase - baseA) * SLOTS) + rel;
    }

    private long sourceGroup(final int idx)
    {
        return baseA + (idx - shadowBase[k]) / SLOTS;
    }

    private long sourceSlotOffset(final int idx)
    {
        return sourceGeometry.slotRegionOffset(sourceGroup(idx), (idx - shadowBase[k]) % SLOTS);
    }

    private long targetSlotOffset(final int target)
    {
        return geometry.slotRegionOffset(baseB + target / SLOTS, target % SLOTS);
    }

    private long targetWord(final int target)
    {
        return (long)WORD.getAcquire(region, targetSlotOffset(target));
    }

    /** Frees the copier's buffer (call when no pass runs). */
    @Override
    public void close()
    {
        stopping = true;
        closeSessions();
        if (buffer != null)
        {
            buffer.close();
            buffer = null;
        }
    }

    /** No free slot in a target segment, or no space for a mover grant: the move fails. */
    private static final class NoRoomException extends RuntimeException
    {
        private static final long serialVersionUID = 1L;

        NoRoomException(final String message)
        {
            super(message);
        }
    }

    /** Slots to copy: shadow index, source word, whether forced, reads so far, staging offset. */
    private static final class Work
    {
        final int[] idx;
        final long[] word;
        final boolean[] force;
        final int[] reads;
        final int[] at;
        int count;

        Work(final int capacity)
        {
            idx = new int[capacity];
            word = new long[capacity];
            force = new boolean[capacity];
            reads = new int[capacity];
            at = new int[capacity];
        }

        void clear()
        {
            count = 0;
        }

        void add(final int slot, final long sourceWord, final boolean forcedCopy, final int readsSoFar)
        {
            idx[count] = slot;
            word[count] = sourceWord;
            force[count] = forcedCopy;
            reads[count] = readsSoFar;
            count++;
        }
    }

}
