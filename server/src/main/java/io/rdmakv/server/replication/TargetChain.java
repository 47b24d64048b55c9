package io.rdmakv.server.replication;

import io.rdmakv.common.LittleEndian;
import io.rdmakv.common.hash.KeyHash;
import io.rdmakv.common.layout.BucketDescriptor;
import io.rdmakv.common.layout.RegionGeometry;
import io.rdmakv.common.layout.SlotWord;
import io.rdmakv.common.protocol.ControlMessage;
import io.rdmakv.common.protocol.GrantMessage;
import io.rdmakv.common.protocol.GrantReplyMessage;
import io.rdmakv.common.protocol.wire.MessageType;
import io.rdmakv.common.protocol.wire.RemoteRegion;
import io.rdmakv.peer.NodeSession;
import io.rdmakv.peer.RemoteReads;
import io.rdmakv.peer.SessionFailedException;
import io.rdmakv.peer.SessionRefusedException;
import io.rdmakv.peer.Status;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * Group B's side of a {@link PartitionCopier}: the target segments on this node (B's primary) and on B's backups,
 * changed as a writer changes a slot (docs/growth.md §7, "B's backups"). Changes are gathered ({@link #change},
 * {@link #free}) and carried out together ({@link #flush}): the new blocks WRITten to every backup at their
 * offsets, each slot CASed on the backups in chain order from the word there before, then stored here, then the
 * blocks they replaced given back to the allocator. {@link #fill} sets whole target segments on every replica
 * (prepare, abort). Sessions with the backups are opened per pass ({@link #open}, {@link #close}).
 *
 * <p><b>Windows on the backups.</b> A backup with memory windows on lets no session WRITE its data area through
 * the area's own rkey. So a block is WRITten through a window the backup binds on this chain's session with it over
 * the whole mover grant the block lies in ({@link GrantChunks}): BIND_WINDOW of {@link
 * GrantMessage#NODE_SESSION_ID} under this node's {@link NodeGrant}, which the backup checks with this node
 * (CHECK_GRANT) as it checks the scrub's; the sessions name the grant's writer id ({@link PeerSessions}). A backup
 * without windows answers the bind with its data area's rkey, so one path serves both. A backup holds one window
 * per session ({@code GrantWindows}: binding another deallocates the one before), so a flush WRITEs, per backup, the
 * blocks inside the window bound now first, then grant by grant, ringing each grant's WRITEs before the next bind.
 * A grant is thus bound once per pass and backup when the pass first writes into it; only a redo of a block copied
 * into an older grant binds that grant again. Each backup pins at most the memory of one grant (two, for the moment
 * a bind replaces a window) for this copy, whatever its size. The windows go with the sessions: a session ends with
 * every pass ({@link #close}; the backup's departure of it deallocates its window), and {@link #fill} (prepare,
 * abort) binds none. So no window of a copy outlives its pass, and none is left by the time the grants are given
 * back (abort) or handed over, which run between passes.
 */
final class TargetChain
{
    private static final VarHandle WORD = LittleEndian.WORD.varHandle();
    private static final int WORDS_PER_GROUP = BucketDescriptor.GROUP_LENGTH / Long.BYTES;

    private final MemorySegment region;
    private final RegionGeometry geometry;
    private final PeerSessions peers;
    private final MoverGrants grants;
    private final GrantChunks chunks;
    private final NodeGrant nodeGrant;
    private final List<InetSocketAddress> addresses;
    private final int maxGroups;
    private final Swings swings;
    private final List<Backup> backups = new ArrayList<>();
    private CopyBuffer buffer;

    /**
     * The chain of {@code region} (this node's, laid out as {@code geometry}) and the backups at {@code addresses}
     * (chain order), reached through {@code peers} (which name {@code nodeGrant}'s writer); blocks go back through
     * {@code grants}, and lie in the grants {@code chunks} lists, which windows on the backups are bound over under
     * {@code nodeGrant}; at most {@code capacity} changes between flushes; index READs of at most {@code maxGroups}
     * groups.
     */
    TargetChain(final MemorySegment region, final RegionGeometry geometry, final PeerSessions peers,
        final MoverGrants grants, final GrantChunks chunks, final NodeGrant nodeGrant,
        final List<InetSocketAddress> addresses, final int capacity, final int maxGroups)
    {
        this.region = region;
        this.geometry = geometry;
        this.peers = peers;
        this.grants = grants;
        this.chunks = chunks;
        this.nodeGrant = nodeGrant;
        this.addresses = List.copyOf(addresses);
        this.maxGroups = maxGroups;
        this.swings = new Swings(capacity);
    }

    /** Opens a session with each backup, checking its layout is this node's; blocks are staged in {@code with}. */
    void open(final CopyBuffer with)
    {
        buffer = with;
        for (final InetSocketAddress address : addresses)
        {
            final NodeSession session;
            try
            {
                session = peers.open(address);
            }
            catch (final SessionRefusedException | SessionFailedException e)
            {
                throw new CopyFailedException("cannot open a session with backup " + address + ": " + e.getMessage(),
                    e);
            }
            backups.add(new Backup(address, session));
            peers.checkGeometry(address, session.hello(), "copy a partition into backup");
        }
    }

    /** Closes the sessions with the backups. */
    void close()
    {
        for (final Backup backup : backups)
        {
            backup.close();
        }
        backups.clear();
    }

    /** The word this node's slot at region offset {@code slot} holds (what every replica holds after a flush). */
    long word(final long slot)
    {
        return (long)WORD.getAcquire(region, slot);
    }

    /**
     * Swings slot {@code slot} from {@code from} to {@code to} at the next flush, after WRITing the block staged at
     * {@code staged} of the buffer ({@code -1}: none) to data offset {@code block} ({@code length} bytes).
     */
    void change(final long slot, final long from, final long to, final int staged, final long block, final int length)
    {
        swings.add(slot, from, to, staged, block, length);
    }

    /** Gives the block at {@code offset} back to the allocator after the next flush. */
    void free(final long offset, final int length)
    {
        swings.free(offset, length);
    }

    /** Whether a change not yet flushed fills {@code slot} with a block. */
    boolean fills(final long slot)
    {
        return swings.fills(slot);
    }

    /** Forgets the changes not yet flushed (what a failed pass left undone). */
    void clear()
    {
        swings.clear();
    }

    /**
     * Carries the target changes made since the last flush to every B replica: blocks WRITten to each backup, then
     * each slot CASed on the backups in chain order, then stored here; then the replaced blocks given back.
     */
    void flush()
    {
        if (swings.count == 0)
        {
            return;
        }
        final MemorySegment local = buffer.segment();
        for (int i = 0; i < swings.count; i++)
        {
            if (swings.staged[i] >= 0)
            {
                MemorySegment.copy(local, swings.staged[i], region, geometry.dataOffset() + swings.block[i],
                    swings.length[i]);
            }
        }
        for (final Backup backup : backups)
        {
            writeBlocks(backup);
        }
        for (final Backup backup : backups)
        {
            casAll(backup, swings.slot, swings.from, swings.to, swings.count);
        }
        for (int i = 0; i < swings.count; i++)
        {
            WORD.setRelease(region, swings.slot[i], swings.to[i]);
        }
        if (swings.freed > 0)
        {
            grants.giveBack(swings.freeOffset, swings.freeLength, swings.freed);
        }
        swings.clear();
    }

    /**
     * WRITEs the staged blocks to {@code backup}: those inside the window bound there now first, then grant by grant,
     * each grant's window bound when its first block comes up and its WRITEs rung before another is bound (binding
     * another deallocates it on the backup: see the class comment).
     */
    private void writeBlocks(final Backup backup)
    {
        int left = 0;
        for (int i = 0; i < swings.count; i++)
        {
            swings.unwritten[i] = swings.staged[i] >= 0;
            left += swings.unwritten[i] ? 1 : 0;
        }
        while (left > 0)
        {
            int posted = 0;
            int first = -1;
            for (int i = 0; i < swings.count; i++)
            {
                if (!swings.unwritten[i])
                {
                    continue;
                }
                if (!backup.windowCovers(swings.block[i], swings.length[i]))
                {
                    first = first < 0 ? i : first;
                    continue;
                }
                if (backup.chain.isFull())
                {
                    backup.ring("WRITEs of blocks");
                }
                backup.chain.write(buffer.address(swings.staged[i]), swings.length[i], buffer.lkey(),
                    backup.data.addressOf(swings.block[i]), backup.windowRkey);
                swings.unwritten[i] = false;
                posted++;
            }
            if (posted > 0)
            {
                backup.ring("WRITEs of blocks");
                left -= posted;
            }
            else
            {
                final int chunk = chunks.find(swings.block[first], swings.length[first]);
                if (chunk < 0)
                {
                    throw new IllegalStateException("block of " + swings.length[first] + " bytes at data offset " +
                        swings.block[first] + " lies in no mover grant of this copy");
                }
                backup.bindWindow(chunks.offset(chunk), chunks.end(chunk), nodeGrant.secret());
            }
        }
    }

    /** CASes {@code slot[i]} from {@code from[i]} to {@code to[i]} on {@code backup}, chains of its capacity. */
    private void casAll(final Backup backup, final long[] slot, final long[] from, final long[] to, final int count)
    {
        int i = 0;
        while (i < count)
        {
            final int first = i;
            while (i < count && !backup.chain.isFull() && i - first < buffer.slotCapacity())
            {
                if (from[i] != to[i])
                {
                    backup.chain.compareAndSwap(buffer.address(buffer.slotOffset(i - first)), buffer.lkey(),
                        backup.index.addressOf(slot[i]), backup.index.rkey(), from[i], to[i]);
                }
                else
                {
                    WORD.set(buffer.segment(), (long)buffer.slotOffset(i - first), from[i]);
                }
                i++;
            }
            backup.ring("compare-and-swaps of slots");
            for (int j = first; j < i; j++)
            {
                final long found = (long)WORD.get(buffer.segment(), (long)buffer.slotOffset(j - first));
                if (found != from[j])
                {
                    throw new CopyFailedException("backup " + backup.address + " holds " + Long.toHexString(found) +
                        " in slot " + slot[j] + " of a target segment, not the word installed there before (" +
                        Long.toHexString(from[j]) + "): nobody else may change it");
                }
            }
        }
    }

    /**
     * Sets every word of every target segment on every B replica: headers to 0, slots to {@code slotWord} (backups
     * by CAS from what a READ found, then this node's by stores).
     */
    void fill(final long[] segments, final long slotWord, final CopyBuffer with)
    {
        try
        {
            open(with);
            for (final Backup backup : backups)
            {
                for (final long segment : segments)
                {
                    fillOn(backup, KeyHash.segmentBase(segment), KeyHash.segmentCount(segment), slotWord);
                }
            }
            for (final long segment : segments)
            {
                final long end = KeyHash.segmentBase(segment) + KeyHash.segmentCount(segment);
                for (long g = KeyHash.segmentBase(segment); g < end; g++)
                {
                    for (int w = 0; w < WORDS_PER_GROUP; w++)
                    {
                        WORD.setRelease(region, geometry.groupRegionOffset(g) + (long)w * Long.BYTES,
                            wordAt(w, slotWord));
                    }
                }
            }
        }
        finally
        {
            close();
        }
    }

    private void fillOn(final Backup backup, final long base, final long count, final long slotWord)
    {
        final long[] slot = new long[backup.chain.capacity()];
        final long[] from = new long[slot.length];
        final long[] to = new long[slot.length];
        for (long g0 = base; g0 < base + count; g0 += maxGroups)
        {
            final int n = (int)Math.min(maxGroups, base + count - g0);
            for (int attempt = 0; ; attempt++)
            {
                backup.chain.read(buffer.address(0), n * BucketDescriptor.GROUP_LENGTH, buffer.lkey(),
                    backup.index.addressOf(geometry.groupRegionOffset(g0)), backup.index.rkey());
                backup.ring("a READ of its index");
                final long[] seen = new long[n * WORDS_PER_GROUP];
                MemorySegment.copy(buffer.segment(), java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED
                    .withOrder(java.nio.ByteOrder.LITTLE_ENDIAN), 0, seen, 0, seen.length);
                int c = 0;
                boolean differed = false;
                for (int i = 0; i < seen.length; i++)
                {
                    final long want = wordAt(i % WORDS_PER_GROUP, slotWord);
                    if (seen[i] != want)
                    {
                        differed = true;
                        slot[c] = geometry.groupRegionOffset(g0) + (long)i * Long.BYTES;
                        from[c] = seen[i];
                        to[c] = want;
                        if (++c == slot.length)
                        {
                            casAll(backup, slot, from, to, c);
                            c = 0;
                        }
                    }
                }
                casAll(backup, slot, from, to, c);
                if (!differed)
                {
                    break;
                }
                if (attempt == 2)
                {
                    throw new CopyFailedException("backup " + backup.address + "'s target segment words keep changing");
                }
            }
        }
    }

    /** Word {@code w} of a prepared target group: 0 for the two bucket headers, {@code slotWord} for slots. */
    private static long wordAt(final int w, final long slotWord)
    {
        final int offset = w * Long.BYTES;
        return offset == BucketDescriptor.MOVED_HEADER_OFFSET || offset == BucketDescriptor.INSERT_LOCK_OFFSET ? 0L :
            slotWord;
    }

    /** A session with one B backup, and its chain. */
    private static final class Backup implements AutoCloseable
    {
        final InetSocketAddress address;
        final NodeSession session;
        final RemoteReads chain;
        final RemoteRegion index;
        final RemoteRegion data;
        /** The extent of the window bound on this session now ({@code windowEnd} 0: none), and its rkey. */
        long windowOffset;
        long windowEnd;
        int windowRkey;

        Backup(final InetSocketAddress address, final NodeSession session)
        {
            this.address = address;
            this.session = session;
            this.chain = RemoteReads.on(session, RemoteReads.maxCapacity());
            this.index = session.hello().indexRegion();
            this.data = session.hello().dataRegion();
        }

        void ring(final String what)
        {
            session.heartbeatIfDue(System.nanoTime());
            final int rc = chain.ring();
            if (rc != Status.OK)
            {
                throw new CopyFailedException("backup " + address + ": " + what + " failed (status " + rc +
                    (rc == Status.REMOTE_ERROR ? ": refused by the node" : "") + ")");
            }
        }

        boolean windowCovers(final long offset, final int length)
        {
            return windowOffset <= offset && offset + length <= windowEnd;
        }

        /**
         * Has the backup bind a window over the mover grant {@code [offset, end)} on this session, under the node
         * grant of {@code secret} (checked with this node), in place of the one bound before; its rkey (the data
         * area's, where the backup has no windows) is what blocks are WRITten with from now on.
         */
        void bindWindow(final long offset, final long end, final long secret)
        {
            session.heartbeatIfDue(System.nanoTime());
            windowEnd = 0;
            final ControlMessage reply = session.control().call(GrantMessage.bind(session.control().nextRequestId(),
                GrantMessage.NODE_SESSION_ID, offset, end - offset, secret));
            final GrantReplyMessage bound = GrantReplyMessage.as(MessageType.WINDOW_BOUND, reply);
            if (bound == null)
            {
                throw new CopyFailedException("backup " + address + " bound no window over the mover grant of " +
                    (end - offset) + " bytes at data offset " + offset + ": " +
                    (reply == null ? "connection lost or timed out" : reply));
            }
            windowOffset = offset;
            windowEnd = end;
            windowRkey = bound.value();
        }

        @Override
        public void close()
        {
            chain.close();
            session.close();
        }
    }

    /**
     * Target changes not yet on the replicas: slot (region offset), the word there now, the new word, the block to
     * WRITE first (buffer offset, or -1 for none; data offset; length); and blocks to give back after.
     */
    private static final class Swings
    {
        final long[] slot;
        final long[] from;
        final long[] to;
        final int[] staged;
        final long[] block;
        final int[] length;
        final long[] freeOffset;
        final int[] freeLength;
        /** Per change, while a flush WRITEs one backup: whether its block is still to be WRITten there. */
        final boolean[] unwritten;
        int count;
        int freed;

        Swings(final int capacity)
        {
            slot = new long[capacity];
            from = new long[capacity];
            to = new long[capacity];
            staged = new int[capacity];
            block = new long[capacity];
            length = new int[capacity];
            freeOffset = new long[capacity];
            freeLength = new int[capacity];
            unwritten = new boolean[capacity];
        }

        void add(final long slotOffset, final long fromWord, final long toWord, final int stagedAt,
            final long blockOffset, final int blockLength)
        {
            slot[count] = slotOffset;
            from[count] = fromWord;
            to[count] = toWord;
            staged[count] = stagedAt;
            block[count] = blockOffset;
            length[count] = blockLength;
            count++;
        }

        void free(final long offset, final int blockLength)
        {
            freeOffset[freed] = offset;
            freeLength[freed] = blockLength;
            freed++;
        }

        /** Whether a change not yet carried out fills {@code slotOffset} with a block. */
        boolean fills(final long slotOffset)
        {
            for (int i = 0; i < count; i++)
            {
                if (slot[i] == slotOffset && SlotWord.namesBlock(to[i]))
                {
                    return true;
                }
            }
            return false;
        }

        void clear()
        {
            count = 0;
            freed = 0;
        }
    }
}
