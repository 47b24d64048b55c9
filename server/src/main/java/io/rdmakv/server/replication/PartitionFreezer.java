package io.rdmakv.server.replication;

import io.rdmakv.common.LittleEndian;
import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.ReplicaGroup;
import io.rdmakv.common.hash.KeyHash;
import io.rdmakv.common.layout.BucketDescriptor;
import io.rdmakv.common.layout.RegionGeometry;
import io.rdmakv.common.layout.SlotWord;
import io.rdmakv.peer.RemoteReads;
import io.rdmakv.peer.Status;
import io.rdmakv.server.control.FreezeDecisions;
import io.rdmakv.server.space.IndexAtomics;
import io.rdmakv.verbs.ProtectionDomain;

import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;

/**
 * Freezes one index segment (a partition's) on its group's primary, in chain order (docs/growth.md §7, "Freezing A,
 * in chain order"), so that every slot of it carries {@link SlotWord#MOVING} on every replica and the replicas agree
 * word for word. In chunks of at most {@link #CHUNK_GROUPS} groups:
 * <ol>
 *   <li><b>First backup.</b> READ its chunk and CAS every slot from the word read, {@code d}, to {@code d | MOVING}
 *       (an empty slot to the bare bit), as posted chains; a CAS a racing writer beat is tried again from the word
 *       it found. From then on no writer can win the first backup, so the slot's decided word {@code d} is fixed.</li>
 *   <li><b>Decide</b> where {@code d} differs from this node's word: a writer is between its first backup and this
 *       node. The control thread settles it ({@link FreezeDecisions}, HELP's rule): finish ({@code d}) or undo (this
 *       node's word).</li>
 *   <li><b>The other backups, then this node.</b> Undone slots are put back last backup first (the first backup
 *       last), so no backup is ever ahead of the one before it; then every other backup's slots are CASed in chain
 *       order to the settled word with MOVING, and this node's own last, through {@link IndexAtomics} (batched). A CAS that
 *       loses to the decided writer's own late CAS (from the old word to {@code d}) is tried once more from the word
 *       it found: only that one writer can move the slot.</li>
 * </ol>
 * On each backup the CASes go as chains of {@link #CHAIN}, one doorbell each, with up to {@link #IN_FLIGHT} CASes
 * (eight chains; the freezer's sessions are opened with a send queue that deep) in flight: chains are posted while the
 * send queue has room, then the oldest is waited for and its results taken, each CAS's found word in a buffer word of
 * its own, and so on. A pass over one backup ends only when all of its chains have completed, so chain order holds
 * slot by slot: a slot is CASed on backup k+1 only once its CAS on backup k is settled, and on this node last. Every
 * freeze logs (INFO) its groups, slots, backups, the doorbells it rang and how long writes were held up; {@link
 * Frozen} carries the same.
 *
 * <p>This node is frozen last, so "every slot of the segment carries MOVING on the primary" means every replica is
 * frozen and settled. It runs on the sweep thread ({@code ChainSweeps#onSweepThread}): a sweep and a freeze never
 * interleave, and a departed writer's space stays held (unswept) while the freeze settles its slot. Sessions with
 * the backups are opened as the sweep opens them ({@link BackupSweep#open}: this node's own, checked to serve its
 * epoch). Re-running a freeze over a frozen segment changes nothing. Copying nodes are not CASed: they copy the
 * primary's words, MOVING included.
 *
 * <p>One freeze at a time; {@link #close} frees the buffer. A failure (a backup unreachable, a slot that changed
 * twice) throws IllegalStateException and leaves a prefix of the chain frozen, which clearing MOVING on every
 * replica undoes (an abort).
 */
public final class PartitionFreezer implements AutoCloseable
{
    /** Groups per chunk: one 64 KiB READ of a backup's index. */
    public static final int CHUNK_GROUPS = RegionCopier.INDEX_CHUNK_BYTES / BucketDescriptor.GROUP_LENGTH;
    /** Rounds of CASes on the first backup before giving up on slots racing writers keep changing. */
    static final int MAX_FIRST_BACKUP_ROUNDS = 64;
    /** Compare-and-swaps one chain (one doorbell) carries on a backup. */
    public static final int CHAIN = RemoteReads.maxCapacity();
    /**
     * Requests in flight on a backup's session at once, at most: the depth of the send queue the freezer's sessions
     * are opened with, and the buffer's slot words (each request in flight has its own). Chains of {@link #CHAIN}, so
     * {@code IN_FLIGHT / CHAIN} chains are posted before the first is waited for. Measured on the {@code tcp} provider
     * (docs/growth.md §14, step 6): eight chains of 64 in flight froze 2-3 times faster than one; two chains of 32 in
     * a queue of 64 were slower than one of 64 (twice the doorbells, the same CASes in flight).
     */
    public static final int IN_FLIGHT = 8 * CHAIN;

    private static final System.Logger LOG = System.getLogger(PartitionFreezer.class.getName());

    private static final VarHandle WORD = LittleEndian.WORD.varHandle();
    private static final int SLOTS = BucketDescriptor.SLOTS_PER_GROUP;

    /** Test hook: runs on the freezing thread before each chunk's decisions, when there are any. */
    private static volatile Runnable beforeDecisions;

    private final ProtectionDomain pd;
    private final RegionGeometry geometry;
    private final IndexAtomics own;
    private final BackupSweep sweep;
    private final FreezeDecisions decisions;
    /** Per slot of the chunk (group in chunk × 14 + slot): the decided word, without MOVING. */
    private final long[] decided = new long[CHUNK_GROUPS * SLOTS];
    /** Per slot of the chunk: the word every replica settles on, without MOVING. */
    private final long[] settled = new long[CHUNK_GROUPS * SLOTS];
    /** Per slot of the chunk: the word last seen on the node being CASed. */
    private final long[] seen = new long[CHUNK_GROUPS * SLOTS];
    /** Slots of the chunk still to CAS on one node. */
    private final int[] todo = new int[CHUNK_GROUPS * SLOTS];
    private final long[] askSlots = new long[CHUNK_GROUPS * SLOTS];
    private final long[] askGroups = new long[CHUNK_GROUPS * SLOTS];
    private final long[] askDecided = new long[CHUNK_GROUPS * SLOTS];
    private final long[] askSettled = new long[CHUNK_GROUPS * SLOTS];
    private final int[] askIndex = new int[CHUNK_GROUPS * SLOTS];
    /** This node's slots to CAS: region offsets, expected words, targets, words found. */
    private final long[] ownSlots = new long[CHUNK_GROUPS * SLOTS];
    private final long[] ownExpected = new long[CHUNK_GROUPS * SLOTS];
    private final long[] ownSwaps = new long[CHUNK_GROUPS * SLOTS];
    private final long[] ownFound = new long[CHUNK_GROUPS * SLOTS];
    /** Tickets of the chains in flight on one backup (a ring, oldest first), and where each one's slots end. */
    private final long[] tickets = new long[IN_FLIGHT / CHAIN];
    private final int[] chainEnds = new int[IN_FLIGHT / CHAIN];
    private final Object lock = new Object();
    /** Doorbells rung on the backups by the freeze under way (READs and chains of CASes). */
    private long rings;
    private CopyBuffer buffer;
    private boolean closed;

    /**
     * What a freeze did: groups and slots frozen (on every replica), backups CASed, writes caught mid-chain and
     * finished or undone, CASes tried again after a racing writer beat them, doorbells rung on the backups (each a
     * READ of a chunk or a chain of up to {@link #CHAIN} CASes; up to {@code IN_FLIGHT / CHAIN} chains in flight at
     * once), how long the segment's writes were held up ({@code pauseNanos}: from the first chunk's READ to the
     * end; the most a write of the segment waited for the freeze) and how long it all took, opening the sessions with
     * the backups included ({@code nanos}).
     */
    public record Frozen(long groups, long slots, int backups, long finished, long undone, long casRetries,
        long rings, long pauseNanos, long nanos)
    {
    }

    /** What one freeze has done so far. */
    private static final class Tally
    {
        long finished;
        long undone;
        long casRetries;
    }

    /**
     * A freezer on the node whose sweep is {@code sweep} (its map, node id and sessions with the backups), whose own
     * words it CASes through {@code own}, deciding with {@code decisions}.
     */
    public PartitionFreezer(final ProtectionDomain pd, final RegionGeometry geometry, final IndexAtomics own,
        final BackupSweep sweep, final FreezeDecisions decisions)
    {
        this.pd = pd;
        this.geometry = geometry;
        this.own = own;
        this.sweep = sweep;
        this.decisions = decisions;
    }

    /** Runs {@code hook} before each chunk's decisions, on the freezing thread (tests); null: none. */
    public static void beforeEachDecision(final Runnable hook)
    {
        beforeDecisions = hook;
    }

    /**
     * Freezes {@code segment} ({@link KeyHash#segment}: base and count in groups) on this node, a group's primary, and
     * on its backups. Blocking; on the sweep thread.
     *
     * @throws IllegalStateException when this node is not a primary, a backup cannot be reached or serves another
     *                               epoch, or a slot could not be settled
     */
    public Frozen freeze(final long segment)
    {
        return freeze(segment, () -> false);
    }

    /**
     * As {@link #freeze(long)}, giving up before any chunk once {@code cancelled} says so (an abort of the move is
     * being applied: nothing may be frozen after the replicas clear MOVING). What was frozen before stays frozen; the
     * abort's clear undoes it.
     *
     * @throws FreezeCancelledException when cancelled
     */
    public Frozen freeze(final long segment, final java.util.function.BooleanSupplier cancelled)
    {
        final long base = KeyHash.segmentBase(segment);
        final long count = KeyHash.segmentCount(segment);
        if (count < 1 || base + count > geometry.groupCount())
        {
            throw new IllegalArgumentException("segment (" + base + ", " + count + ") outside this node's index of " +
                geometry.groupCount() + " groups");
        }
        synchronized (lock)
        {
            if (closed)
            {
                throw new IllegalStateException("the partition freezer is closed");
            }
            if (cancelled.getAsBoolean())
            {
                throw new FreezeCancelledException("the freeze of segment (" + base + ", " + count + ") was cancelled " +
                    "before it began");
            }
            final long start = System.nanoTime();
            final ClusterMap current = sweep.map();
            final ReplicaGroup group = current == null || current.isSimple() ? null :
                current.groupOfNode(sweep.nodeId());
            if (group == null || group.lost() || group.primary() != sweep.nodeId())
            {
                throw new IllegalStateException("node " + sweep.nodeId() + " is not the primary of a replica group: " +
                    "it freezes nothing");
            }
            if (buffer == null)
            {
                buffer = new CopyBuffer(pd, RegionCopier.INDEX_CHUNK_BYTES, IN_FLIGHT, 0);
            }
            final List<BackupSweep.Peer> peers = new ArrayList<>();
            try
            {
                for (int i = 1; i < group.memberCount(); i++)
                {
                    peers.add(sweep.open(current, current.node(group.member(i)), IN_FLIGHT));
                }
                final Tally tally = new Tally();
                rings = 0;
                final long pauseStart = System.nanoTime();
                for (long g0 = base; g0 < base + count; g0 += CHUNK_GROUPS)
                {
                    if (cancelled.getAsBoolean())
                    {
                        throw new FreezeCancelledException("the freeze of segment (" + base + ", " + count +
                            ") was cancelled after " + (g0 - base) + " groups");
                    }
                    freezeChunk(peers, g0, (int)Math.min(CHUNK_GROUPS, base + count - g0), tally);
                }
                final Frozen frozen = new Frozen(count, count * SLOTS, peers.size(), tally.finished, tally.undone,
                    tally.casRetries, rings, System.nanoTime() - pauseStart, System.nanoTime() - start);
                LOG.log(System.Logger.Level.INFO, () -> "froze segment (" + base + ", " + count + "): " +
                    frozen.groups() + " groups, " + frozen.slots() + " slots on this node and " + frozen.backups() +
                    " backup(s) in " + frozen.pauseNanos() / 1000 + " us (" + frozen.nanos() / 1000 + " us with opening " +
                    "the sessions), " + frozen.rings() + " doorbells; " +
                    frozen.finished() + " finished, " + frozen.undone() + " undone, " + frozen.casRetries() +
                    " retried");
                return frozen;
            }
            finally
            {
                for (final BackupSweep.Peer peer : peers)
                {
                    peer.close();
                }
            }
        }
    }

    /** Freezes groups {@code [g0, g0 + n)}; counts into {@code tally}. */
    private void freezeChunk(final List<BackupSweep.Peer> peers, final long g0, final int n, final Tally tally)
    {
        final int slots = n * SLOTS;
        if (peers.isEmpty())
        {
            for (int i = 0; i < slots; i++)
            {
                settled[i] = SlotWord.withoutMoving(own.get(slotOffset(g0, i)));
            }
            freezeOwn(g0, slots, tally);
            return;
        }
        freezeFirstBackup(peers.getFirst(), peers, g0, n, tally);
        final int undone = decide(g0, slots, tally);
        if (undone > 0)
        {
            // put back last backup first: no backup is ever ahead of the one before it
            for (int b = peers.size() - 1; b >= 1; b--)
            {
                settleBackup(peers.get(b), peers, g0, n, true, tally);
            }
            settleFirstBackup(peers.getFirst(), peers, g0, slots);
        }
        for (int b = 1; b < peers.size(); b++)
        {
            settleBackup(peers.get(b), peers, g0, n, false, tally);
        }
        freezeOwn(g0, slots, tally);
    }

    /** Step 1: every slot of the chunk on the first backup to its word with MOVING; fills {@link #decided}. */
    private void freezeFirstBackup(final BackupSweep.Peer first, final List<BackupSweep.Peer> all, final long g0,
        final int n, final Tally tally)
    {
        final int slots = n * SLOTS;
        read(first, all, g0, n);
        int m = 0;
        for (int i = 0; i < slots; i++)
        {
            seen[i] = (long)WORD.get(buffer.segment(), (long)chunkOffset(i));
            if (!SlotWord.isMoving(seen[i]))
            {
                todo[m++] = i;
            }
        }
        for (int round = 0; m > 0; round++)
        {
            if (round == MAX_FIRST_BACKUP_ROUNDS)
            {
                throw new IllegalStateException("freezing backup " + first.address + ": " + m + " slot(s) of groups " +
                    g0 + ".." + (g0 + n - 1) + " still changing after " + round + " rounds of compare-and-swaps");
            }
            if (round > 0)
            {
                tally.casRetries += m;
            }
            m = casRound(first, all, g0, m, true);
        }
        for (int i = 0; i < slots; i++)
        {
            decided[i] = SlotWord.withoutMoving(seen[i]);
        }
    }

    /**
     * Step 2: where the decided word differs from this node's, the control thread decides (finish or undo); fills
     * {@link #settled}. Returns how many were undone.
     */
    private int decide(final long g0, final int slots, final Tally tally)
    {
        int asks = 0;
        for (int i = 0; i < slots; i++)
        {
            settled[i] = decided[i];
            final long slot = slotOffset(g0, i);
            if (decided[i] != SlotWord.withoutMoving(own.get(slot)))
            {
                askIndex[asks] = i;
                askSlots[asks] = slot;
                askGroups[asks] = g0 + i / SLOTS;
                askDecided[asks] = decided[i];
                asks++;
            }
        }
        if (asks == 0)
        {
            return 0;
        }
        final Runnable hook = beforeDecisions;
        if (hook != null)
        {
            hook.run();
        }
        final int finished = decisions.decide(askSlots, askGroups, askDecided, askSettled, asks);
        for (int k = 0; k < asks; k++)
        {
            settled[askIndex[k]] = askSettled[k];
        }
        tally.finished += finished;
        tally.undone += asks - finished;
        return asks - finished;
    }

    /**
     * Step 3 on a backup after the first: READs its chunk, then CASes to the settled word with MOVING the undone
     * slots ({@code undoneOnly}) or all others, each tried once more from the word it found if it lost.
     */
    private void settleBackup(final BackupSweep.Peer peer, final List<BackupSweep.Peer> all, final long g0,
        final int n, final boolean undoneOnly, final Tally tally)
    {
        final int slots = n * SLOTS;
        read(peer, all, g0, n);
        int m = 0;
        for (int i = 0; i < slots; i++)
        {
            seen[i] = (long)WORD.get(buffer.segment(), (long)chunkOffset(i));
            if (seen[i] != (settled[i] | SlotWord.MOVING) && (settled[i] != decided[i]) == undoneOnly)
            {
                todo[m++] = i;
            }
        }
        m = casRound(peer, all, g0, m, false);
        if (m > 0)
        {
            tally.casRetries += m;
            m = casRound(peer, all, g0, m, false);
            if (m > 0)
            {
                throw new IllegalStateException("freezing backup " + peer.address + ": slot " + slotOffset(g0,
                    todo[0]) + " changed twice (now " + SlotWord.toString(seen[todo[0]]) + ")");
            }
        }
    }

    /** Step 3, undone slots on the first backup (last): from the decided word to the settled one, both frozen. */
    private void settleFirstBackup(final BackupSweep.Peer first, final List<BackupSweep.Peer> all, final long g0,
        final int slots)
    {
        int m = 0;
        for (int i = 0; i < slots; i++)
        {
            if (settled[i] != decided[i])
            {
                seen[i] = decided[i] | SlotWord.MOVING;
                todo[m++] = i;
            }
        }
        m = casRound(first, all, g0, m, false);
        if (m > 0)
        {
            throw new IllegalStateException("freezing backup " + first.address + ": frozen slot " +
                slotOffset(g0, todo[0]) + " changed (now " + SlotWord.toString(seen[todo[0]]) + ")");
        }
    }

    /**
     * Step 3 on this node, last: every slot to its settled word with MOVING, through {@link IndexAtomics}' batched
     * compare-and-swap (chains of loopback CASes on HCA devices); a CAS that lost is tried once more.
     */
    private void freezeOwn(final long g0, final int slots, final Tally tally)
    {
        int m = 0;
        for (int i = 0; i < slots; i++)
        {
            final long slot = slotOffset(g0, i);
            final long word = own.get(slot);
            if (word != (settled[i] | SlotWord.MOVING))
            {
                ownSlots[m] = slot;
                ownExpected[m] = word;
                ownSwaps[m] = settled[i] | SlotWord.MOVING;
                m++;
            }
        }
        for (int attempt = 0; m > 0; attempt++)
        {
            if (attempt == 2)
            {
                throw new IllegalStateException("freezing this node's slot " + ownSlots[0] + ": it changed twice " +
                    "(now " + SlotWord.toString(ownExpected[0]) + ")");
            }
            if (attempt == 1)
            {
                tally.casRetries += m;
            }
            own.compareAndSwap(ownSlots, ownExpected, ownSwaps, ownFound, m);
            int lost = 0;
            for (int k = 0; k < m; k++)
            {
                if (ownFound[k] != ownExpected[k] && ownFound[k] != ownSwaps[k])
                {
                    ownSlots[lost] = ownSlots[k];
                    ownExpected[lost] = ownFound[k];
                    ownSwaps[lost] = ownSwaps[k];
                    lost++;
                }
            }
            m = lost;
        }
    }

    /**
     * CASes, on {@code peer}, the first {@code m} slots of {@link #todo} from {@link #seen} to their target (with
     * {@code toFrozenSeen}: the word seen with MOVING; else the settled word with MOVING), in chains of {@link
     * #CHAIN}, up to {@link #IN_FLIGHT} CASes in flight: chains are posted while the send queue has room, then the
     * oldest is waited for and its results taken, and so on. Entry {@code k} of {@link #todo} finds its word in the
     * buffer's slot word {@code k % IN_FLIGHT}, which no other CAS in flight uses. Returns once every chain has
     * completed. Afterwards {@link #seen} holds what each slot holds as far as known, and the first entries of {@link
     * #todo} the slots whose CAS lost (to try again from what they found); returns their number. A slot found already
     * at its target (frozen by someone, or settled) is done.
     */
    private int casRound(final BackupSweep.Peer peer, final List<BackupSweep.Peer> all, final long g0, final int m,
        final boolean toFrozenSeen)
    {
        int lost = 0;
        int posted = 0;
        int done = 0;
        int newest = 0;
        int oldest = 0;
        while (done < m)
        {
            while (posted < m && posted + Math.min(CHAIN, m - posted) - done <= IN_FLIGHT)
            {
                final int to = Math.min(m, posted + CHAIN);
                for (int k = posted; k < to; k++)
                {
                    final int i = todo[k];
                    peer.chain.compareAndSwap(buffer.address(buffer.slotOffset(k % IN_FLIGHT)), buffer.lkey(),
                        peer.index.addressOf(slotOffset(g0, i)), peer.index.rkey(), seen[i], target(i, toFrozenSeen));
                }
                tickets[newest % tickets.length] = post(peer, all, "compare-and-swaps of its slots");
                chainEnds[newest % tickets.length] = to;
                newest++;
                posted = to;
            }
            await(peer, tickets[oldest % tickets.length], "compare-and-swaps of its slots");
            final int to = chainEnds[oldest % tickets.length];
            oldest++;
            for (int k = done; k < to; k++)
            {
                final int i = todo[k];
                final long found = (long)WORD.get(buffer.segment(), (long)buffer.slotOffset(k % IN_FLIGHT));
                final long target = target(i, toFrozenSeen);
                if (found == seen[i])
                {
                    seen[i] = target;
                }
                else
                {
                    seen[i] = found;
                    if (toFrozenSeen ? !SlotWord.isMoving(found) : found != target)
                    {
                        todo[lost++] = i; // never overtakes k (lost <= k), nor a slot posted and not yet taken
                    }
                }
            }
            done = to;
        }
        return lost;
    }

    private long target(final int i, final boolean toFrozenSeen)
    {
        return (toFrozenSeen ? seen[i] : settled[i]) | SlotWord.MOVING;
    }

    /** READs {@code peer}'s groups {@code [g0, g0 + n)} into the buffer's index chunk. */
    private void read(final BackupSweep.Peer peer, final List<BackupSweep.Peer> all, final long g0, final int n)
    {
        peer.chain.read(buffer.address(0), n * BucketDescriptor.GROUP_LENGTH, buffer.lkey(),
            peer.index.addressOf(geometry.groupRegionOffset(g0)), peer.index.rkey());
        await(peer, post(peer, all, "a READ of its index"), "a READ of its index");
    }

    /**
     * Posts {@code peer}'s chain (one doorbell) without waiting; keeps every open session's lease first (no janitor
     * heartbeats them). Returns the chain's ticket.
     */
    private long post(final BackupSweep.Peer peer, final List<BackupSweep.Peer> all, final String what)
    {
        final long now = System.nanoTime();
        for (final BackupSweep.Peer p : all)
        {
            p.session.heartbeatIfDue(now);
        }
        rings++;
        final long ticket = peer.chain.post();
        if (ticket < 0)
        {
            failed(peer, what, (int)ticket);
        }
        return ticket;
    }

    /** Waits for {@code peer}'s chain {@code ticket} (and those posted before it). */
    private static void await(final BackupSweep.Peer peer, final long ticket, final String what)
    {
        final int rc = peer.chain.await(ticket);
        if (rc != Status.OK)
        {
            failed(peer, what, rc);
        }
    }

    private static void failed(final BackupSweep.Peer peer, final String what, final int rc)
    {
        throw new IllegalStateException("freezing on backup " + peer.address + ": " + what + " failed (status " +
            rc + (rc == Status.TIMEOUT ? ": timed out" : rc == Status.REMOTE_ERROR ? ": refused by the node" :
            ": connection lost") + ")");
    }

    /** Region offset of slot {@code i} of the chunk starting at group {@code g0}. */
    private long slotOffset(final long g0, final int i)
    {
        return geometry.slotRegionOffset(g0 + i / SLOTS, i % SLOTS);
    }

    /** Offset in the buffer's index chunk of slot {@code i} of the chunk. */
    private static int chunkOffset(final int i)
    {
        return (i / SLOTS) * BucketDescriptor.GROUP_LENGTH + BucketDescriptor.slotOffsetInGroup(i % SLOTS);
    }

    /** Frees the buffer; a freeze in progress finishes first. */
    @Override
    public void close()
    {
        synchronized (lock)
        {
            closed = true;
            if (buffer != null)
            {
                buffer.close();
                buffer = null;
            }
        }
    }
}
