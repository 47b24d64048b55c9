package io.rdmakv.client;

import io.rdmakv.client.internal.op.SlotCache;
import io.rdmakv.client.internal.session.Router;
import io.rdmakv.client.internal.session.Session;
import io.rdmakv.client.internal.session.StaleMapException;
import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.ClusterNode;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Keeps the client on the newest cluster map. A replicated cluster changes its map (a new epoch) when a
 * node fails, a replica is added or a group is sealed for a copy; every node then fences the sessions of
 * older epochs, so the client's next operation fails, and the next session it opens brings the new map in
 * its HELLO_OK ({@link StaleMapException}). This class swaps the router for one over the new map and,
 * for a map that fences nobody (a spare joined or left: the same {@link ClusterMap#fenceEpoch}), keeps the
 * sessions and, when nothing is placed differently, the slot cache. In both cases it,
 * while operations cannot proceed (a node unreachable or not current, a group sealed, a read lease run out),
 * asks all the nodes at once for their map at most every {@value #PROBE_INTERVAL_MS} ms until the
 * operation's deadline. Clients never talk to
 * ZooKeeper: the nodes hand out the map.
 *
 * <p>Control path only (allocates); the data path reads {@link #router()}, a volatile field.
 */
final class MapFollower implements AutoCloseable
{
    /** The first wait of a write on a frozen partition; the waits double up to {@link #FROZEN_WAIT_MAX_NANOS}. */
    static final long FROZEN_WAIT_FIRST_NANOS = 50_000L;
    static final long FROZEN_WAIT_MAX_NANOS = 1_000_000L;

    static final long PROBE_INTERVAL_MS = 100;
    private static final System.Logger LOG = System.getLogger(MapFollower.class.getName());
    private static final long PROBE_INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(PROBE_INTERVAL_MS);
    /** One line per node and kind per 10 s for maps a node offers that this client does not take. */
    private static final io.rdmakv.common.RateLimitedLog IGNORED =
        new io.rdmakv.common.RateLimitedLog(LOG, 10, TimeUnit.SECONDS);

    private final Router.SessionOpener opener;
    private final List<InetSocketAddress> seeds;
    private final SlotCache cache;
    private final long opTimeoutNanos;
    private final List<Router> retired = new ArrayList<>();
    private volatile Router router;
    private long lastProbeNanos;
    /** Nodes a probe is waiting on now. */
    private final Set<InetSocketAddress> probing = ConcurrentHashMap.newKeySet();
    /**
     * The threads of probes under way (each opens a session, a queue pair and memory of the client's protection
     * domain): {@link #close} ends and waits for them, so that the client does not close the domain under them.
     */
    private final Set<Thread> probeThreads = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;
    private final ReadGate areaReads = new ReadGate(PROBE_INTERVAL_NANOS);
    private final java.util.concurrent.atomic.AtomicLong mapAreaReads = new java.util.concurrent.atomic.AtomicLong();
    private final java.util.concurrent.atomic.AtomicLong mapsIgnored = new java.util.concurrent.atomic.AtomicLong();

    MapFollower(final Router router, final Router.SessionOpener opener, final List<InetSocketAddress> seeds,
        final long opTimeoutNanos)
    {
        this.router = router;
        this.opener = opener;
        this.seeds = List.copyOf(seeds);
        this.cache = router.cache();
        this.opTimeoutNanos = opTimeoutNanos;
    }

    Router router()
    {
        return router;
    }

    /**
     * A session opened by {@code seenBy} brought a newer map: move to it (once, whichever thread is first). The session
     * goes to the router of that map as a spare ({@link Router#adopt}), or is closed: it is {@code seenBy}'s until
     * then, so that a close of the client meanwhile closes it.
     */
    void adopt(final Router seenBy, final StaleMapException e)
    {
        final Session session = e.session();
        final Router next;
        if (swap(seenBy, e.map()) && (next = router).adopt(session))
        {
            seenBy.handedTo(session, next);
        }
        else
        {
            seenBy.discard(session);
        }
    }

    /**
     * The operation cannot go on now: waits a little, asks the nodes for a newer map, and returns the
     * operation's deadline (set on its first wait); throws {@link KvTimeoutException} once it has passed.
     */
    /**
     * Waits before a write runs again on a partition frozen for a move ({@code Status.FROZEN}): 50 µs, doubling
     * with {@code waits} (the waits so far) up to 1 ms, within the operation's deadline (set on its first wait);
     * throws {@link KvTimeoutException} once it has passed. No probe: the move either opens the partition on its
     * new group, whose old group then carries the MOVED mark the next READ sees, or is abandoned and unfreezes it.
     */
    long awaitOpen(final Router current, final long deadline, final int waits)
    {
        final long now = System.nanoTime();
        final long due = deadline == 0L ? now + opTimeoutNanos : deadline;
        if (now - due > 0)
        {
            throw new KvTimeoutException("gave up after " + TimeUnit.NANOSECONDS.toMillis(opTimeoutNanos) +
                " ms waiting for the key's partition to open after a move (map epoch " + current.map().epoch() + ")");
        }
        LockSupport.parkNanos(Math.min(FROZEN_WAIT_MAX_NANOS, FROZEN_WAIT_FIRST_NANOS << Math.min(waits, 5)));
        return due;
    }

    long await(final Router current, final long deadline, final String why)
    {
        final long now = System.nanoTime();
        final long due = deadline == 0L ? now + opTimeoutNanos : deadline;
        if (now - due > 0)
        {
            throw new KvTimeoutException("gave up after " + TimeUnit.NANOSECONDS.toMillis(opTimeoutNanos) +
                " ms waiting for the cluster (map epoch " + current.map().epoch() + "): " + why);
        }
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        probe(current, due);
        return due;
    }

    /**
     * Asks the nodes (the map's, then the seeds) for their map, all at once, at most every {@value
     * #PROBE_INTERVAL_MS} ms per client, and moves to the first newer one that comes back; waits no longer than
     * {@code due} (the operation's deadline) and no longer than the slowest answer. A node that does not answer
     * (stopped, cut off) therefore costs nothing while another has the map; a probe still waiting on a node is
     * not doubled by the next one.
     */
    private void probe(final Router current, final long due)
    {
        synchronized (this)
        {
            final long now = System.nanoTime();
            if (closed || current != router || now - lastProbeNanos < TimeUnit.MILLISECONDS.toNanos(PROBE_INTERVAL_MS))
            {
                return;
            }
            lastProbeNanos = now;
        }
        final Set<InetSocketAddress> addresses = new LinkedHashSet<>();
        for (final ClusterNode node : current.map().nodes())
        {
            addresses.add(new InetSocketAddress(node.host(), node.port()));
        }
        addresses.addAll(seeds);
        final BlockingQueue<Answer> answers = new LinkedBlockingQueue<>();
        int asked = 0;
        for (final InetSocketAddress address : addresses)
        {
            if (!probing.add(address))
            {
                continue; // the last probe of that node still waits for it
            }
            asked++;
            startProbeThread(() -> answers.add(ask(address)));
        }
        ClusterMap newest = current.map();
        try
        {
            for (int i = 0; i < asked; i++)
            {
                final Answer answer = answers.poll(Math.max(0, due - System.nanoTime()), TimeUnit.NANOSECONDS);
                if (answer == null)
                {
                    break; // the operation's deadline: await reports it
                }
                if (answer.map() != null && answer.map().epoch() > newest.epoch())
                {
                    newest = answer.map();
                    break; // one node with a newer map is enough
                }
            }
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
        swap(current, newest);
    }

    /**
     * The janitor's duty, for each open session every tick: when the node's heartbeat answers say it applied a newer
     * map than this client's, READs the node's map area on this session (if no operation of its thread is in progress now;
     * else another session or the next tick does) and follows that map, in place when it keeps the fence epoch. Once per newer
     * epoch per node; a map that cannot be read is asked for the old way ({@link #probe}, on a thread of its own);
     * a map this client must not take (older than the node claimed, another cluster's) is ignored with a line in the
     * log, and the client keeps the map it has.
     */
    void follow(final Session session, final long nowNanos)
    {
        final Router current = router;
        final long claimed = session.nodeEpoch();
        if (claimed <= current.map().epoch() || session.isBroken())
        {
            return;
        }
        final int nodeId = session.hello().nodeId();
        if (!areaReads.due(nodeId, claimed, nowNanos) || !session.borrow())
        {
            return;
        }
        final String[] why = new String[1];
        final ClusterMap map;
        try
        {
            areaReads.reading(nodeId, claimed, nowNanos);
            mapAreaReads.incrementAndGet();
            map = session.fetchMap(why);
        }
        finally
        {
            session.giveBack();
        }
        if (map == null)
        {
            IGNORED.log(System.Logger.Level.WARNING, "unread " + nodeId, "node " + nodeId + " says it applied map " +
                "epoch " + claimed + " (this client has " + current.map().epoch() + "), but its map area could not be " +
                "read: " + why[0] + "; asking the nodes for their map instead");
            startProbeThread(() -> probe(current, System.nanoTime() + opTimeoutNanos));
            return;
        }
        final String refusal = refusal(current.map(), map, claimed);
        if (refusal != null)
        {
            mapsIgnored.incrementAndGet();
            IGNORED.log(System.Logger.Level.WARNING, "ignored " + nodeId, "ignoring the map of node " + nodeId +
                ": " + refusal + "; keeping map epoch " + current.map().epoch());
            return;
        }
        swap(current, map);
    }

    /**
     * Why a map read from a node's map area is not one to follow from {@code held} (null: follow it). The node
     * claimed epoch {@code claimed}; the map must be at least that, of the same cluster shape (partition count,
     * replication), and fence no lower than {@code held} (no coordinator writes such a map: {@code MapCheck}).
     */
    static String refusal(final ClusterMap held, final ClusterMap map, final long claimed)
    {
        if (map.epoch() < claimed)
        {
            return "it says it applied epoch " + claimed + " but its map area holds epoch " + map.epoch();
        }
        if (map.epoch() <= held.epoch())
        {
            return "its map (epoch " + map.epoch() + ") is not newer than this client's";
        }
        if (map.partitionCount() != held.partitionCount() || map.isSimple() != held.isSimple() ||
            map.replicationFactor() != held.replicationFactor())
        {
            return "its map is another cluster's (" + map.partitionCount() + " partitions, " +
                map.replicationFactor() + " replicas; this client's has " + held.partitionCount() + " and " +
                held.replicationFactor() + ")";
        }
        if (map.fenceEpoch() < held.fenceEpoch())
        {
            return "its map fences at epoch " + map.fenceEpoch() + ", below this client's " + held.fenceEpoch();
        }
        return null;
    }

    /**
     * When a node's map area is read: once per newer epoch the node claims, and at most once per {@code spacing}
     * however fast its claims grow. One thread (the janitor's).
     */
    static final class ReadGate
    {
        private final long spacingNanos;
        /** Per node id: the newest epoch claimed that the area was read for, and when. */
        private final java.util.Map<Integer, long[]> reads = new java.util.HashMap<>();

        ReadGate(final long spacingNanos)
        {
            this.spacingNanos = spacingNanos;
        }

        /** Whether node {@code nodeId}'s area should be read now, for its claim of {@code claimed}. */
        boolean due(final int nodeId, final long claimed, final long nowNanos)
        {
            final long[] last = reads.get(nodeId);
            return last == null || claimed > last[0] && nowNanos - last[1] >= spacingNanos;
        }

        /** The area of {@code nodeId} is being read for {@code claimed}. */
        void reading(final int nodeId, final long claimed, final long nowNanos)
        {
            final long[] last = reads.computeIfAbsent(nodeId, id -> new long[2]);
            last[0] = claimed;
            last[1] = nowNanos;
        }
    }

    /** Map areas read so far (each a newer epoch a node claimed). */
    long mapAreaReads()
    {
        return mapAreaReads.get();
    }

    /** Maps read from map areas and ignored ({@link #refusal}). */
    long mapsIgnored()
    {
        return mapsIgnored.get();
    }

    private record Answer(ClusterMap map)
    {
    }

    /** One node's map (a session opened for its HELLO_OK and closed), or an answer without one. */
    private Answer ask(final InetSocketAddress address)
    {
        try (Session probe = opener.open(address.isUnresolved() ?
            new InetSocketAddress(address.getHostString(), address.getPort()) : address))
        {
            return new Answer(probe.hello().clusterMap());
        }
        catch (final RuntimeException e)
        {
            return new Answer(null); // that node is down, not in the cluster, not current, or refusing
        }
        finally
        {
            probing.remove(address);
        }
    }

    private boolean swap(final Router seenBy, final ClusterMap map)
    {
        final Router old;
        final Router next;
        final boolean inPlace;
        synchronized (this)
        {
            old = router;
            if (closed || old != seenBy || map.epoch() <= old.map().epoch())
            {
                return old.map().epoch() == map.epoch();
            }
            inPlace = old.keepsSessionsFor(map);
            if (inPlace)
            {
                // nodes fence nobody for this map: the sessions (and their counters) carry over
                next = new Router(map, old);
                if (!map.placesLike(old.map()))
                {
                    cache.clear();
                }
            }
            else
            {
                next = Router.afterFence(map, old);
                next.inherit(old.totals());
                // cached slot addresses name the old map's nodes: a key's primary may have moved
                cache.clear();
            }
            router = next;
            retired.add(old);
        }
        LOG.log(System.Logger.Level.INFO, "cluster map epoch " + old.map().epoch() + " -> " + map.epoch() +
            (inPlace ? " (fences nobody: sessions kept)" : ""));
        closeOlderRetired();
        return true;
    }

    /**
     * Closes routers retired more than one map ago: the nodes fenced their sessions, and every operation
     * that still held one has failed and moved on by the time the map changed twice.
     */
    private void closeOlderRetired()
    {
        final List<Router> closing = new ArrayList<>();
        synchronized (this)
        {
            while (retired.size() > 1)
            {
                closing.add(retired.removeFirst());
            }
        }
        for (final Router r : closing)
        {
            try
            {
                r.close();
            }
            catch (final RuntimeException e)
            {
                // its other sessions are closed (Router#close); the client's close reports what stays open
                LOG.log(System.Logger.Level.WARNING, "closing the router of map epoch " + r.map().epoch() + ": " + e,
                    e);
            }
        }
    }

    /** Runs {@code task} on a virtual thread of its own, which {@link #close} ends and waits for; not once closed. */
    private void startProbeThread(final Runnable task)
    {
        final Thread thread = Thread.ofVirtual().name("rdmakv-map-probe").unstarted(() ->
        {
            try
            {
                task.run();
            }
            finally
            {
                probeThreads.remove(Thread.currentThread());
            }
        });
        probeThreads.add(thread);
        if (closed)
        {
            probeThreads.remove(thread);
            return;
        }
        thread.start();
    }

    /**
     * Ends the probes under way (interrupted: a connect or HELLO gives up, and the session it was opening is
     * closed) and waits for them, at most {@link #CLOSE_WAIT_MILLIS}: they hold sessions of the client's protection
     * domain, which the client closes next (a test saw {@code ibv_dealloc_pd} refused: "still has 1 memory region
     * and 1 queue pair").
     */
    private void endProbes()
    {
        closed = true;
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(CLOSE_WAIT_MILLIS);
        while (!probeThreads.isEmpty() && deadline - System.nanoTime() > 0)
        {
            for (final Thread thread : probeThreads)
            {
                thread.interrupt();
            }
            for (final Thread thread : probeThreads)
            {
                try
                {
                    thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
                }
                catch (final InterruptedException e)
                {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    /** How long {@link #close} waits for probes under way to end. */
    static final long CLOSE_WAIT_MILLIS = 5_000;

    /**
     * Ends the probes, closes every router (each router's sessions; a router that fails to close a session does not
     * keep the others from closing theirs: the first failure is thrown once all are closed, the others added to it)
     * and waits, at most {@link #CLOSE_WAIT_MILLIS}, for sessions other threads are opening now (each closes its own,
     * finding its router closed). Returns how many are still being opened then (0: none).
     */
    int closeAll()
    {
        endProbes();
        final List<Router> all;
        synchronized (this)
        {
            all = new ArrayList<>(retired);
            retired.clear();
            all.add(router);
        }
        RuntimeException failure = null;
        for (final Router r : all)
        {
            try
            {
                r.close();
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
        final int opening = router.awaitOpens(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(CLOSE_WAIT_MILLIS));
        if (failure != null)
        {
            throw failure;
        }
        return opening;
    }

    @Override
    public void close()
    {
        closeAll();
    }
}
