package io.rdmakv.server.cluster;

import io.rdmakv.common.cluster.ClusterMap;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.cache.CuratorCacheListener;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.apache.curator.framework.recipes.nodes.PersistentNode;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static java.lang.System.Logger.Level.INFO;
import static java.lang.System.Logger.Level.WARNING;

/**
 * A node's membership in a cluster whose map lives in ZooKeeper (through Curator):
 * <ul>
 *   <li>creates {@code config} if the cluster has none (else follows the stored replication factor, warning
 *       when {@code --replicas} differs);</li>
 *   <li>registers {@code members/<id>} as an ephemeral {@link PersistentNode} (it comes back after a session
 *       loss); a znode of an earlier process with this id (its session not yet expired) is waited out
 *       first;</li>
 *   <li>runs for leadership on {@code leader} ({@link LeaderLatch}); the leader is the {@link Coordinator};</li>
 *   <li>watches {@code map} and hands each map of a higher epoch to the {@link MembershipListener}, and each
 *       change of the connection, on one thread in order;</li>
 *   <li>writes this node's {@link SyncReport} to {@code sync/<id>} when it copies a replica.</li>
 * </ul>
 * While ZooKeeper is unreachable the node keeps its current map: nothing here stops the data path.
 */
public final class ZkMembership implements AutoCloseable
{
    private static final System.Logger LOG = System.getLogger(ZkMembership.class.getName());

    private final ZkOptions options;
    private final MemberInfo self;
    private final MembershipListener listener;
    private final CuratorFramework client;
    private final ExecutorService events;
    private final ScheduledExecutorService work;
    private final Object mapLock = new Object();
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile ClusterMap currentMap;
    private long deliveredEpoch;
    private volatile boolean connected;
    /** Only touched on the events thread. */
    private Boolean toldConnected;
    private volatile SyncReport lastReport;
    private volatile ClusterSettings settings;
    private volatile Coordinator coordinator;
    private CuratorCache mapCache;
    private CuratorCache membersCache;
    private CuratorCache syncCache;
    private PersistentNode memberNode;
    private LeaderLatch latch;

    private ZkMembership(final ZkOptions options, final MemberInfo self, final MembershipListener listener)
    {
        this.options = Objects.requireNonNull(options, "options");
        this.self = Objects.requireNonNull(self, "self");
        this.listener = Objects.requireNonNull(listener, "listener");
        this.events = Executors.newSingleThreadExecutor(daemon("rdmakv-zk-events-" + self.id()));
        this.work = Executors.newSingleThreadScheduledExecutor(daemon("rdmakv-zk-work-" + self.id()));
        this.client = CuratorFrameworkFactory.builder()
            .connectString(options.connectString())
            .sessionTimeoutMs(options.sessionTimeoutMs())
            .connectionTimeoutMs(options.sessionTimeoutMs())
            .retryPolicy(new ExponentialBackoffRetry(100, 3))
            .namespace(options.namespace())
            .build();
    }

    /**
     * Connects, registers {@code self}, joins the election and starts watching the map.
     *
     * @throws IOException when ZooKeeper cannot be reached in time, the cluster's config is unreadable, or
     *     another live process holds this node id.
     */
    public static ZkMembership start(final ZkOptions options, final MemberInfo self, final MembershipListener listener)
        throws IOException
    {
        final ZkMembership m = new ZkMembership(options, self, listener);
        try
        {
            m.begin();
            return m;
        }
        catch (final InterruptedException e)
        {
            m.close();
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while joining cluster " + options.clusterName());
        }
        catch (final IOException | RuntimeException e)
        {
            m.close();
            throw e;
        }
        catch (final Exception e)
        {
            m.close();
            throw new IOException("cannot join cluster " + options.clusterName() + " in ZooKeeper at " +
                options.connectString() + ": " + e, e);
        }
    }

    private void begin() throws Exception
    {
        client.getConnectionStateListenable().addListener((c, state) -> onConnectionState(state));
        client.start();
        final long connectWaitMs = Math.max(10_000, 2L * options.sessionTimeoutMs());
        if (!client.blockUntilConnected((int) connectWaitMs, TimeUnit.MILLISECONDS))
        {
            throw new IOException("cannot reach ZooKeeper at " + options.connectString() + " within " +
                connectWaitMs + " ms");
        }
        settings = ClusterJoin.ensureConfig(client, options);
        ClusterJoin.waitOutEarlierSelf(client, options, self);
        coordinator = new Coordinator(client, work, self.id(), settings.replicas(), settings.partitions(),
            options.settleMs());
        mapCache = CuratorCache.build(client, ZkPaths.MAP);
        mapCache.listenable().addListener(CuratorCacheListener.builder()
            .forCreatesAndChanges((before, after) -> onMapData(after)).build());
        mapCache.start();
        // the coordinator plans again on any change below members and sync (it reads them afresh)
        membersCache = CuratorCache.build(client, ZkPaths.MEMBERS);
        membersCache.listenable().addListener((type, before, after) -> coordinator.poke());
        membersCache.start();
        syncCache = CuratorCache.build(client, ZkPaths.SYNC);
        syncCache.listenable().addListener((type, before, after) -> coordinator.poke());
        syncCache.start();
        memberNode = new PersistentNode(client, CreateMode.EPHEMERAL, false, ZkPaths.member(self.id()), self.toJson());
        memberNode.start();
        if (!memberNode.waitForInitialCreate(options.sessionTimeoutMs() * 2L + 5000, TimeUnit.MILLISECONDS))
        {
            throw new IOException("cannot register node " + self.id() + " in ZooKeeper");
        }
        latch = new LeaderLatch(client, ZkPaths.LEADER, Integer.toString(self.id()));
        latch.addListener(new LeaderLatchListener()
        {
            @Override
            public void isLeader()
            {
                coordinator.lead();
            }

            @Override
            public void notLeader()
            {
                coordinator.stepDown();
            }
        });
        latch.start();
        LOG.log(INFO, "node " + self.id() + " joined cluster " + options.clusterName() + " (replicas " +
            settings.replicas() + ", " + settings.partitions() + " partitions) in ZooKeeper at " + options.connectString());
    }

    private void onConnectionState(final ConnectionState state)
    {
        final boolean up = state.isConnected();
        connected = up;
        // leadership follows the latch alone (it gives it up while suspended and runs again on reconnection)
        if (state == ConnectionState.RECONNECTED)
        {
            final SyncReport report = lastReport;
            if (report != null)
            {
                writeReport(report);
            }
            if (coordinator != null)
            {
                coordinator.poke();
            }
        }
        LOG.log(up ? INFO : WARNING, "node " + self.id() + ": ZooKeeper " + state);
        deliver(() ->
        {
            if (toldConnected == null || toldConnected != up)
            {
                toldConnected = up;
                listener.onZooKeeper(up);
            }
        });
    }

    private void onMapData(final ChildData data)
    {
        if (data == null || !ZkPaths.MAP.equals(data.getPath()))
        {
            return;
        }
        final StoredMap stored;
        try
        {
            stored = StoredMap.fromJson(data.getData());
        }
        catch (final IllegalArgumentException e)
        {
            LOG.log(WARNING, "node " + self.id() + ": ignoring an unreadable cluster map: " + e.getMessage());
            return;
        }
        final ClusterMap map = stored.map();
        synchronized (mapLock)
        {
            if (closed.get() || map.epoch() <= deliveredEpoch)
            {
                return;
            }
            deliveredEpoch = map.epoch();
            currentMap = map;
            deliver(() -> listener.onMap(map));
        }
        final Coordinator c = coordinator;
        if (c != null)
        {
            c.poke();
        }
    }

    private void deliver(final Runnable call)
    {
        try
        {
            events.execute(() ->
            {
                if (closed.get())
                {
                    return;
                }
                try
                {
                    call.run();
                }
                catch (final RuntimeException e)
                {
                    LOG.log(WARNING, "node " + self.id() + ": membership listener failed: " + e, e);
                }
            });
        }
        catch (final RejectedExecutionException e)
        {
            // closed
        }
    }

    /**
     * Reports this node's copy progress for {@code group} at map {@code epoch}: {@code sync/<id>}, written in
     * the background (and again after a reconnection); the latest report wins.
     */
    public void reportSync(final int group, final long epoch, final SyncPhase phase)
    {
        final SyncReport report = new SyncReport(self.id(), group, epoch, phase);
        lastReport = report;
        writeReport(report);
    }

    private void writeReport(final SyncReport report)
    {
        try
        {
            work.execute(() ->
            {
                if (closed.get() || lastReport != report)
                {
                    return;
                }
                try
                {
                    writeOwnReport(report.toJson());
                }
                catch (final Exception e)
                {
                    LOG.log(WARNING, "node " + self.id() + ": cannot write sync report " + report + ": " + e +
                        " (written again on reconnection)");
                }
            });
        }
        catch (final RejectedExecutionException e)
        {
            // closed
        }
    }

    /** Writes {@code sync/<id>} as an ephemeral of this session (one of an expired session is replaced). */
    private void writeOwnReport(final byte[] json) throws Exception
    {
        final String path = ZkPaths.sync(self.id());
        final long session = client.getZookeeperClient().getZooKeeper().getSessionId();
        final Stat stat = client.checkExists().forPath(path);
        if (stat != null && stat.getEphemeralOwner() != session)
        {
            try
            {
                client.delete().withVersion(stat.getVersion()).forPath(path);
            }
            catch (final KeeperException.NoNodeException | KeeperException.BadVersionException e)
            {
                // gone or changed meanwhile: create or set below
            }
        }
        client.create().orSetData().creatingParentsIfNeeded().withMode(CreateMode.EPHEMERAL).forPath(path, json);
    }

    /** The latest map delivered (or being delivered) to the listener; null before the first. */
    public ClusterMap currentMap()
    {
        return currentMap;
    }

    /** Whether the ZooKeeper connection is up now. */
    public boolean connected()
    {
        return connected;
    }

    /** Whether this node is the coordinator now. */
    public boolean isCoordinator()
    {
        final Coordinator c = coordinator;
        final LeaderLatch l = latch;
        return c != null && l != null && c.leading() && l.hasLeadership();
    }

    /** Failovers (groups given a new primary) this node wrote while it was the coordinator. */
    public long failovers()
    {
        final Coordinator c = coordinator;
        return c == null ? 0 : c.failovers();
    }

    /** The cluster's replication factor, as stored in ZooKeeper (it may differ from {@code --replicas}). */
    public int replicas()
    {
        return settings.replicas();
    }

    /** The cluster's partition count, as stored in ZooKeeper. */
    public int partitions()
    {
        return settings.partitions();
    }

    public MemberInfo self()
    {
        return self;
    }

    /** The Curator client (tests: to expire its session). */
    CuratorFramework client()
    {
        return client;
    }

    /** The coordinator (tests). */
    Coordinator coordinator()
    {
        return coordinator;
    }

    /**
     * Leaves the election, deletes this node's znodes, stops watching and closes the connection; the
     * listener hears nothing more. Idempotent.
     */
    @Override
    public void close()
    {
        if (!closed.compareAndSet(false, true))
        {
            return;
        }
        if (coordinator != null)
        {
            coordinator.close();
        }
        quietly(latch);
        quietly(syncCache);
        quietly(membersCache);
        quietly(mapCache);
        quietly(memberNode);
        work.shutdownNow();
        events.shutdown();
        quietly(client);
        LOG.log(INFO, "node " + self.id() + " left cluster " + options.clusterName());
    }

    private void quietly(final AutoCloseable c)
    {
        if (c == null)
        {
            return;
        }
        try
        {
            c.close();
        }
        catch (final Exception e)
        {
            LOG.log(WARNING, "node " + self.id() + ": closing " + c.getClass().getSimpleName() + ": " + e);
        }
    }

    private static ThreadFactory daemon(final String name)
    {
        return r ->
        {
            final Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        };
    }
}
