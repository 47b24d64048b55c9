package io.rdmakv.server.replication;

import io.rdmakv.common.protocol.wire.RemoteRegion;
import io.rdmakv.peer.RemoteReads;
import io.rdmakv.peer.NodeSession;
import io.rdmakv.peer.Status;
import io.rdmakv.common.LittleEndian;
import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.ClusterNode;
import io.rdmakv.common.cluster.ReplicaGroup;
import io.rdmakv.common.layout.BucketDescriptor;
import io.rdmakv.common.layout.RegionGeometry;
import io.rdmakv.common.layout.SlotWord;
import io.rdmakv.common.protocol.FenceWritersMessage;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.server.control.ChainSweeps;
import io.rdmakv.server.space.Extent;
import io.rdmakv.server.space.IndexAtomics;
import io.rdmakv.verbs.Context;
import io.rdmakv.verbs.ProtectionDomain;

import java.lang.invoke.VarHandle;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;

/**
 * A primary's sweep of its backups before it reclaims departed sessions' space ({@link ChainSweeps}). A replicated
 * write CASes its key's slot on the backups in chain order, then on the primary; a writer that departed (fenced
 * here) after its first backup's CAS and before the primary's left its word on a prefix of the backups while this
 * node's slot holds the previous, acknowledged word. That word's block lies in the departed session's grant, which
 * is about to be reclaimed and reused: a promoted backup would then name reused space, and the key's acknowledged
 * value would be lost. So, for every backup of this node's group, over a session of this node's own ({@link
 * PeerSessions}):
 * <ol>
 *   <li>first, on every backup, the departed sessions' writers are fenced (FENCE_WRITERS: every session of theirs
 *       open there goes to ERR before the backup answers). A writer whose session here ended may still be alive
 *       on the backups (cut off from this node only, or paused in the middle of a write); once fenced there, it
 *       cannot CAS a backup after the sweep read it. A session it opens there later cannot carry an old write: a
 *       write's block goes to this node before any backup CAS, and the writer's session here is fenced;</li>
 *   <li>its whole index is READ, {@link RegionCopier#INDEX_CHUNK_BYTES} at a time, and every slot whose word
 *       differs from this node's word at the same slot and names a block inside the departed grants is noted;</li>
 *   <li>then, last backup first, each noted slot is CASed from that word to this node's word of the moment. A CAS
 *       that finds another word is left alone (a client that asked this node for HELP, was refused and put the
 *       backups back itself; or a writer that moved on).</li>
 * </ol>
 * Put back, not forward: a client whose HELP is refused for a gone writer puts the backups back too, so the two
 * always agree (a sweep pushing the word forward while a client puts it back could leave the primary ahead of the
 * first backup). And it is safe to put back: no one can CAS this node's slot to a departed session's word (the
 * session is fenced; HELP refuses a block of a session that is not live), and no later writer gets past a first
 * backup holding that word without it being put back, so this node's word is the one the chain held before it.
 * A CAS from a word that had been committed and then superseded cannot succeed: the departed grants stay held
 * until the sweep is done, so that word cannot come back.
 *
 * <p>A backup that serves another map epoch than this node's (a map change under way) fails the sweep, to be
 * retried against the map of that moment: a backup that was promoted meanwhile may have served the word as
 * committed. Sweeps are serialised; {@link #close} stops one at its next step and frees the buffer.
 */
public final class BackupSweep implements ChainSweeps.Sweeper
{
    private static final VarHandle WORD = LittleEndian.WORD.varHandle();
    private static final int SLOTS = BucketDescriptor.SLOTS_PER_GROUP;

    private final ProtectionDomain pd;
    private final RegionGeometry geometry;
    private final IndexAtomics own;
    private final PeerSessions peers;
    private final int nodeId;
    private final Supplier<ClusterMap> map;
    private final Object lock = new Object();
    private CopyBuffer buffer;
    private volatile boolean closing;

    /**
     * A sweep by node {@code nodeId}, whose own index words it reads through {@code own}, dialling its backups
     * through {@code context} and {@code pd} with {@code config}'s auth token and TLS; {@code map} is the map the
     * node serves now (null while it is in none).
     */
    public BackupSweep(final Context context, final ProtectionDomain pd, final RegionGeometry geometry,
        final IndexAtomics own, final ServerConfig config, final Supplier<ClusterMap> map)
    {
        this.pd = pd;
        this.geometry = geometry;
        this.own = own;
        this.peers = new PeerSessions(context, pd, geometry, config);
        this.nodeId = config.nodeId();
        this.map = map;
    }

    @Override
    public boolean needed()
    {
        return backupsOf(map.get()) != null;
    }

    /**
     * This node's group in {@code current} when it is that group's primary and the group has backups (or copying
     * nodes); else null. Also for the partition freezer, which works on the same backups.
     */
    ReplicaGroup backupsOf(final ClusterMap current)
    {
        if (current == null || current.isSimple())
        {
            return null;
        }
        final ReplicaGroup group = current.groupOfNode(nodeId);
        return group != null && !group.lost() && group.primary() == nodeId &&
            (group.memberCount() > 1 || group.copyingCount() > 0) ? group : null;
    }

    @Override
    public ChainSweeps.Swept sweep(final List<Extent> departed, final long[] writers)
    {
        synchronized (lock)
        {
            if (closing)
            {
                throw new IllegalStateException("the backup sweep is closed");
            }
            final long start = System.nanoTime();
            final ClusterMap current = map.get();
            final ReplicaGroup group = backupsOf(current);
            if (group == null)
            {
                return ChainSweeps.Swept.NOT_NEEDED;
            }
            if (buffer == null)
            {
                buffer = new CopyBuffer(pd, RegionCopier.INDEX_CHUNK_BYTES, RemoteReads.maxCapacity(), 0);
            }
            final int backups = group.memberCount() - 1;
            final List<Peer> peers = new ArrayList<>(backups);
            try
            {
                for (int i = 1; i <= backups; i++)
                {
                    peers.add(open(current, current.node(group.member(i))));
                }
                for (final Peer peer : peers)
                {
                    fence(peer, writers);
                }
                fenceCopying(current, group, writers);
                long indexBytes = 0;
                for (final Peer peer : peers)
                {
                    find(peer, departed, peers);
                    indexBytes += geometry.groupCount() * BucketDescriptor.GROUP_LENGTH;
                }
                long rolledBack = 0;
                long left = 0;
                for (int i = peers.size() - 1; i >= 0; i--)
                {
                    final long done = putBack(peers.get(i), peers);
                    rolledBack += done;
                    left += peers.get(i).found.size() - done;
                }
                return new ChainSweeps.Swept(backups, indexBytes, rolledBack, left, System.nanoTime() - start);
            }
            finally
            {
                for (final Peer peer : peers)
                {
                    peer.close();
                }
            }
        }
    }

    /**
     * Has every copying node of {@code group} fence the departed writers too: they hold no slot of theirs to put
     * back (a copying node copies the primary's), but a writer's window over its grant there must be gone before
     * that space is granted again (docs/design.md, "Windows in a replicated group").
     */
    private void fenceCopying(final ClusterMap current, final ReplicaGroup group, final long[] writers)
    {
        for (int i = 0; i < group.copyingCount(); i++)
        {
            try (Peer peer = open(current, current.node(group.copying(i))))
            {
                fence(peer, writers);
            }
        }
    }

    /** The map this node serves now (null while it is in none). */
    ClusterMap map()
    {
        return map.get();
    }

    /** This node's id. */
    int nodeId()
    {
        return nodeId;
    }

    /**
     * A session with one backup, its chains, and the slots found to put back there; the partition freezer uses
     * the same sessions ({@link #open}).
     */
    static final class Peer implements AutoCloseable
    {
        final InetSocketAddress address;
        final NodeSession session;
        final RemoteReads chain;
        final RemoteRegion index;
        /** Pairs: slot's region offset, the backup's word. */
        final List<long[]> found = new ArrayList<>();

        Peer(final InetSocketAddress address, final NodeSession session)
        {
            this.address = address;
            this.session = session;
            this.chain = RemoteReads.on(session, RemoteReads.maxCapacity());
            this.index = session.hello().indexRegion();
        }

        @Override
        public void close()
        {
            chain.close();
            session.close();
        }
    }

    /**
     * A session of this node's own with {@code backup} ({@link PeerSessions}), whose region is laid out as this node's
     * and which serves {@code current}'s epoch; else IllegalStateException.
     */
    Peer open(final ClusterMap current, final ClusterNode backup)
    {
        return open(current, backup, NodeSession.SEND_QUEUE_DEPTH);
    }

    /**
     * As {@link #open(ClusterMap, ClusterNode)}, the session's send queue holding {@code sendQueueDepth} work
     * requests (the partition freezer keeps several chains in flight).
     */
    Peer open(final ClusterMap current, final ClusterNode backup, final int sendQueueDepth)
    {
        final InetSocketAddress address = new InetSocketAddress(backup.host(), backup.port());
        final NodeSession session;
        try
        {
            session = peers.open(address, sendQueueDepth);
        }
        catch (final RuntimeException e)
        {
            throw new IllegalStateException("cannot open a session with backup " + address + ": " + e.getMessage(), e);
        }
        try
        {
            peers.checkGeometry(address, session.hello(), "sweep backup");
            final long served = PeerSessions.servedEpoch(session.hello());
            if (served != current.epoch())
            {
                throw new IllegalStateException("backup " + address + " serves map epoch " + served + ", this node " +
                    current.epoch());
            }
            return new Peer(address, session);
        }
        catch (final RuntimeException e)
        {
            session.close();
            throw e;
        }
    }

    /**
     * Has {@code peer} fence every session of {@code writers} (FENCE_WRITERS, as many messages as they take), so
     * that none of them can CAS it after its index is read.
     */
    private static void fence(final Peer peer, final long[] writers)
    {
        for (int from = 0; from < writers.length; from += FenceWritersMessage.MAX_WRITERS)
        {
            final long[] some = Arrays.copyOfRange(writers, from,
                Math.min(writers.length, from + FenceWritersMessage.MAX_WRITERS));
            peer.session.heartbeatIfDue(System.nanoTime());
            if (peer.session.fenceWriters(some) < 0)
            {
                throw new IllegalStateException("backup " + peer.address + " did not confirm it fenced the " +
                    "departed sessions' writers (" + (peer.session.isBroken() ? "connection lost or timed out" :
                    "no FENCE_WRITERS_OK") + ")");
            }
        }
    }

    /** READs {@code peer}'s whole index and notes the slots to put back (see the class comment). */
    private void find(final Peer peer, final List<Extent> departed, final List<Peer> all)
    {
        final int maxGroups = buffer.indexBytes() / BucketDescriptor.GROUP_LENGTH;
        final long groups = geometry.groupCount();
        for (long g0 = 0; g0 < groups; g0 += maxGroups)
        {
            final int n = (int)Math.min(maxGroups, groups - g0);
            peer.chain.read(buffer.address(0), n * BucketDescriptor.GROUP_LENGTH, buffer.lkey(),
                peer.index.addressOf(geometry.groupRegionOffset(g0)), peer.index.rkey());
            ring(peer, "its index", all);
            for (int i = 0; i < n; i++)
            {
                for (int s = 0; s < SLOTS; s++)
                {
                    final long word = (long)WORD.get(buffer.segment(), (long)i * BucketDescriptor.GROUP_LENGTH +
                        BucketDescriptor.slotOffsetInGroup(s));
                    if (!SlotWord.namesBlock(word) || SlotWord.isMoving(word))
                    {
                        continue; // empty, or frozen for a move: a frozen slot is settled by the node that froze it
                    }
                    final long slot = geometry.slotRegionOffset(g0 + i, s);
                    if (word != own.get(slot) && inside(departed, SlotWord.blockOffset(word), SlotWord.blockLength(word)))
                    {
                        peer.found.add(new long[] {slot, word});
                    }
                }
            }
        }
    }

    /** CASes {@code peer}'s noted slots back to this node's words, a chain at a time; returns those put back. */
    private long putBack(final Peer peer, final List<Peer> all)
    {
        long done = 0;
        final int capacity = Math.min(peer.chain.capacity(), buffer.slotCapacity());
        for (int from = 0; from < peer.found.size(); from += capacity)
        {
            final int to = Math.min(peer.found.size(), from + capacity);
            final long[] swaps = new long[to - from];
            for (int k = from; k < to; k++)
            {
                final long[] slot = peer.found.get(k);
                swaps[k - from] = own.get(slot[0]);
                peer.chain.compareAndSwap(buffer.address(buffer.slotOffset(k - from)), buffer.lkey(),
                    peer.index.addressOf(slot[0]), peer.index.rkey(), slot[1], swaps[k - from]);
            }
            ring(peer, "compare-and-swaps of its slots", all);
            for (int k = from; k < to; k++)
            {
                if ((long)WORD.get(buffer.segment(), (long)buffer.slotOffset(k - from)) == peer.found.get(k)[1])
                {
                    done++;
                }
            }
        }
        return done;
    }

    /** Rings {@code peer}'s chain; keeps every open session's lease first (no janitor heartbeats them). */
    private void ring(final Peer peer, final String what, final List<Peer> all)
    {
        if (closing)
        {
            throw new IllegalStateException("the sweep of backup " + peer.address + " was stopped: the node is closing");
        }
        final long now = System.nanoTime();
        for (final Peer p : all)
        {
            p.session.heartbeatIfDue(now);
        }
        final int rc = peer.chain.ring();
        if (rc != Status.OK)
        {
            throw new IllegalStateException("sweeping backup " + peer.address + ": " + what + " failed (status " + rc +
                (rc == Status.TIMEOUT ? ": timed out" : rc == Status.REMOTE_ERROR ? ": refused by the node" :
                    ": connection lost") + ")");
        }
    }

    /** Whether {@code [offset, offset + length)} lies inside one of {@code sorted} (disjoint, by offset). */
    static boolean inside(final List<Extent> sorted, final long offset, final long length)
    {
        final int at = Extent.indexHolding(sorted, offset);
        return at >= 0 && length > 0 && offset + length <= sorted.get(at).end();
    }

    /** Stops a sweep in progress at its next step, waits for it, and frees the buffer. */
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
