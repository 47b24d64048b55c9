package io.rdmakv.server.cluster;

import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.server.cluster.map.ClusterSettings;
import io.rdmakv.server.cluster.map.MapCheck;
import io.rdmakv.server.cluster.map.MapRefusal;
import io.rdmakv.server.cluster.map.MemberInfo;
import io.rdmakv.server.cluster.map.StoredMap;
import io.rdmakv.server.cluster.map.SyncPhase;
import io.rdmakv.server.cluster.map.SyncReport;
import io.rdmakv.server.cluster.zk.ZkClients;
import io.rdmakv.server.cluster.zk.ZkLockdown;
import io.rdmakv.server.cluster.zk.ZkOptions;
import io.rdmakv.server.cluster.zk.ZkPaths;
import io.rdmakv.common.RateLimitedLog;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.cache.CuratorCacheListener;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.apache.curator.framework.recipes.nodes.PersistentNode;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static java.lang.System.Logger.Level.DEBUG;
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
 * It also keeps the node's {@link NodeCurrency}: the connection state, a round trip to ZooKeeper every
 * probe interval (confirmed only in the trusted session), and whether the map served vouches for the node. A
 * new session (the old one expired) is trusted at once for round trips, but the node serves nothing until it
 * is registered again and has applied the newest map ({@link #onNewSession}).
 */
public final class ZkMembership implements AutoCloseable
{
    private static final System.Logger LOG = System.getLogger(ZkMembership.class.getName());
    /** Refused maps, at most one line per rule every 10 s (a writer may repeat them; each is counted). */
    private static final RateLimitedLog REFUSALS_LOG = new RateLimitedLog(LOG, 10, TimeUnit.SECONDS);
    private static final String GIVE_CREDENTIAL = "give the cluster's with --zk-auth-file or $RDMAKV_ZK_AUTH";

    private final ZkOptions options;
    private final MemberInfo self;
    private final NodeCurrency currency;
    private final ScheduledExecutorService probes;
    /** The ZooKeeper session the node's current incarnation joined under (0: none yet). */
    private volatile long trustedSession;
    private final Object vouchLock = new Object();
    /** After a new session: the newest map's epoch once registered again (MAX_VALUE: not yet); under vouchLock. */
    private long rejoinEpoch;
    /** The epoch of the map last handed to the listener (applied; 0: none) and the incarnation it placed us under. */
    private long appliedEpoch;
    private Long appliedIncarnation;
    private final MembershipListener listener;
    private final CuratorFramework client;
    private final ExecutorService events;
    private final ScheduledExecutorService work;
    private final Object mapLock = new Object();
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile ClusterMap currentMap;
    private long deliveredEpoch;
    /** The last map accepted (MapCheck passed); under mapLock. */
    private StoredMap heldMap;
    private volatile boolean connected;
    /** Only touched on the events thread. */
    private Boolean toldConnected;
    private volatile SyncReport lastReport;
    private volatile ClusterSettings settings;
    private volatile Coordinator coordinator;
    private CuratorCache mapCache;
    private volatile CuratorCache membersCache;
    private CuratorCache syncCache;
    private CuratorCache movesCache;
    private CuratorCache loadCache;
    /** Looks at the census and writes {@code load/<id>} ({@link LoadReporter}); started by {@link #reportLoad}. */
    private final ScheduledExecutorService loadReports;
    private CuratorCache requestCache;
    private CuratorCache autoCache;
    private volatile CuratorCache drainCache;
    private volatile PersistentNode memberNode;
    /** The znode version of the last map refused (-1: none), so that the watch and the coordinator count it once. */
    private int lastRefusedVersion = -1;
    private final Object refusedLock = new Object();
    private LeaderLatch latch;

    private ZkMembership(final ZkOptions options, final MemberInfo self, final MembershipListener listener,
        final NodeCurrency currency)
    {
        this.options = Objects.requireNonNull(options, "options");
        // first: a TLS file it refuses leaves no threads behind
        this.client = ZkClients.build(options);
        this.self = Objects.requireNonNull(self, "self");
        this.listener = Objects.requireNonNull(listener, "listener");
        this.currency = Objects.requireNonNull(currency, "currency");
        this.probes = Executors.newSingleThreadScheduledExecutor(daemon("rdmakv-zk-probe-" + self.id()));
        this.events = Executors.newSingleThreadExecutor(daemon("rdmakv-zk-events-" + self.id()));
        this.work = Executors.newSingleThreadScheduledExecutor(daemon("rdmakv-zk-work-" + self.id()));
        this.loadReports = Executors.newSingleThreadScheduledExecutor(daemon("rdmakv-zk-load-" + self.id()));
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
        return start(options, self, listener, new NodeCurrency(FencingBounds.ofMillis(options.sessionTimeoutMs(),
            io.rdmakv.server.config.ServerConfig.DEFAULT_HEARTBEAT_INTERVAL_NANOS)));
    }

    /** {@link #start(ZkOptions, MemberInfo, MembershipListener)}, keeping {@code currency} for the node. */
    public static ZkMembership start(final ZkOptions options, final MemberInfo self, final MembershipListener listener,
        final NodeCurrency currency) throws IOException
    {
        final ZkMembership m = new ZkMembership(options, self, listener, currency);
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
        catch (final KeeperException.SessionClosedRequireAuthException e)
        {
            m.close();
            throw new IOException("ZooKeeper at " + options.connectString() + " closed the session: it accepts only " +
                "authenticated sessions (enforce.auth) and " + (options.credentials() == null ? "this node has no " +
                "credential: " + GIVE_CREDENTIAL : "did not accept digest " +
                "user '" + options.credentials().user() + "' (" + options.credentials().source() + ")"), e);
        }
        catch (final KeeperException.NoAuthException e)
        {
            m.close();
            throw new IOException("ZooKeeper refused access to " + e.getPath() + " of cluster " +
                options.clusterName() + " (NoAuth): " + (options.credentials() == null ? "its znodes are locked: " +
                "give the cluster's credentials (--zk-auth-file or $RDMAKV_ZK_AUTH)" : "its znodes are locked to " +
                "other credentials than digest user '" + options.credentials().user() + "' (" +
                options.credentials().source() + ")"), e);
        }
        catch (final IOException | RuntimeException e)
        {
            m.close();
            throw e;
        }
        catch (final Exception e)
        {
            m.close();
            final boolean closedOut = e instanceof KeeperException.ConnectionLossException ||
                e instanceof KeeperException.SessionExpiredException;
            throw new IOException("cannot join cluster " + options.clusterName() + " in ZooKeeper at " +
                options.connectString() + ": " + e + (closedOut && options.credentials() == null ? " (an ensemble " +
                "that accepts only authenticated sessions, enforce.auth, closes a node without a credential out: " +
                GIVE_CREDENTIAL + ")" : ""), e);
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
                connectWaitMs + " ms" + (options.tls() != null ? " over TLS (is its certificate signed by the CA of " +
                "--zk-tls-ca " + options.tls().ca() + ", for the host connected to, and does it listen with TLS " +
                "there" + (options.tls().clientCertificate() ? "" : "; does it ask for a client certificate " +
                "(--zk-tls-cert, --zk-tls-key)") + "?)" : " (plaintext: if ZooKeeper listens with TLS there, " +
                "set --zk-tls-ca)"));
        }
        // one request on the raw handle first (no retry): an ensemble that accepts only authenticated sessions
        // (enforce.auth) answers it SessionClosedRequireAuth and closes the connection, which the client may see
        // first (ConnectionLoss, or the session expired); start() words each
        client.getZookeeperClient().getZooKeeper().exists("/", false);
        ZkLockdown.apply(client, options);
        final int negotiated = client.getZookeeperClient().getZooKeeper().getSessionTimeout();
        if (negotiated != options.sessionTimeoutMs())
        {
            LOG.log(WARNING, "node " + self.id() + ": ZooKeeper negotiated a session timeout of " + negotiated +
                " ms, not the " + options.sessionTimeoutMs() + " ms asked for: the fencing bounds follow " +
                negotiated + " ms (every node of a cluster must have the same)");
        }
        currency.bounds(FencingBounds.ofMillis(negotiated, currency.bounds().heartbeatIntervalNanos()));
        trustedSession = client.getZookeeperClient().getZooKeeper().getSessionId();
        final long probeMs = Math.max(1, TimeUnit.NANOSECONDS.toMillis(currency.bounds().probeIntervalNanos()));
        probes.scheduleAtFixedRate(this::probe, 0, probeMs, TimeUnit.MILLISECONDS);
        LOG.log(INFO, "node " + self.id() + ": fencing bounds " + currency.bounds());
        settings = ClusterJoin.ensureConfig(client, options);
        ClusterJoin.waitOutEarlierSelf(client, options, self);
        coordinator = new Coordinator(client, work, self.id(), settings.replicas(), settings.partitions(),
            options.settleMs(), () -> currency.bounds().promotionWaitNanos(), this::heldMap, this::refuse,
            options.moveStuckMs());
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
        // and below moves (reports) and rebalance (the operator's request)
        movesCache = CuratorCache.build(client, ZkPaths.MOVES);
        movesCache.listenable().addListener((type, before, after) -> coordinator.poke());
        movesCache.start();
        // and below load (index segments over the growth threshold)
        loadCache = CuratorCache.build(client, ZkPaths.LOAD);
        loadCache.listenable().addListener((type, before, after) -> coordinator.poke());
        loadCache.start();
        requestCache = CuratorCache.build(client, ZkPaths.REBALANCE_REQUEST);
        requestCache.listenable().addListener((type, before, after) -> coordinator.poke());
        requestCache.start();
        // and the growth switch (rebalance/auto)
        autoCache = CuratorCache.build(client, ZkPaths.REBALANCE_AUTO);
        autoCache.listenable().addListener((type, before, after) -> coordinator.poke());
        autoCache.start();
        // and the drains (drain/<id>)
        drainCache = CuratorCache.build(client, ZkPaths.DRAIN);
        drainCache.listenable().addListener((type, before, after) -> coordinator.poke());
        drainCache.start();
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

    /**
     * One round trip to ZooKeeper (an exists of the root, on the raw handle: no retry, no other session): when it
     * succeeds in the trusted session, the node is confirmed current as of its sending.
     */
    private void probe()
    {
        try
        {
            final org.apache.zookeeper.ZooKeeper zk = client.getZookeeperClient().getZooKeeper();
            final long session = zk.getSessionId();
            final long sentAt = System.nanoTime();
            zk.exists("/", false, (rc, path, ctx, stat) ->
            {
                if (rc == KeeperException.Code.OK.intValue() && session == trustedSession && session != 0)
                {
                    currency.confirmed(sentAt);
                }
            }, null);
        }
        catch (final Exception e)
        {
            // not connected now: nothing confirmed; the next probe tries again
        }
    }

    /**
     * The connection is up in a session other than the trusted one: the old session expired, and the node may
     * have been replaced meanwhile. It serves nothing until its member znode is back under the new session and
     * it has applied the newest map written before that ({@link #rejoin}): a coordinator promotes a successor
     * only with the gone node's member znode absent (checked in the same transaction as the map write), so no
     * map written after that can replace it while this session lives.
     */
    private void onNewSession(final long session)
    {
        synchronized (vouchLock)
        {
            trustedSession = session;
            rejoinEpoch = Long.MAX_VALUE;
            currency.vouched(false);
        }
        LOG.log(WARNING, "node " + self.id() + ": ZooKeeper session expired; serving nothing until it is registered " +
            "again and has the newest map");
        Thread.ofVirtual().name("rdmakv-zk-rejoin-" + self.id()).start(() -> rejoin(session));
    }

    /** See {@link #onNewSession}: waits for the member znode under {@code session}, then reads the newest map. */
    private void rejoin(final long session)
    {
        while (!closed.get() && trustedSession == session)
        {
            try
            {
                final Stat stat = client.checkExists().forPath(ZkPaths.member(self.id()));
                if (stat != null && stat.getEphemeralOwner() == session)
                {
                    client.sync().forPath(ZkPaths.MAP);
                    // the epoch any map at the znode's version has (MapCheck): a forged epoch cannot set the bar
                    final Stat mapStat = client.checkExists().forPath(ZkPaths.MAP);
                    final long newestEpoch = mapStat == null ? 0 : mapStat.getVersion() + 1L;
                    synchronized (vouchLock)
                    {
                        if (trustedSession == session)
                        {
                            rejoinEpoch = newestEpoch;
                            if (appliedEpoch != 0 && appliedEpoch >= rejoinEpoch)
                            {
                                currency.vouched(vouches(appliedIncarnation));
                            }
                        }
                    }
                    LOG.log(INFO, "node " + self.id() + ": registered again under a new ZooKeeper session; the newest " +
                        "map is epoch " + newestEpoch);
                    return;
                }
            }
            catch (final Exception e)
            {
                LOG.log(DEBUG, "node " + self.id() + ": rejoining: " + e);
            }
            try
            {
                Thread.sleep(50);
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** Whether a map that places this node under {@code placed} (null: in no group) vouches for it. */
    private boolean vouches(final Long placed)
    {
        return placed == null || placed == self.incarnation();
    }

    private void onConnectionState(final ConnectionState state)
    {
        final boolean up = state.isConnected();
        connected = up;
        currency.connected(up);
        if (up && trustedSession != 0)
        {
            try
            {
                final long session = client.getZookeeperClient().getZooKeeper().getSessionId();
                if (session != 0 && session != trustedSession)
                {
                    onNewSession(session);
                }
            }
            catch (final Exception e)
            {
                LOG.log(WARNING, "node " + self.id() + ": cannot read its ZooKeeper session: " + e);
            }
        }
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
        final int version = data.getStat() == null ? -1 : data.getStat().getVersion();
        final StoredMap stored;
        try
        {
            stored = StoredMap.fromJson(data.getData());
        }
        catch (final IllegalArgumentException e)
        {
            refuse(new MapCheck.Refusal(MapRefusal.UNREADABLE, e.getMessage()), version);
            return;
        }
        final ClusterMap map = stored.map();
        synchronized (mapLock)
        {
            if (closed.get())
            {
                return;
            }
            if (stored.equals(heldMap))
            {
                return;
            }
            final MapCheck.Refusal refusal = MapCheck.check(settings, stored, version, heldMap);
            if (refusal != null)
            {
                refuse(refusal, version);
                return;
            }
            heldMap = stored;
            deliveredEpoch = map.epoch();
            currentMap = map;
            final Long placed = stored.incarnations().get(self.id());
            deliver(() ->
            {
                listener.onMap(map);
                synchronized (vouchLock)
                {
                    appliedEpoch = map.epoch();
                    appliedIncarnation = placed;
                    currency.vouched(map.epoch() >= rejoinEpoch && vouches(placed));
                }
            });
        }
        final Coordinator c = coordinator;
        if (c != null)
        {
            c.poke();
        }
    }

    /**
     * A map this node will not apply, seen by its map watch or by its coordinator: logged, told to the listener (it
     * counts it), and the held map kept; once per znode version, whoever saw it first.
     */
    private void refuse(final MapCheck.Refusal refusal, final int version)
    {
        synchronized (refusedLock)
        {
            if (version >= 0 && version == lastRefusedVersion)
            {
                return;
            }
            lastRefusedVersion = version;
        }
        final Coordinator c = coordinator;
        if (c != null)
        {
            c.poke();
        }
        REFUSALS_LOG.log(WARNING, refusal.reason().label(), "node " + self.id() + ": refusing the cluster map at " +
            "version " + version + " of the map znode, " + refusal + "; keeping epoch " + deliveredEpoch + " (a map " +
            "no coordinator writes: check who can write /rdmakv/" + options.clusterName() + ")");
        deliver(() -> listener.onMapRefused(refusal.reason(), refusal.detail()));
    }

    /** The last map this node accepted, with its incarnations (null: none yet); the coordinator plans from it. */
    StoredMap heldMap()
    {
        synchronized (mapLock)
        {
            return heldMap;
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
        OwnZnode.write(client, ZkPaths.sync(self.id()), json);
    }

    /** Writes this node's move reports ({@code moves/<id>}); the caller writes again after each map it applies. */
    public MoveReporter moveReporter()
    {
        return new ZkMoveReporter(client, self.id());
    }

    /**
     * Reports this node's index segments at or above the growth threshold in {@code load/<id>} from now on, as
     * {@link LoadReporter} says, from {@code loads} (the census's last count), on a thread of its own.
     */
    public void reportLoad(final java.util.function.Supplier<io.rdmakv.server.space.SegmentLoads> loads)
    {
        final LoadReporter reporter = new LoadReporter(self.id(), loads, new LoadReporter.Sink()
        {
            @Override
            public void write(final io.rdmakv.server.cluster.map.LoadReport report) throws Exception
            {
                OwnZnode.write(client, ZkPaths.load(self.id()), report.toJson());
            }

            @Override
            public void delete() throws Exception
            {
                try
                {
                    client.delete().forPath(ZkPaths.load(self.id()));
                }
                catch (final KeeperException.NoNodeException e)
                {
                    // gone with an expired session
                }
            }
        });
        try
        {
            loadReports.scheduleWithFixedDelay(() ->
            {
                try
                {
                    reporter.tick(System.nanoTime());
                }
                catch (final RuntimeException e)
                {
                    LOG.log(WARNING, "node " + self.id() + ": load report: " + e, e); // and on at the next tick
                }
            }, LoadReporter.TICK_MILLIS,
                LoadReporter.TICK_MILLIS, TimeUnit.MILLISECONDS);
        }
        catch (final RejectedExecutionException e)
        {
            // closed
        }
    }

    /**
     * Takes the operator's REBALANCE on this node ({@code kvctl rebalance}): writes or judges {@code rebalance/request}
     * against {@link #currentMap} and {@link #liveMembers}. The caller closes it.
     */
    public ZkRebalanceDesk rebalanceDesk()
    {
        return new ZkRebalanceDesk(client, this::currentMap, this::liveMembers, self.id());
    }

    /**
     * The live members as this node's watch of {@code members/} sees them now (each one's znode; an unreadable one,
     * or one under another id's name, is left out as the coordinator leaves it out); empty before the watch starts.
     */
    public List<MemberInfo> liveMembers()
    {
        final CuratorCache cache = membersCache;
        final List<MemberInfo> live = new ArrayList<>();
        if (cache == null)
        {
            return live;
        }
        cache.stream().forEach(data ->
        {
            final String path = data.getPath();
            if (!path.startsWith(ZkPaths.MEMBERS + "/") || data.getData() == null)
            {
                return;
            }
            try
            {
                final MemberInfo m = MemberInfo.fromJson(data.getData());
                if (path.equals(ZkPaths.member(m.id())))
                {
                    live.add(m);
                }
            }
            catch (final IllegalArgumentException e)
            {
                // the coordinator logs it
            }
        });
        live.sort(java.util.Comparator.comparingInt(MemberInfo::id));
        return live;
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
        quietly(movesCache);
        quietly(loadCache);
        loadReports.shutdownNow();
        quietly(requestCache);
        quietly(autoCache);
        quietly(drainCache);
        quietly(membersCache);
        quietly(mapCache);
        quietly(memberNode);
        work.shutdownNow();
        probes.shutdownNow();
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
