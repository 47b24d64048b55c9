package io.rdmakv.server.replication;

import io.rdmakv.common.protocol.wire.MessageType;
import io.rdmakv.common.protocol.GrantReplyMessage;
import io.rdmakv.common.protocol.GrantMessage;
import io.rdmakv.common.protocol.ControlMessage;
import io.rdmakv.common.protocol.wire.RemoteRegion;
import io.rdmakv.peer.RemoteReads;
import io.rdmakv.peer.NodeSession;
import io.rdmakv.peer.Status;
import io.rdmakv.common.LittleEndian;
import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.ClusterNode;
import io.rdmakv.common.cluster.ReplicaGroup;
import io.rdmakv.common.hash.KeyHash;
import io.rdmakv.common.layout.BucketDescriptor;
import io.rdmakv.common.layout.KvBlockDescriptor;
import io.rdmakv.common.layout.RegionGeometry;
import io.rdmakv.common.layout.SlotDamage;
import io.rdmakv.common.layout.SlotWord;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.server.control.Scrubs;
import io.rdmakv.server.space.IndexAtomics;
import io.rdmakv.verbs.Context;
import io.rdmakv.verbs.ProtectionDomain;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * A primary's scrub of its backups: a pass compares every backup's index words, and the blocks equal words name,
 * with this node's, and repairs what differs, so that a backup cannot drift from the primary unseen (an
 * authenticated client may CAS any slot and, without memory windows, WRITE anywhere in a backup's data area; reads
 * go to the primary, so nothing else would notice until a failover served the backup's copy). For every backup of
 * this node's group, last first, over a session of this node's own ({@link PeerSessions}), a chunk of its index at
 * a time ({@link RegionCopier#INDEX_CHUNK_BYTES}):
 * <ul>
 *   <li><b>equal words</b>: the block is READ from the backup and compared byte for byte with this node's; one
 *       that differs is written over with this node's block (an RDMA WRITE), unless this node's copy is the
 *       damaged one (checksum, header: {@link SlotDamage}), which is never spread: it is rewritten from the
 *       backup's copy when that is a whole block of the word's key;</li>
 *   <li><b>different words</b>: a write between its first backup's CAS and this node's leaves exactly that, for
 *       microseconds, or until its writer's HELP or departure sweep resolves it. So a difference is acted on only
 *       when the next pass (an interval later) finds the same two words again, and not when the backup's word
 *       names a block in a grant of a session live here (a writer that may still finish: left to it). Then the
 *       backup is put back to this node's word, as the departure sweep puts back a gone writer's word: this node's
 *       block is written there first (when its word names one), then the slot is CASed from the word found; a CAS
 *       that finds another word is left alone.</li>
 * </ul>
 * A block is compared or written only if this node's slot still names it afterwards and everything since the
 * slot was read took less than half the grace period: a block is freed only after its slot stopped naming it and
 * reused a grace period after that, so the bytes read or written are the block the word names, never space
 * granted again (the copier's argument, {@link RegionCopier}). A chunk slower than that is left for the next pass.
 *
 * <p>A backup that serves another map epoch than this node's (a map change under way) is skipped for this pass.
 * Passes are serialised; {@link #close} stops one at its next step.
 */
public final class BackupScrub implements Scrubs.Scrubber
{
    private static final VarHandle WORD = LittleEndian.WORD.varHandle();
    private static final int SLOTS = BucketDescriptor.SLOTS_PER_GROUP;
    /** The blocks one batch READs from a backup; a block to WRITE is staged after them. */
    private static final int READ_BYTES = RegionCopier.BLOCK_BUFFER_BYTES;

    /** Whether a data-area range lies in a grant of a session live on this node (a writer that may still finish). */
    @FunctionalInterface
    public interface LiveGrants
    {
        boolean held(long offset, long length);
    }

    private final ProtectionDomain pd;
    private final RegionGeometry geometry;
    private final IndexAtomics own;
    private final MemorySegment ownRegion;
    private final PeerSessions peers;
    private final int nodeId;
    private final Supplier<ClusterMap> map;
    private final LiveGrants liveGrants;
    private final long settleNanos;
    private final SlotDamage damage;
    private final NodeGrant nodeGrant;
    /** Per backup node: slots whose words differed in the last pass, with the two words seen. */
    private final Map<Integer, Map<Long, long[]>> suspects = new HashMap<>();
    private final Object lock = new Object();
    private CopyBuffer buffer;
    private volatile boolean closing;

    /**
     * A scrub by node {@code nodeId} of the node's region {@code ownRegion} (whose index words it reads through
     * {@code own}), dialling its backups through {@code context} and {@code pd} with {@code config}'s auth token
     * and TLS; {@code map} is the map the node serves now (null while it is in none).
     */
    public BackupScrub(final Context context, final ProtectionDomain pd, final RegionGeometry geometry,
        final IndexAtomics own, final MemorySegment ownRegion, final ServerConfig config,
        final Supplier<ClusterMap> map, final LiveGrants liveGrants)
    {
        this.pd = pd;
        this.geometry = geometry;
        this.own = own;
        this.ownRegion = ownRegion;
        this.nodeGrant = NodeGrant.create();
        this.peers = new PeerSessions(context, pd, geometry, config, nodeGrant.writerId());
        this.nodeId = config.nodeId();
        this.map = map;
        this.liveGrants = liveGrants;
        this.settleNanos = config.graceNanos() / 2;
        this.damage = new SlotDamage(ownRegion, geometry);
    }

    /** The writer id this scrub's sessions with backups name (the primary's grant to its scrub names it). */
    public long writerId()
    {
        return peers.writerId();
    }

    /**
     * This node's grant of its data area to its own peer traffic: this scrub's, and the partition copier's, which
     * binds its windows on backups under the same writer id and secret ({@link NodeGrant}).
     */
    public NodeGrant nodeGrant()
    {
        return nodeGrant;
    }

    /**
     * The secret of this node's grant of its data area to its scrub: with it, the scrub's session on a backup
     * binds a window over a block to WRITE it there (BIND_WINDOW of {@link GrantMessage#NODE_SESSION_ID}, checked
     * with this node like a client's).
     */
    public long grantSecret()
    {
        return nodeGrant.secret();
    }

    @Override
    public boolean needed()
    {
        return backupsOf(map.get()) != null;
    }

    private ReplicaGroup backupsOf(final ClusterMap current)
    {
        if (current == null || current.isSimple())
        {
            return null;
        }
        final ReplicaGroup group = current.groupOfNode(nodeId);
        return group != null && !group.lost() && group.primary() == nodeId && group.memberCount() > 1 ? group : null;
    }

    /**
     * One pass over every backup (blocking). A backup that cannot be reached or serves another epoch fails the
     * pass after the others were scrubbed ({@link Scrubs.PartialPassException}, naming it).
     */
    @Override
    public Scrubs.Pass pass()
    {
        synchronized (lock)
        {
            final long start = System.nanoTime();
            final ClusterMap current = map.get();
            final ReplicaGroup group = backupsOf(current);
            if (group == null)
            {
                suspects.clear();
                return Scrubs.Pass.NONE;
            }
            if (buffer == null)
            {
                buffer = new CopyBuffer(pd, RegionCopier.INDEX_CHUNK_BYTES, RemoteReads.maxCapacity(),
                    READ_BYTES + KvBlockDescriptor.MAX_BLOCK_LENGTH);
            }
            final Tally tally = new Tally();
            final List<String> failed = new ArrayList<>();
            final List<Integer> backups = new ArrayList<>();
            for (int i = group.memberCount() - 1; i >= 1; i--)
            {
                final ClusterNode backup = current.node(group.member(i));
                backups.add(backup.id());
                try (Peer peer = open(current, backup))
                {
                    scrub(peer, backup.id(), tally);
                    tally.backups++;
                }
                catch (final RuntimeException e)
                {
                    if (closing)
                    {
                        throw e;
                    }
                    failed.add("node " + backup.id() + ": " + e.getMessage());
                }
            }
            suspects.keySet().retainAll(backups);
            final Scrubs.Pass done = new Scrubs.Pass(tally.backups, tally.slots, tally.blocks, tally.wordsRepaired,
                tally.blocksRepaired, tally.healedHere, tally.leftToWriters, tally.damagedHere,
                System.nanoTime() - start);
            if (!failed.isEmpty())
            {
                throw new Scrubs.PartialPassException(done, "cannot scrub " + String.join("; ", failed));
            }
            return done;
        }
    }

    private static final class Tally
    {
        int backups;
        long slots;
        long blocks;
        long wordsRepaired;
        long blocksRepaired;
        long leftToWriters;
        long damagedHere;
        long healedHere;
    }

    /** A session with one backup and its chain. */
    private static final class Peer implements AutoCloseable
    {
        final InetSocketAddress address;
        final NodeSession session;
        final RemoteReads chain;
        final RemoteRegion index;
        final RemoteRegion data;
        /** The rkey the block being mended is written to the backup with: its window over that block. */
        int writeRkey;

        Peer(final InetSocketAddress address, final NodeSession session)
        {
            this.address = address;
            this.session = session;
            this.chain = RemoteReads.on(session, RemoteReads.maxCapacity());
            this.index = session.hello().indexRegion();
            this.data = session.hello().dataRegion();
        }

        @Override
        public void close()
        {
            chain.close();
            session.close();
        }
    }

    private Peer open(final ClusterMap current, final ClusterNode backup)
    {
        final InetSocketAddress address = new InetSocketAddress(backup.host(), backup.port());
        final NodeSession session = peers.open(address);
        try
        {
            peers.checkGeometry(address, session.hello(), "scrub backup");
            final long served = PeerSessions.servedEpoch(session.hello());
            if (served != current.epoch())
            {
                throw new IllegalStateException("it serves map epoch " + served + ", this node " + current.epoch());
            }
            return new Peer(address, session);
        }
        catch (final RuntimeException e)
        {
            session.close();
            throw e;
        }
    }

    /** Scrubs {@code peer}'s whole index and the blocks it names (see the class comment). */
    private void scrub(final Peer peer, final int backupId, final Tally tally)
    {
        final Map<Long, long[]> before = suspects.getOrDefault(backupId, Map.of());
        final Map<Long, long[]> next = new HashMap<>();
        final int maxGroups = buffer.indexBytes() / BucketDescriptor.GROUP_LENGTH;
        final long groups = geometry.groupCount();
        final List<long[]> equal = new ArrayList<>();
        for (long g0 = 0; g0 < groups; g0 += maxGroups)
        {
            final int n = (int)Math.min(maxGroups, groups - g0);
            peer.chain.read(buffer.address(0), n * BucketDescriptor.GROUP_LENGTH, buffer.lkey(),
                peer.index.addressOf(geometry.groupRegionOffset(g0)), peer.index.rkey());
            ring(peer, "its index");
            equal.clear();
            final List<long[]> differing = new ArrayList<>();
            for (int i = 0; i < n; i++)
            {
                for (int s = 0; s < SLOTS; s++)
                {
                    final long theirs = (long)WORD.get(buffer.segment(), (long)i * BucketDescriptor.GROUP_LENGTH +
                        BucketDescriptor.slotOffsetInGroup(s));
                    final long slot = geometry.slotRegionOffset(g0 + i, s);
                    final long mine = own.get(slot);
                    tally.slots++;
                    if (theirs == mine)
                    {
                        if (mine != SlotWord.EMPTY && SlotWord.isWithin(mine, geometry.dataLength()))
                        {
                            equal.add(new long[] {slot, mine});
                        }
                    }
                    else if (!SlotWord.isMoving(theirs) && !SlotWord.isMoving(mine))
                    {
                        // (a slot frozen for a move on one replica and not yet on the other is the freezer's)
                        differing.add(new long[] {slot, theirs, mine});
                    }
                }
            }
            compareBlocks(peer, equal, tally);
            for (final long[] d : differing)
            {
                final long[] seen = before.get(d[0]);
                if (seen != null && seen[0] == d[1] && seen[1] == d[2])
                {
                    putBack(peer, d[0], d[1], d[2], tally, next);
                }
                else
                {
                    next.put(d[0], new long[] {d[1], d[2]});
                }
            }
        }
        suspects.put(backupId, next);
    }

    /** READs the blocks {@code equal} words name from the backup, a buffer at a time, and mends those that differ. */
    private void compareBlocks(final Peer peer, final List<long[]> equal, final Tally tally)
    {
        int from = 0;
        while (from < equal.size())
        {
            final long since = System.nanoTime();
            int to = from;
            long bytes = 0;
            while (to < equal.size() && to - from < peer.chain.capacity() &&
                bytes + SlotWord.blockLength(equal.get(to)[1]) <= READ_BYTES)
            {
                final long word = equal.get(to)[1];
                peer.chain.read(buffer.address(buffer.blocksOffset() + bytes), SlotWord.blockLength(word),
                    buffer.lkey(), peer.data.addressOf(SlotWord.blockOffset(word)), peer.data.rkey());
                bytes += SlotWord.blockLength(word);
                to++;
            }
            ring(peer, "blocks");
            long at = 0;
            for (int k = from; k < to; k++)
            {
                final long slot = equal.get(k)[0];
                final long word = equal.get(k)[1];
                final int length = SlotWord.blockLength(word);
                final long theirs = buffer.blocksOffset() + at;
                at += length;
                if (own.get(slot) != word || System.nanoTime() - since >= settleNanos)
                {
                    continue; // moved on, or too slow to tell: the next pass looks again
                }
                tally.blocks++;
                final long mine = geometry.dataOffset() + SlotWord.blockOffset(word);
                if (MemorySegment.mismatch(buffer.segment(), theirs, theirs + length, ownRegion, mine,
                    mine + length) < 0)
                {
                    continue;
                }
                if (damage.judge(word) != SlotDamage.NONE)
                {
                    // this node's copy is the damaged one: never spread it; heal it from a whole backup copy
                    if (healFrom(buffer.segment(), theirs, slot, word, since))
                    {
                        tally.healedHere++;
                    }
                    else
                    {
                        tally.damagedHere++;
                    }
                }
                else if (writeBlock(peer, slot, word, since))
                {
                    tally.blocksRepaired++;
                }
            }
            from = to;
        }
    }

    /**
     * Rewrites this node's damaged copy of {@code word}'s block from a backup's copy at {@code offset} of {@code
     * copy}, if that copy is a whole block (header, length, checksum) of a key whose fingerprint the word carries,
     * this node's {@code slot} still names it, and less than half the grace period passed {@code since} the batch was
     * read; returns whether it did. Readers of the damaged block failed on it anyway.
     */
    private boolean healFrom(final MemorySegment copy, final long offset, final long slot, final long word,
        final long since)
    {
        if (damage.judgeIn(copy, offset, word) != SlotDamage.NONE || damage.readableKeyLength() < 0 ||
            KeyHash.fingerprint(KeyHash.hash(copy, offset + KvBlockDescriptor.KEY_OFFSET, damage.readableKeyLength()))
                != SlotWord.fingerprint(word))
        {
            return false;
        }
        if (own.get(slot) != word || System.nanoTime() - since >= settleNanos)
        {
            return false;
        }
        MemorySegment.copy(copy, offset, ownRegion, geometry.dataOffset() + SlotWord.blockOffset(word),
            SlotWord.blockLength(word));
        return damage.judge(word) == SlotDamage.NONE;
    }

    /**
     * Puts {@code peer}'s {@code slot} back from {@code theirs} to this node's {@code mine}, both seen in two passes
     * in a row, unless {@code theirs} names a block of a writer still live here.
     */
    private void putBack(final Peer peer, final long slot, final long theirs, final long mine, final Tally tally,
        final Map<Long, long[]> next)
    {
        if (theirs != SlotWord.EMPTY && SlotWord.isWithin(theirs, geometry.dataLength()) &&
            liveGrants.held(SlotWord.blockOffset(theirs), SlotWord.blockLength(theirs)))
        {
            tally.leftToWriters++;
            next.put(slot, new long[] {theirs, mine});
            return;
        }
        final long since = System.nanoTime();
        if (own.get(slot) != mine)
        {
            return; // this node's slot moved on: the difference is a new one
        }
        if (mine != SlotWord.EMPTY && (damage.judge(mine) != SlotDamage.NONE || !writeBlock(peer, slot, mine, since)))
        {
            next.put(slot, new long[] {theirs, mine});
            return;
        }
        peer.chain.compareAndSwap(buffer.address(buffer.slotOffset(0)), buffer.lkey(), peer.index.addressOf(slot),
            peer.index.rkey(), theirs, mine);
        ring(peer, "a compare-and-swap of its slot");
        if ((long)WORD.get(buffer.segment(), (long)buffer.slotOffset(0)) == theirs)
        {
            tally.wordsRepaired++;
        }
    }

    /**
     * WRITEs this node's block of {@code word} over the backup's copy, if this node's {@code slot} still names it
     * and less than half the grace period passed {@code since} it was read; returns whether it did.
     */
    private boolean writeBlock(final Peer peer, final long slot, final long word, final long since)
    {
        final int length = SlotWord.blockLength(word);
        final long mine = geometry.dataOffset() + SlotWord.blockOffset(word);
        final int staged = buffer.blocksOffset() + READ_BYTES; // never over the batch's blocks still to compare
        MemorySegment.copy(ownRegion, mine, buffer.segment(), staged, length);
        if (own.get(slot) != word || System.nanoTime() - since >= settleNanos)
        {
            return false;
        }
        bindWindow(peer, SlotWord.blockOffset(word), length);
        peer.chain.write(buffer.address(staged), length, buffer.lkey(),
            peer.data.addressOf(SlotWord.blockOffset(word)), peer.writeRkey);
        ring(peer, "a WRITE of a block");
        return true;
    }

    /**
     * Binds the window this pass WRITEs a block of the backup through: over exactly that block, granted by this
     * node to its scrub (not over the whole data area: a window is bound over a region registered over its extent,
     * and registering the whole area again would pin it twice). Repairs are rare; a backup without windows answers
     * with its data area's rkey.
     */
    private void bindWindow(final Peer peer, final long offset, final int length)
    {
        peer.session.heartbeatIfDue(System.nanoTime());
        final ControlMessage reply = peer.session.control().call(GrantMessage.bind(
            peer.session.control().nextRequestId(), GrantMessage.NODE_SESSION_ID, offset, length, nodeGrant.secret()));
        final GrantReplyMessage bound = GrantReplyMessage.as(MessageType.WINDOW_BOUND, reply);
        if (bound == null)
        {
            throw new IllegalStateException("backup " + peer.address + " bound no window for the scrub's write: " +
                (reply == null ? "connection lost or timed out" : reply));
        }
        peer.writeRkey = bound.value();
    }

    /** Rings {@code peer}'s chain, keeping its lease (no janitor heartbeats it). */
    private void ring(final Peer peer, final String what)
    {
        if (closing)
        {
            throw new IllegalStateException("the scrub of backup " + peer.address + " was stopped: the node is closing");
        }
        peer.session.heartbeatIfDue(System.nanoTime());
        final int rc = peer.chain.ring();
        if (rc != Status.OK)
        {
            throw new IllegalStateException("scrubbing backup " + peer.address + ": " + what + " failed (status " + rc +
                (rc == Status.TIMEOUT ? ": timed out" : rc == Status.REMOTE_ERROR ? ": refused by the node" :
                    ": connection lost") + ")");
        }
    }

    /** Stops a pass in progress at its next step, waits for it, and frees the buffer. */
    @Override
    public void close()
    {
        closing = true;
        synchronized (lock)
        {
            if (buffer != null)
            {
                buffer.close();
                buffer = null;
            }
        }
    }
}
