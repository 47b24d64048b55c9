package io.rdmakv.client.internal.session;

import io.rdmakv.client.internal.chain.ReplicaChain;
import io.rdmakv.client.internal.lane.LaneCounters;
import io.rdmakv.client.internal.op.Lane;
import io.rdmakv.client.internal.op.SlotCache;
import io.rdmakv.peer.SessionRefusedException;
import io.rdmakv.peer.SessionFailedException;
import io.rdmakv.peer.WaitStrategy;
import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.ClusterNode;
import io.rdmakv.common.cluster.ReplicaGroup;
import io.rdmakv.common.protocol.HelloMessage;
import io.rdmakv.verbs.Context;
import io.rdmakv.verbs.ProtectionDomain;

import javax.net.ssl.SSLContext;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Where a key goes and on which session: partitions to nodes from the cluster map, and the per-thread
 * session table (every thread has its own session, and so its own lane, to each node, opened on first
 * use, or taken over from the spare the connect left, and dropped when it breaks). Keeps the counters of
 * dropped sessions so that statistics survive them.
 */
public final class Router implements AutoCloseable
{
    /** Opens a session with a node (or throws {@link SessionRefusedException} / {@link SessionFailedException}). */
    @FunctionalInterface
    public interface SessionOpener
    {
        Session open(InetSocketAddress node);
    }

    private final ClusterMap map;
    private final InetSocketAddress[] nodes;
    /** Each node's index in {@link #nodes} by its id (built once with the router). */
    private final Map<Integer, Integer> indexById;
    private final int[] partitionToNode;
    /** Per partition, what its keys' versions are salted with under this map ({@code ClusterMap#versionSalt}). */
    private final long[] versionSalts;
    /**
     * Per partition, when this client adopted its current placement (group and segment; {@link System#nanoTime}), or
     * {@link #NEVER_MOVED} when it has had that placement since this router's sessions were opened. A cached slot
     * entry stamped before it may name the partition's old group's slot, so it is never trusted blind.
     */
    private final long[] placedNanos;
    /** Per group (index into the map's groups): its backups' node indexes in chain order, then copying. */
    private final int[][] backupNodes;
    private final int[][] copyingNodes;
    private final boolean[] sealed;
    private final SessionOpener opener;
    /** The map's node list: the layout this router's node indexes refer to. */
    private final List<ClusterNode> layout;
    /**
     * Each thread's sessions, shared by every router that took its predecessor's sessions over (one lineage, until
     * the next fencing change): a thread's table is laid out for the last router that thread used, and moved over
     * by node id and address the first time it uses a newer one ({@link #mine()}), so no router keeps another
     * reachable.
     */
    private final ThreadLocal<ThreadSessions> mine;
    /** Each application thread's {@link Session.Owner}: shared by the routers that share their sessions. */
    private final ThreadLocal<Session.Owner> owners;
    /** Every session of this router, all threads; shared with the router it was refreshed from (see below). */
    private final Set<Session> open;
    /** Per node, a session opened but not yet any thread's (see {@link #adopt}). */
    private final AtomicReferenceArray<Session> spares;
    private final LaneCounters retired;
    private final List<Object>[] regions;
    private final SlotCache cache;
    private volatile boolean closed;
    /** Set when a refreshed router took this one's sessions over: closing this one then closes none of them. */
    private volatile boolean handedOver;
    /** Set when the last router to hold these sessions closed them: every router that shared them is closed. */
    private final java.util.concurrent.atomic.AtomicBoolean sessionsClosed;
    /**
     * Sessions being opened now ({@link #openKept}), by every router of the client (shared with the routers made from
     * this one, whether or not they keep its sessions): {@link #awaitOpens}.
     */
    private final java.util.concurrent.atomic.AtomicInteger opening;

    /** A router whose sessions share {@code cache} (every session, the adopted seed's too). */
    public Router(final ClusterMap map, final SessionOpener opener, final SlotCache cache)
    {
        this(map, opener, cache, ConcurrentHashMap.newKeySet(), new LaneCounters(),
            new java.util.concurrent.atomic.AtomicBoolean(), ThreadLocal.withInitial(ThreadSessions::new),
            ThreadLocal.withInitial(Session.Owner::new), new java.util.concurrent.atomic.AtomicInteger());
    }

    /**
     * A router over {@code map}, a map that fences {@code previous}'s sessions: sessions of its own, opened as {@code
     * previous}'s are (and counted with them while being opened, {@link #awaitOpens}), sharing its slot cache.
     * {@code previous} keeps its sessions until it is closed.
     */
    public static Router afterFence(final ClusterMap map, final Router previous)
    {
        return new Router(map, previous.opener, previous.cache, ConcurrentHashMap.newKeySet(), new LaneCounters(),
            new java.util.concurrent.atomic.AtomicBoolean(), ThreadLocal.withInitial(ThreadSessions::new),
            ThreadLocal.withInitial(Session.Owner::new), previous.opening);
    }

    /**
     * A router over {@code map} that keeps {@code previous}'s sessions: for a map that fences nobody (the same
     * fence epoch, {@link ClusterMap#fenceEpoch}), whose nodes keep serving the sessions opened before it.
     * Each thread's sessions move over, by node id and address, the first time the thread uses this router;
     * sessions with nodes the map no longer lists stay open and heartbeated until the next fencing change
     * closes them. {@code previous} is handed over: closing it closes nothing, and this router does not keep it.
     */
    public Router(final ClusterMap map, final Router previous)
    {
        this(map, previous.opener, previous.cache, previous.open, previous.retired, previous.sessionsClosed,
            previous.mine, previous.owners, previous.opening);
        for (int i = 0; i < nodes.length; i++)
        {
            final int from = previous.indexOf(map.nodes().get(i));
            if (from >= 0)
            {
                spares.set(i, previous.spares.getAndSet(from, null));
                synchronized (previous.regions)
                {
                    regions[i] = previous.regions[from];
                }
            }
        }
        final long adopted = System.nanoTime();
        for (int p = 0; p < placedNanos.length; p++)
        {
            placedNanos[p] = samePlacement(previous.map, map, p) ? previous.placedNanos[p] : adopted;
        }
        previous.handedOver = true;
    }

    /** Whether {@code p} lies on the same group (by id) and index segment in both maps. */
    private static boolean samePlacement(final ClusterMap before, final ClusterMap after, final int p)
    {
        final ReplicaGroup was = before.groupFor(p);
        final ReplicaGroup now = after.groupFor(p);
        return was != null && now != null && was.id() == now.id() && before.segmentOf(p) == after.segmentOf(p);
    }

    private Router(final ClusterMap map, final SessionOpener opener, final SlotCache cache, final Set<Session> open,
        final LaneCounters retired, final java.util.concurrent.atomic.AtomicBoolean sessionsClosed,
        final ThreadLocal<ThreadSessions> mine, final ThreadLocal<Session.Owner> owners,
        final java.util.concurrent.atomic.AtomicInteger opening)
    {
        this.opening = opening;
        this.owners = owners;
        this.sessionsClosed = sessionsClosed;
        this.mine = mine;
        this.map = map;
        this.layout = map.nodes();
        this.opener = opener;
        this.cache = cache;
        this.open = open;
        this.retired = retired;
        final List<ClusterNode> list = map.nodes();
        nodes = new InetSocketAddress[list.size()];
        indexById = new HashMap<>();
        for (int i = 0; i < nodes.length; i++)
        {
            nodes[i] = new InetSocketAddress(list.get(i).host(), list.get(i).port());
            indexById.put(list.get(i).id(), i);
        }
        partitionToNode = new int[map.partitionCount()];
        for (int p = 0; p < partitionToNode.length; p++)
        {
            partitionToNode[p] = map.nodeFor(p) == null ? LOST : indexById.get(map.nodeFor(p).id());
        }
        versionSalts = new long[map.partitionCount()];
        for (int p = 0; p < versionSalts.length; p++)
        {
            versionSalts[p] = map.versionSalt(p);
        }
        final List<ReplicaGroup> groups = map.groups();
        backupNodes = new int[groups.size()][];
        copyingNodes = new int[groups.size()][];
        sealed = new boolean[groups.size()];
        for (int g = 0; g < groups.size(); g++)
        {
            final ReplicaGroup group = groups.get(g);
            backupNodes[g] = new int[Math.max(0, group.memberCount() - 1)];
            for (int i = 1; i < group.memberCount(); i++)
            {
                backupNodes[g][i - 1] = indexById.get(group.member(i));
            }
            copyingNodes[g] = new int[group.copyingCount()];
            for (int i = 0; i < group.copyingCount(); i++)
            {
                copyingNodes[g][i] = indexById.get(group.copying(i));
            }
            sealed[g] = group.sealed();
        }
        @SuppressWarnings("unchecked")
        final List<Object>[] identities = new List[nodes.length];
        regions = identities;
        spares = new AtomicReferenceArray<>(nodes.length);
        placedNanos = new long[map.partitionCount()];
        java.util.Arrays.fill(placedNanos, NEVER_MOVED);
    }

    public SlotCache cache()
    {
        return cache;
    }

    /**
     * Opens a session with one node through the given transport objects (the usual {@link SessionOpener}); every
     * session it opens names one writer ({@link HelloMessage#newWriterId}), drawn here: one per client.
     */
    public static SessionOpener opener(final Context context, final ProtectionDomain pd, final byte[] authToken,
        final SSLContext tls, final long connectTimeoutNanos, final long opTimeoutNanos, final WaitStrategy waitStrategy,
        final io.rdmakv.verbs.ConnectionSetup setup)
    {
        final long writerId = HelloMessage.newWriterId();
        return node -> Session.open(context, pd, node, writerId, authToken, tls, connectTimeoutNanos, opTimeoutNanos,
            waitStrategy, setup);
    }

    public ClusterMap map()
    {
        return map;
    }

    public int nodeCount()
    {
        return nodes.length;
    }

    /** {@link #placedNanos} of a partition whose placement has not changed under this router's sessions. */
    public static final long NEVER_MOVED = Long.MIN_VALUE;

    /**
     * When this client adopted {@code partition}'s current placement ({@link System#nanoTime}), or {@link
     * #NEVER_MOVED}: a cached slot entry of one of its keys seen before then is never trusted without a READ.
     */
    public long placedNanos(final int partition)
    {
        return placedNanos[partition];
    }

    /** {@link #nodeOf} of a key whose group has lost every replica. */
    public static final int LOST = -1;

    /** Whether the map replicates (writes go along chains, failures are retried after a map refresh). */
    public boolean replicated()
    {
        return !map.isSimple();
    }

    /**
     * The partition of the key whose {@code KeyHash.hash} is {@code hash} under this router's map: an operation
     * computes it once and passes it to the calls below.
     */
    public int partitionOf(final long hash)
    {
        return map.partitionOf(hash);
    }

    /**
     * {@code partition}'s index segment on its group's nodes, packed ({@code KeyHash.segment}), or {@code
     * KeyHash.WHOLE_INDEX} when the map has no segment table: one array load.
     */
    public long segmentOf(final int partition)
    {
        return map.segmentOf(partition);
    }

    /** What {@code partition}'s keys' versions are salted with under this map (computed once): one array load. */
    public long versionSalt(final int partition)
    {
        return versionSalts[partition];
    }

    /** Whether writes to {@code partition}'s group wait: a copying node is making its last pass. */
    public boolean sealed(final int partition)
    {
        return sealed[map.groupIndexOf(partition)];
    }

    /**
     * Sets {@code lane}'s chain for a write to {@code partition}: this thread's lanes to its group's backups in
     * chain order and to its copying nodes (a copying node that cannot be reached is left out). Opens sessions as
     * needed (may throw as {@link #session} does).
     */
    public void prepareChain(final int partition, final Lane lane)
    {
        final ReplicaChain chain = lane.chain();
        chain.clear();
        final int group = map.groupIndexOf(partition);
        for (final int node : backupNodes[group])
        {
            final Lane backup = session(node).lane();
            chain.backup(backup.requests(), backup.control(), backup.replicaWindow());
        }
        for (final int node : copyingNodes[group])
        {
            try
            {
                final Lane copying = session(node).lane();
                chain.copying(copying.requests(), copying.replicaWindow());
            }
            catch (final SessionFailedException | SessionRefusedException e)
            {
                // a copying node is not a replica yet: writes go on without it
            }
        }
    }

    /**
     * The id of the node whose CAS decides a write to {@code partition}: its group's first backup, or its primary
     * without one (-1: the group is lost).
     */
    public int decidingNodeId(final int partition)
    {
        final int group = map.groupIndexOf(partition);
        final int node = backupNodes[group].length > 0 ? backupNodes[group][0] : partitionToNode[partition];
        return node == LOST ? -1 : map.nodes().get(node).id();
    }

    /** The node (an index into the map's node list) that owns the key whose {@code KeyHash.hash} is {@code hash}. */
    public int nodeOf(final long hash)
    {
        return partitionToNode[map.partitionOf(hash)];
    }

    /** This thread's session with the node that owns {@code partition} (its group's primary). */
    public Session route(final int partition)
    {
        final int node = partitionToNode[partition];
        if (node == LOST)
        {
            throw new GroupLostException(partition, map.groupFor(partition).id());
        }
        return session(node);
    }

    /**
     * This thread's session with node {@code node} (an index into the map's node list), opened if needed. Throws
     * {@link RouterClosedException} once the router is closed, {@link StaleMapException} when the node serves a newer
     * map, {@code SessionRefusedException} / {@code SessionFailedException} when no session can be had.
     */
    public Session session(final int node)
    {
        final Session[] sessions = mine();
        final Session current = sessions[node];
        if (current != null && !current.isBroken())
        {
            return current;
        }
        if (current != null)
        {
            sessions[node] = null;
            retire(current);
        }
        if (closed || sessionsClosed.get())
        {
            throw new RouterClosedException(map.epoch());
        }
        final Session spare = spares.getAndSet(node, null);
        if (spare != null)
        {
            if (!spare.isBroken())
            {
                spare.ownedBy(owners.get());
                sessions[node] = spare;
                return spare;
            }
            retire(spare);
        }
        final Session session = openKept(node);
        final ClusterMap seen = session.hello().clusterMap();
        if (seen != null && seen.epoch() > map.epoch())
        {
            // still this router's (it closes it) until the newer map's router takes it (MapFollower#adopt)
            throw new StaleMapException(seen, session);
        }
        if (seen != null && !map.isSimple() && seen.epoch() < map.fenceEpoch())
        {
            // the node has not applied this router's map yet, and will fence this session when it does: an
            // operation started on it now could be cut off after its word was taken (its effect then unknown)
            retire(session);
            throw new SessionFailedException(nodes[node], new IllegalStateException("it serves map epoch " +
                seen.epoch() + ", older than the fence epoch " + map.fenceEpoch() + " of this client's map: it " +
                "fences this session once it applies that map; trying again"));
        }
        session.ownedBy(owners.get());
        shareCache(node, session);
        sessions[node] = session;
        return session;
    }

    /**
     * Opens a session with node {@code node} and adds it to the sessions this router closes ({@link #open}) before
     * anything else can fail, unless they were closed while it was being opened: then closes it and throws {@link
     * RouterClosedException}, as {@link #session} does when closed. (This thread adds, then reads the flag; {@link #close} sets the flag, then
     * walks the set: one of them sees the other, and {@link #retire} closes the session once.) Counted in {@link
     * #opening} meanwhile, so that the client's close can wait for it ({@link #awaitOpens}).
     */
    private Session openKept(final int node)
    {
        opening.incrementAndGet();
        try
        {
            final Session session = opener.open(nodes[node]);
            open.add(session);
            if (sessionsClosed.get())
            {
                retire(session);
                throw new RouterClosedException(map.epoch());
            }
            return session;
        }
        finally
        {
            opening.decrementAndGet();
        }
    }

    /**
     * Waits, until {@code deadlineNanos} at most ({@link System#nanoTime}), for the sessions being opened now by any
     * router of this client to be kept or closed ({@link #openKept}); call after closing every router, so that they
     * are closed. Returns how many are still being opened (0: none).
     */
    public int awaitOpens(final long deadlineNanos)
    {
        while (opening.get() > 0 && deadlineNanos - System.nanoTime() > 0)
        {
            java.util.concurrent.locks.LockSupport.parkNanos(1_000_000L);
        }
        return opening.get();
    }

    /**
     * {@code session}, which a thread opened on this router and found serving a newer map ({@link StaleMapException}),
     * now belongs to {@code next} ({@link #adopt} took it): this router forgets it, unless the two share their
     * sessions.
     */
    public void handedTo(final Session session, final Router next)
    {
        if (next.open != open)
        {
            open.remove(session);
        }
    }

    /** Closes {@code session}, one of this router's that no router takes (a {@link StaleMapException}'s). */
    public void discard(final Session session)
    {
        if (!open.contains(session))
        {
            session.close(); // never kept here (a caller's own), or closed already (close is idempotent)
            return;
        }
        retire(session);
    }

    /**
     * Keeps {@code session} (opened by the caller, e.g. with the seed node while connecting) as a spare
     * session with its node, found by the node id its HELLO_OK names: the first thread that needs a session
     * with that node takes it instead of opening one. Returns false, keeping nothing, when the map lists no
     * such node or a spare is already kept for it.
     */
    public boolean adopt(final Session session)
    {
        final int nodeId = session.hello().nodeId();
        final List<ClusterNode> list = map.nodes();
        for (int i = 0; i < list.size(); i++)
        {
            if (list.get(i).id() == nodeId)
            {
                if (closed || sessionsClosed.get() || !spares.compareAndSet(i, null, session))
                {
                    return false;
                }
                shareCache(i, session);
                open.add(session);
                if (sessionsClosed.get())
                {
                    // closed meanwhile (see openKept): the session is closed here or by close, never kept
                    spares.compareAndSet(i, session, null);
                    retire(session);
                    return false;
                }
                return true;
            }
        }
        return false;
    }

    /** Drops {@code session} from this thread's table when it broke (the next call opens a new one). */
    public void dropIfBroken(final Session session)
    {
        if (session.isBroken())
        {
            final Session[] sessions = mine();
            for (int i = 0; i < sessions.length; i++)
            {
                if (sessions[i] == session)
                {
                    sessions[i] = null;
                }
            }
            retire(session);
        }
    }

    /** Drops, from this thread's table, every session of {@code lane}'s chain that broke. */
    public void dropBrokenChain(final Lane lane)
    {
        final Session[] sessions = mine();
        for (int i = 0; i < sessions.length; i++)
        {
            if (sessions[i] != null && sessions[i].isBroken())
            {
                final Session broken = sessions[i];
                sessions[i] = null;
                retire(broken);
            }
        }
        lane.chain().clear();
    }

    /** Runs {@code action} for every open session, all threads (for the janitor; the set is concurrent). */
    public void forEachOpen(final java.util.function.Consumer<Session> action)
    {
        open.forEach(action);
    }

    /**
     * The oldest map epoch under which an operation of this client may still be running: the lowest epoch the
     * sessions inside an operation entered with ({@link Session#enter(long)}), else this router's. Every session of
     * the client counts, not only those with one node: a replicated write runs on its thread's sessions with its
     * group's backups without entering them. The janitor calls it on the router it read last; a thread that entered
     * after the scan re-reads the router and, finding another, runs again on it ({@code KvClient}).
     */
    public long oldestOperatingEpoch()
    {
        long oldest = map.epoch();
        for (final Session s : open)
        {
            final long epoch = s.operatingEpoch();
            if (epoch >= 0 && epoch < oldest)
            {
                oldest = epoch;
            }
        }
        return oldest;
    }

    /** Open sessions, all threads. */
    public int openSessions()
    {
        return open.size();
    }

    /** Counts {@code totals} (a previous router's, when the map changed) as this router's retired sessions'. */
    public void inherit(final LaneCounters totals)
    {
        synchronized (retired)
        {
            totals.addTo(retired);
        }
    }

    /** The counters of every session this router has had, summed (control path: allocates). */
    public LaneCounters totals()
    {
        final LaneCounters total = new LaneCounters();
        synchronized (retired)
        {
            retired.addTo(total);
        }
        for (final Session s : open)
        {
            s.counters().addTo(total);
        }
        return total;
    }

    /**
     * Gives a new session the shared cache. Cached slot addresses are only good for the region they were
     * seen in: when the node's region is not the one this router saw before (it restarted), the cache is
     * cleared first (a lane still on the old region fails its next operation and caches nothing).
     */
    private void shareCache(final int node, final Session session)
    {
        final List<Object> identity = session.regionIdentity();
        synchronized (regions)
        {
            if (regions[node] != null && !regions[node].equals(identity))
            {
                cache.clear();
            }
            regions[node] = identity;
        }
        session.useCache(cache);
    }

    private void retire(final Session session)
    {
        if (open.remove(session))
        {
            synchronized (retired)
            {
                session.counters().addTo(retired);
            }
            session.close();
        }
    }

    /** This thread's sessions laid out for this router's map (moved over from the last router the thread used). */
    private Session[] mine()
    {
        final ThreadSessions t = mine.get();
        if (t.layout != layout)
        {
            final Session[] moved = new Session[nodes.length];
            if (t.layout != null)
            {
                for (int j = 0; j < t.byNode.length; j++)
                {
                    final int i = t.byNode[j] == null ? -1 : indexOf(t.layout.get(j));
                    if (i >= 0)
                    {
                        moved[i] = t.byNode[j];
                    }
                }
            }
            t.layout = layout;
            t.byNode = moved;
        }
        return t.byNode;
    }

    /** One thread's sessions, indexed by the node list {@code layout} of the router that last used them. */
    private static final class ThreadSessions
    {
        List<ClusterNode> layout;
        Session[] byNode;
    }

    /** The index of the node whose id is {@code nodeId} in this router's map, or -1 when it lists none. */
    public int nodeIndex(final int nodeId)
    {
        return indexById.getOrDefault(nodeId, -1);
    }

    /** The index of {@code node} (same id and address) in this router's map, or -1. */
    private int indexOf(final ClusterNode node)
    {
        final List<ClusterNode> list = map.nodes();
        for (int i = 0; i < list.size(); i++)
        {
            if (list.get(i).equals(node))
            {
                return i;
            }
        }
        return -1;
    }

    /** Whether {@code next} can take this router's sessions over ({@link #Router(ClusterMap, Router)}). */
    public boolean keepsSessionsFor(final ClusterMap next)
    {
        return !closed && !handedOver && !sessionsClosed.get() && !map.isSimple() && !next.isSimple() &&
            next.fenceEpoch() == map.fenceEpoch();
    }

    /**
     * Closes every session (BYE to each node), unless a refreshed router took them over: then it only stops
     * opening new ones. A session that fails to close does not keep the others open: they are closed, and then its
     * failure is thrown (the others' added to it).
     */
    @Override
    public void close()
    {
        if (handedOver)
        {
            return;
        }
        closed = true;
        sessionsClosed.set(true);
        RuntimeException failure = null;
        for (final Session s : open)
        {
            try
            {
                retire(s);
            }
            catch (final RuntimeException e)
            {
                if (failure == null)
                {
                    failure = e;
                }
                else
                {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null)
        {
            throw failure;
        }
    }
}
