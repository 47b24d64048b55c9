package io.rdmakv.client;

import io.rdmakv.client.internal.Router;
import io.rdmakv.client.internal.Session;
import io.rdmakv.client.internal.SlotCache;
import io.rdmakv.client.internal.StaleMapException;
import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.ClusterNode;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Keeps the client on the newest cluster map. A replicated cluster changes its map (a new epoch) when a
 * node fails, a replica is added or a group is sealed for a copy; every node then fences the sessions of
 * older epochs, so the client's next operation fails, and the next session it opens brings the new map in
 * its HELLO_OK ({@link StaleMapException}). This class swaps the router for one over the new map and,
 * while operations cannot proceed (a node unreachable, a group sealed), asks the nodes for their map at
 * most every {@value #PROBE_INTERVAL_MS} ms until the operation's deadline. Clients never talk to
 * ZooKeeper: the nodes hand out the map.
 *
 * <p>Control path only (allocates); the data path reads {@link #router()}, a volatile field.
 */
final class MapFollower implements AutoCloseable
{
    static final long PROBE_INTERVAL_MS = 100;
    private static final System.Logger LOG = System.getLogger(MapFollower.class.getName());

    private final Router.SessionOpener opener;
    private final List<InetSocketAddress> seeds;
    private final SlotCache cache;
    private final long opTimeoutNanos;
    private final List<Router> retired = new ArrayList<>();
    private volatile Router router;
    private long lastProbeNanos;

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

    /** A session opened under {@code seen} brought a newer map: move to it (once, whichever thread is first). */
    void adopt(final Router seenBy, final StaleMapException e)
    {
        final Session session = e.session();
        if (!swap(seenBy, e.map()) || !router.adopt(session))
        {
            session.close();
        }
    }

    /**
     * The operation cannot go on now: waits a little, asks the nodes for a newer map, and returns the
     * operation's deadline (set on its first wait); throws {@link KvTimeoutException} once it has passed.
     */
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
        probe(current);
        return due;
    }

    /**
     * Asks the nodes (the map's, then the seeds) for their map, one at a time until one has a newer map, at most
     * every {@value #PROBE_INTERVAL_MS} ms per client.
     */
    private void probe(final Router current)
    {
        synchronized (this)
        {
            final long now = System.nanoTime();
            if (current != router || now - lastProbeNanos < TimeUnit.MILLISECONDS.toNanos(PROBE_INTERVAL_MS))
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
        ClusterMap newest = current.map();
        for (final InetSocketAddress address : addresses)
        {
            if (newest != current.map())
            {
                break; // one node with a newer map is enough: each probe opens a whole session with a node
            }
            try (Session probe = opener.open(address.isUnresolved() ?
                new InetSocketAddress(address.getHostString(), address.getPort()) : address))
            {
                final ClusterMap seen = probe.hello().clusterMap();
                if (seen != null && seen.epoch() > newest.epoch())
                {
                    newest = seen;
                }
            }
            catch (final RuntimeException e)
            {
                // that node is down, not in the cluster, or refusing: ask the next
            }
        }
        swap(current, newest);
    }

    private boolean swap(final Router seenBy, final ClusterMap map)
    {
        final Router old;
        final Router next;
        synchronized (this)
        {
            old = router;
            if (old != seenBy || map.epoch() <= old.map().epoch())
            {
                return old.map().epoch() == map.epoch();
            }
            next = new Router(map, opener, cache);
            next.inherit(old.totals());
            // cached slot addresses name the old map's nodes: a key's primary may have moved
            cache.clear();
            router = next;
            retired.add(old);
        }
        LOG.log(System.Logger.Level.INFO, "cluster map epoch " + old.map().epoch() + " -> " + map.epoch());
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
        closing.forEach(Router::close);
    }

    @Override
    public void close()
    {
        final List<Router> all;
        synchronized (this)
        {
            all = new ArrayList<>(retired);
            retired.clear();
            all.add(router);
        }
        all.forEach(Router::close);
    }
}
