package io.rdmakv.server;

import io.rdmakv.common.SpaceTiming;
import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.ClusterNode;
import io.rdmakv.common.cluster.InvalidClusterMapException;
import io.rdmakv.common.layout.KvBlockDescriptor;
import io.rdmakv.common.layout.IndexSegments;
import io.rdmakv.common.layout.RegionGeometry;
import io.rdmakv.common.protocol.HelloMessage;
import io.rdmakv.common.protocol.HelloOkMessage;
import io.rdmakv.common.protocol.wire.ClusterMapCodec;
import io.rdmakv.common.protocol.wire.ReasonCode;
import io.rdmakv.server.bootstrap.Admission;
import io.rdmakv.server.bootstrap.AuthThrottle;
import io.rdmakv.server.bootstrap.BootstrapListener;
import io.rdmakv.server.bootstrap.ConnectionLimit;
import io.rdmakv.server.bootstrap.BootstrapTls;
import io.rdmakv.server.cluster.ClusterMembership;
import io.rdmakv.server.cluster.MapApplier;
import io.rdmakv.server.cluster.MoveMarks;
import io.rdmakv.server.cluster.MemberNode;
import io.rdmakv.server.config.ProtectedMode;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.server.health.NodeHealth;
import io.rdmakv.server.control.ChainHelp;
import io.rdmakv.server.control.ChainSweeps;
import io.rdmakv.server.control.FinishRule;
import io.rdmakv.server.control.FreezeDecisions;
import io.rdmakv.server.control.ControlAgent;
import io.rdmakv.server.control.CountingErrorHandler;
import io.rdmakv.server.control.DamageScan;
import io.rdmakv.server.control.GrantWindows;
import io.rdmakv.server.control.Scrubs;
import io.rdmakv.server.control.ServerCounter;
import io.rdmakv.server.control.ServerCounters;
import io.rdmakv.server.control.SlotRepair;
import io.rdmakv.server.metrics.MeteredNode;
import io.rdmakv.server.region.MemoryBudget;
import io.rdmakv.server.region.MemoryWindowProbe;
import io.rdmakv.server.region.Region;
import io.rdmakv.server.space.CpuIndexAtomics;
import io.rdmakv.server.space.DataAreaAllocator;
import io.rdmakv.server.space.IndexAtomics;
import io.rdmakv.server.space.IndexScanner;
import io.rdmakv.server.space.LockSweeper;
import io.rdmakv.server.space.LoopbackIndexAtomics;
import io.rdmakv.server.space.SegmentMarks;
import io.rdmakv.server.space.WatchedSegments;
import io.rdmakv.server.space.LiveBlockCheck;
import io.rdmakv.server.replication.BackupScrub;
import io.rdmakv.server.replication.ReplicaGrants;
import io.rdmakv.server.replication.BackupSweep;
import io.rdmakv.server.replication.PartitionFreezer;
import io.rdmakv.server.replication.PartitionMoves;
import io.rdmakv.server.replication.RegionCopier;
import io.rdmakv.verbs.CompletionQueue;
import io.rdmakv.verbs.Context;
import io.rdmakv.verbs.ProtectionDomain;
import io.rdmakv.verbs.Providers;
import io.rdmakv.verbs.VerbsConfig;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.SystemNanoClock;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One rdmakv node: its region, the transport, the bootstrap listener and the control agent. Clients
 * read and write the region with one-sided RDMA; this process only grants and reclaims space.
 */
public final class KvServer implements AutoCloseable, MemberNode, MeteredNode
{
    private static final System.Logger LOG = System.getLogger(KvServer.class.getName());
    private static final int CONTROL_CQ_CAPACITY = 1 << 16;

    private final ServerConfig config;
    /** The map HELLO_OK carries now; null while a node of a ZooKeeper cluster is in no map (HELLO refused). */
    private volatile ClusterMap clusterMap;
    /** The last map applied, listing this node or not (its moves are compared with the next map's). */
    private ClusterMap applied;
    /** The retired segments marked at the last map applied (a log line says when they change). */
    private long[] lastMoved = new long[0];
    /** How long {@link #apply} waits for the control agent to fence and rebuild before it gives up. */
    private static final long APPLY_TIMEOUT_SECONDS = 60;
    private final BootstrapListener listener;
    private final Context context;
    private final ProtectionDomain pd;
    private final Region region;
    private final io.rdmakv.server.region.MapArea mapArea;
    private final CompletionQueue cq;
    private final ServerCounters counters = new ServerCounters();
    private final NodeHealth health = new NodeHealth();
    private final Admission admission;
    private final SessionOpener opener;
    private final RdmaCmSessions cmSessions;
    private final ControlAgent agent;
    private final IndexScanner scanner;
    /** The applied map's index segments of this node's partitions (the whole index without a table). */
    private final IndexSegments segments;
    private final IndexAtomics atomics;
    private final LockSweeper sweeper;
    private final ChainSweeps sweeps;
    private final PartitionMoves moves;
    private final Scrubs scrubs;
    private final ReplicaGrants replicaGrants;
    private final io.rdmakv.server.replication.MoverGrants moverGrants;
    /** This node's grant of its data area to its own peer traffic: the scrub's, and the partition copier's. */
    private final io.rdmakv.server.replication.NodeGrant nodeGrant;
    private final AgentRunner agentRunner;
    private final Thread agentThread;
    private final boolean memoryWindows;
    /** Whether clients send their index CASes to this node (SLOT_CAS) instead of CASing it themselves. */
    private final boolean nodeAssistedWrites;
    private volatile boolean shuttingDown;
    /** Whether this node may serve (a node of a ZooKeeper cluster: {@code NodeCurrency}); always, otherwise. */
    private volatile java.util.function.BooleanSupplier current = () -> true;
    private volatile java.util.function.Supplier<String> notCurrentWhy = () -> "current";
    private int closeFailures;
    private boolean closed;
    private RegionCopier copier;

    private KvServer(final ServerConfig config) throws IOException
    {
        checkLease(config);
        ProtectedMode.check(config);
        this.config = config;
        final BootstrapTls tls = config.tls() == null ? null : BootstrapTls.from(config.tls());
        final RegionGeometry geometry = RegionGeometry.forMemory(config.memoryBytes(), config.chunkSize());
        MemoryBudget.system().check(config.memoryBytes(), Runtime.getRuntime().maxMemory());
        BootstrapListener bound = null;
        Context opened = null;
        ProtectionDomain allocated = null;
        Region created = null;
        io.rdmakv.server.region.MapArea createdMapArea = null;
        CompletionQueue createdCq = null;
        IndexAtomics createdAtomics = null;
        RdmaCmSessions cm = null;
        try
        {
            bound = new BootstrapListener(new InetSocketAddress(config.listenHost(), config.listenPort()), tls,
                config.leaseTimeoutNanos(), BootstrapListener.DEFAULT_HELLO_TIMEOUT, this::openSession, health,
                new ConnectionLimit(config.effectiveMaxConnections()));
            this.clusterMap = config.zookeeper() != null ? null : loadClusterMap(config, bound.port());
            final String misfit = clusterMap == null ? null :
                IndexSegments.misfit(clusterMap, config.nodeId(), geometry.groupCount());
            if (misfit != null)
            {
                throw new InvalidClusterMapException("cluster map of epoch " + clusterMap.epoch() + ": " + misfit);
            }
            opened = Providers.open(config.transport(), new VerbsConfig(config.device(), config.devicePort(),
                tcpBindHost(config)));
            nodeAssistedWrites = writePath(config, opened.attributes().atomicCapability());
            cm = RdmaCmSessions.listenIfUsed(config, opened);
            allocated = opened.allocateProtectionDomain();
            // in a replicated group, backups bind windows over their primary's grants (ReplicaWindows)
            memoryWindows = MemoryWindowProbe.decide(config.memoryWindows(), allocated, opened.providerName());
            created = new Region(allocated, geometry, config.nodeId(), config.hugePages(), memoryWindows);
            createdMapArea = new io.rdmakv.server.region.MapArea(allocated, created.segment());
            createdCq = opened.createCompletionQueue(Math.min(CONTROL_CQ_CAPACITY, opened.attributes().maxCqe()));
            // node-assisted: no client (and, unreplicated, no peer) CASes the index with RDMA, so the CPU's CAS is atomic
            createdAtomics = !nodeAssistedWrites &&
                LoopbackIndexAtomics.neededFor(opened.providerName(), opened.attributes().atomicCapability()) ?
                new LoopbackIndexAtomics(allocated, created.segment(), created.indexRegion()) :
                new CpuIndexAtomics(created.segment());
        }
        catch (final IOException | RuntimeException e)
        {
            closeQuietly(createdAtomics);
            closeQuietly(createdCq);
            closeQuietly(createdMapArea);
            closeQuietly(created);
            closeQuietly(allocated);
            closeQuietly(cm);
            closeQuietly(opened);
            closeQuietly(bound);
            throw e;
        }
        listener = bound;
        context = opened;
        pd = allocated;
        region = created;
        mapArea = createdMapArea;
        if (clusterMap != null)
        {
            mapArea.publish(clusterMap); // a static map: before the listener starts
        }
        cq = createdCq;
        atomics = createdAtomics;
        cmSessions = cm;
        final DataAreaAllocator allocator = new DataAreaAllocator(geometry.dataLength(), KvBlockDescriptor.ALIGNMENT,
            config.graceNanos(), SpaceTiming.reclaimQuarantineNanos(config.graceNanos()));
        scanner = new IndexScanner(atomics, geometry);
        segments = IndexSegments.whole(geometry);
        if (clusterMap != null)
        {
            segments.use(clusterMap, config.nodeId()); // a static map's segment table, as a ZooKeeper map's
        }
        agent = new ControlAgent(cq, allocator, scanner, new LiveBlockCheck(region.segment(), geometry, segments),
            new SlotRepair(region.segment(), geometry, segments, atomics, config.graceNanos(), counters,
                SystemNanoClock.INSTANCE),
            new DamageScan(region.segment(), geometry, atomics, counters), geometry, counters,
            SystemNanoClock.INSTANCE, config.sessionQuotaFor(geometry.dataLength()),
            new GrantWindows(pd, region.dataRegion(), memoryWindows, counters));
        agent.useSlotCas(atomics, geometry, nodeAssistedWrites);
        final FinishRule finishRule = new FinishRule(region.segment(), geometry, segments, allocator, agent::isLive);
        agent.useChainHelp(new ChainHelp(geometry, segments, atomics, finishRule, counters));
        final BackupSweep backupSweep = new BackupSweep(context, pd, geometry, atomics, config, () -> this.clusterMap);
        sweeps = new ChainSweeps(backupSweep, agent::execute, counters);
        moverGrants = new io.rdmakv.server.replication.MoverGrants(allocator, agent::execute, SystemNanoClock.INSTANCE);
        agent.useChainSweeps(sweeps);
        moves = new PartitionMoves(new PartitionFreezer(pd, geometry, atomics, backupSweep,
            new FreezeDecisions(finishRule, atomics, agent::execute)), sweeps,
            new SegmentMarks(region.segment(), geometry, atomics));
        final BackupScrub scrub = new BackupScrub(context, pd, geometry, atomics, region.segment(), config,
            () -> this.clusterMap, this::grantedToLiveSession);
        nodeGrant = scrub.nodeGrant();
        scrubs = new Scrubs(scrub, config.scrubIntervalNanos(), agent::execute, counters);
        agent.useScrubs(scrubs);
        replicaGrants = new ReplicaGrants(context, pd, geometry, config, () -> this.clusterMap);
        agent.useReplicaGrants(replicaGrants, scrub.writerId(), scrub.grantSecret(), geometry.dataLength());
        agentRunner = new AgentRunner(agent.idleStrategy(),
            new CountingErrorHandler(counters, ServerCounter.AGENT_ERRORS, "control agent"), null, agent);
        agentThread = AgentRunner.startOnThread(agentRunner);
        sweeper = new LockSweeper(scanner, agent::isLive, agent::staleLocksCleared, config.leaseTimeoutNanos())
            .start();
        admission = new Admission(config.authToken(), context.providerName(),
            config.effectiveMaxConnections());
        if (cmSessions != null)
        {
            cmSessions.start(agent);
        }
        opener = new SessionOpener(config, pd, cq, region, agent, () -> this.clusterMap, this::serving,
            nodeAssistedWrites, cmSessions, mapArea);
        context.onFatal(health::fatal);
        scrubs.start();
        listener.start();
    }

    /** For the scrub: whether a data-area range is a live session's grant (asked of the agent; unsure: yes). */
    private boolean grantedToLiveSession(final long offset, final long length)
    {
        try
        {
            return agent.grantedToLiveSession(offset, length).get(APPLY_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            return true;
        }
        catch (final ExecutionException | TimeoutException e)
        {
            return true;
        }
    }

    /** This node's part in moving partitions: the freeze and the local marks (the move role drives them; tests too). */
    public PartitionMoves partitionMoves()
    {
        return moves;
    }

    /** Runs a scrub of the backups now (this node a primary with backups; else nothing): {@code kvctl scrub}. */
    public CompletableFuture<Scrubs.Pass> scrubNow()
    {
        return scrubs.now();
    }

    /**
     * Starts a node. Fails with a one-line reason: memory too small or not allocatable, a busy port,
     * a transport that cannot open, a cluster map that does not list this node, a TLS file that cannot be
     * used ({@link io.rdmakv.common.tls.TlsSetupException}), a non-loopback address with authentication off
     * ({@link ProtectedMode.RefusedException}).
     */
    public static KvServer start(final ServerConfig config) throws IOException
    {
        return new KvServer(config);
    }

    /**
     * Whether clients write node-assisted ({@code --write-path} against the device's atomic capability). Refuses
     * one-sided on a device without remote atomics, and node-assisted in a replicated cluster: there the group's
     * primary CASes its backups' index words with RDMA (its sweep and scrub), which such a device cannot take.
     */
    private static boolean writePath(final ServerConfig config, final String atomicCapability)
    {
        final boolean nodeAssisted = config.writePath().nodeAssistedOn(atomicCapability);
        if (nodeAssisted && config.zookeeper() != null)
        {
            throw new IllegalArgumentException("the node-assisted write path (--write-path " +
                config.writePath().label() + ", device atomics " + atomicCapability + ") is not supported in a " +
                "replicated cluster (--zookeeper) yet: a primary CASes its backups' index with RDMA atomics");
        }
        return nodeAssisted;
    }

    /** Whether clients send their index CASes to this node as SLOT_CAS (HELLO_OK says so). */
    public boolean nodeAssistedWrites()
    {
        return nodeAssistedWrites;
    }

    /** Heartbeats must come well inside the lease: at least two per timeout. */
    private static void checkLease(final ServerConfig config)
    {
        if (config.heartbeatIntervalNanos() <= 0 || config.leaseTimeoutNanos() <= 0 ||
            config.heartbeatIntervalNanos() >= config.leaseTimeoutNanos() / 2 ||
            TimeUnit.NANOSECONDS.toMillis(config.heartbeatIntervalNanos()) < 1)
        {
            throw new IllegalArgumentException("heartbeat interval " + config.heartbeatIntervalNanos() +
                " ns must be at least 1 ms and below half the lease timeout (" + config.leaseTimeoutNanos() + " ns)");
        }
    }

    private static String tcpBindHost(final ServerConfig config)
    {
        return "0.0.0.0".equals(config.listenHost()) || "::".equals(config.listenHost()) ? "0.0.0.0" :
            config.listenHost();
    }

    private static ClusterMap loadClusterMap(final ServerConfig config, final int port)
    {
        if (config.clusterFile() == null)
        {
            return ClusterMap.of(0, List.of(new ClusterNode(config.nodeId(), config.listenHost(), port)));
        }
        return fitsHelloOk(ClusterMembership.load(config.clusterFile(), config.nodeId(),
            config.advertiseHost() == null ? config.listenHost() : config.advertiseHost(),
            config.advertisePort() != 0 ? config.advertisePort() : config.listenPort() == 0 ? port : config.listenPort()));
    }

    private static ClusterMap fitsHelloOk(final ClusterMap map)
    {
        final int length = ClusterMapCodec.encodedLength(map);
        if (length > HelloOkMessage.MAX_CLUSTER_MAP_LENGTH)
        {
            throw new InvalidClusterMapException("cluster map of " + length + " bytes (binary) is over the " +
                HelloOkMessage.MAX_CLUSTER_MAP_LENGTH + " a HELLO_OK carries");
        }
        return map;
    }

    private BootstrapListener.Outcome openSession(final HelloMessage hello, final Socket socket)
    {
        if (shuttingDown)
        {
            return Admission.refused(ReasonCode.SHUTTING_DOWN, "node " + config.nodeId() + " is shutting down");
        }
        if (!current.getAsBoolean())
        {
            return Admission.refused(ReasonCode.NOT_CURRENT, "node " + config.nodeId() + " cannot confirm it is " +
                "current in its cluster (" + notCurrentWhy.get() + "): ask another node");
        }
        final BootstrapListener.Outcome refusal = admission.refusal(hello, socket);
        return refusal != null ? refusal : opener.open(hello, socket);
    }

    public int port()
    {
        return listener.port();
    }

    /** Whether grants are written through memory windows ({@code --memory-windows} and the device). */
    public boolean memoryWindows()
    {
        return memoryWindows;
    }

    public ServerConfig config()
    {
        return config;
    }

    @Override
    public void reportMovesWith(final io.rdmakv.server.control.MoveProgressSource source)
    {
        agent.useMoveProgress(source);
    }

    @Override
    public void useRebalance(final io.rdmakv.server.control.RebalanceDesk desk)
    {
        agent.useRebalance(desk);
    }

    /** The map served in HELLO_OK now; null while a node of a ZooKeeper cluster is in no map. */
    public ClusterMap clusterMap()
    {
        return clusterMap;
    }

    @Override
    public int nodeId()
    {
        return config.nodeId();
    }

    /**
     * Applies a map learnt from ZooKeeper ({@link MapApplier#apply}): the control agent fences every session
     * of an older epoch (and rebuilds the allocator when asked) before the map is served, so no session of
     * the new epoch is admitted before that.
     */
    @Override
    public int apply(final ClusterMap map, final boolean rebuildAllocator) throws InterruptedException
    {
        fitsHelloOk(map); // before anything is fenced: a map HELLO_OK cannot carry is not applied
        final String misfit = IndexSegments.misfit(map, config.nodeId(), segments.groupCount());
        if (misfit != null)
        {
            // likewise: a map whose segments this index cannot hold is not applied
            throw new InvalidClusterMapException("cluster map of epoch " + map.epoch() + ": " + misfit);
        }
        final int fenced;
        try
        {
            fenced = agent.applyEpoch(map.fenceEpoch(), rebuildAllocator).get(APPLY_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        }
        catch (final ExecutionException | TimeoutException e)
        {
            throw new IllegalStateException("the control agent could not apply the map of epoch " + map.epoch() +
                ": " + e, e);
        }
        // before the map is served: sessions of its epoch find their keys in its segments, and find the segments its
        // moves retired marked MOVED and those they opened (or abandoned) free of MOVING
        segments.use(map, config.nodeId());
        final WatchedSegments watched = WatchedSegments.of(map, config.nodeId());
        agent.watchSegments(watched.epoch(), watched.partitions(), watched.segments());
        mark(MoveMarks.between(applied, map, config.nodeId()), map.epoch());
        applied = map;
        // the map area (and the region header's map_epoch) first: a heartbeat answer or HELLO_OK naming this epoch
        // lets a client READ the map from it
        mapArea.publish(map);
        clusterMap = map.node(config.nodeId()) == null ? null : map;
        return fenced;
    }

    /** Makes {@code marks} on this node's own index (applying the map of {@code epoch}, before serving it). */
    private void mark(final MoveMarks marks, final long epoch)
    {
        if (marks.isEmpty())
        {
            lastMoved = marks.moved();
            return;
        }
        for (int i = 0; i < marks.moved().length; i++)
        {
            moves.markMoved(marks.moved()[i], marks.movedEpochs()[i]);
        }
        long opened = 0;
        for (final long segment : marks.opened())
        {
            opened += moves.clearMoving(segment);
        }
        if (marks.opened().length > 0 || !java.util.Arrays.equals(marks.moved(), lastMoved))
        {
            LOG.log(System.Logger.Level.INFO, "map of epoch " + epoch + ": " + marks.moved().length +
                " retired segment(s) of this node's group marked MOVED, " + marks.opened().length +
                " segment(s) opened after a move (" + opened + " frozen slot(s) cleared)");
        }
        lastMoved = marks.moved();
    }

    /**
     * Serves only while {@code current} says so: HELLO is refused with {@code NOT_CURRENT} (saying {@code why}),
     * heartbeats are not answered (clients' read leases run out), and a session registered while it is false is
     * fenced at once. {@link #selfFence} fences those already open when it lapses. Call before clients come.
     */
    public void followCurrency(final java.util.function.BooleanSupplier current,
        final java.util.function.Supplier<String> why)
    {
        this.current = current;
        this.notCurrentWhy = why;
        agent.admitOnlyWhile(this::serving);
    }

    /** Whether the node serves now: not shutting down, and current. */
    public boolean serving()
    {
        return !shuttingDown && current.getAsBoolean();
    }

    /**
     * Fences every session now (queue pairs to ERR, windows revoked, their unreferenced space reclaimed), because
     * the node cannot vouch for what it serves: {@code why}. Waits for the control agent (bounded).
     *
     * @return the sessions fenced, or -1 when the agent did not answer in time
     */
    public int selfFence(final String why)
    {
        try
        {
            return agent.fenceAll(why).get(APPLY_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            return -1;
        }
        catch (final ExecutionException | TimeoutException e)
        {
            LOG.log(System.Logger.Level.ERROR, "cannot fence the sessions (" + why + "): " + e, e);
            return -1;
        }
    }

    /**
     * Stops serving ahead of a shutdown, before the node leaves its cluster: HELLO refused, heartbeats unanswered,
     * every session fenced. So the node serves nobody once its successor can be promoted.
     */
    public void withdraw()
    {
        shuttingDown = true;
        agent.execute(agent::announceShutdown);
        selfFence("the node is shutting down");
    }

    /** Sessions fenced because a map of a newer epoch was applied. */
    public long sessionsFencedByEpoch()
    {
        return counters.get(ServerCounter.SESSIONS_FENCED_BY_EPOCH);
    }

    public RegionGeometry geometry()
    {
        return region.geometry();
    }

    public String transport()
    {
        return context.providerName();
    }

    /** The limit on bootstrap connections held at once, and its count of connections refused. */
    public ConnectionLimit connectionLimit()
    {
        return listener.limit();
    }

    /** Failed and throttled authentications. */
    public AuthThrottle authThrottle()
    {
        return admission.throttle();
    }

    /** Whether the node's listeners can serve; fatal errors are reported here. */
    public NodeHealth health()
    {
        return health;
    }

    public ServerCounters counters()
    {
        return counters;
    }

    /**
     * Connections the transport refused while setting them up (tcp: failed handshake checks and handshakes
     * past their deadline; ibverbs: 0), see {@link Context#rejectedConnections()}.
     */
    public long rejectedConnections()
    {
        return context.rejectedConnections();
    }

    @Override
    public long oldestClientEpoch()
    {
        return agent.lowestReportedEpoch(mapArea.epoch());
    }

    /** The node's map area (tests). */
    public io.rdmakv.server.region.MapArea mapArea()
    {
        return mapArea;
    }

    @Override
    public int sessionCount()
    {
        return agent.sessionCount();
    }

    public long freeBytes()
    {
        return counters.get(ServerCounter.FREE_BYTES);
    }

    /** How the node changes index words clients CAS: {@code cpu} or {@code loopback} (through the NIC). */
    public String indexAtomics()
    {
        return atomics instanceof LoopbackIndexAtomics ? "loopback" : "cpu";
    }

    /** Sweeps the index for stale insert locks now (besides the periodic sweep); returns those cleared. */
    public int sweepStaleLocks()
    {
        return sweeper.sweep();
    }

    /** The name of the opened device, e.g. {@code mlx5_0}, {@code rxe0}, {@code tcp0}. */
    public String deviceName()
    {
        return context.deviceName();
    }

    /** What the opened device can do: atomics, port state, link layer. */
    public io.rdmakv.verbs.DeviceAttributes deviceAttributes()
    {
        return context.attributes();
    }

    /** Whether the region was mapped for transparent huge pages and the kernel accepted the advice. */
    public boolean hugePagesAdvised()
    {
        return region.hugePagesAdvised();
    }

    /** Bytes of the data area freed or reclaimed and waiting out the grace period (or quarantine). */
    public long graceBytes()
    {
        return counters.get(ServerCounter.GRACE_BYTES);
    }

    /** Freed blocks and reclaimed ranges waiting out the grace period (or quarantine). */
    public long graceRanges()
    {
        return counters.get(ServerCounter.GRACE_RANGES);
    }

    /** Extents (chunks) granted since start. */
    public long grantedExtents()
    {
        return counters.get(ServerCounter.GRANTED_EXTENTS);
    }

    /**
     * The used slots of each segment of a partition this node's group owns, on its primary, from the last census
     * pass ({@code SegmentLoads.NONE} elsewhere): what {@code load/<id>} reports (docs/growth.md §11).
     */
    @Override
    public io.rdmakv.server.space.SegmentLoads segmentLoads()
    {
        return agent.segmentLoads();
    }

    /**
     * Used index slots, counted by walking the whole index now (O(index size): callers cache it). 0 once
     * the node is closed.
     */
    public synchronized long usedSlots()
    {
        return closed ? 0 : scanner.usedSlots();
    }

    /**
     * Shuts down: stops accepting, tells connected clients (SHUTDOWN), closes their sessions,
     * deregisters the memory and releases the device. Bounded: a few hundred milliseconds.
     */
    @Override
    public synchronized void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        shuttingDown = true;
        listener.close();
        sweeper.close();
        agent.execute(agent::announceShutdown);
        try
        {
            TimeUnit.MILLISECONDS.sleep(100);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
        release(scrubs); // before the agent: a pass may be asking it about grants
        release(replicaGrants);
        // Stops the loop (without waiting out the agent's sleep); the agent's onClose departs every session
        // still open, on the agent's thread.
        agent.prepareToStop();
        release(agentRunner);
        if (!agent.isClosed() && !agentThread.isAlive())
        {
            agent.onClose(); // the loop ended with an Error, before the runner could close the agent
        }
        listener.closeConnections();
        release(cmSessions); // after the sessions closed their connections
        release(sweeps);
        release(moves);
        release(copier);
        release(atomics);
        release(cq);
        release(mapArea);
        release(region);
        release(pd);
        release(context);
    }

    /** {@link #closeQuietly}, counting in {@link #closeFailures} what could not be released. */
    private void release(final AutoCloseable c)
    {
        if (!closeQuietly(c))
        {
            closeFailures++;
        }
    }

    /**
     * What {@link #close} could not release (each logged as a WARNING): 0 for a clean shutdown. A protection domain
     * that still holds a queue pair or memory, say, because a component returned from its close before its own
     * thread had closed its sessions.
     */
    public synchronized int closeFailures()
    {
        return closeFailures;
    }

    /** Closes {@code c} (if not null); false, logged, when it failed. */
    private static boolean closeQuietly(final AutoCloseable c)
    {
        if (c != null)
        {
            try
            {
                c.close();
            }
            catch (final Exception e)
            {
                LOG.log(System.Logger.Level.WARNING, "closing " + c + ": " + e.getMessage());
                return false;
            }
        }
        return true;
    }

    /**
     * The copier that makes this node's region equal to a primary's (re-replication), created on first use and
     * closed with the node (which stops a pass in progress).
     *
     * @throws IllegalStateException when the node is closed
     */
    public synchronized RegionCopier regionCopier()
    {
        if (closed)
        {
            throw new IllegalStateException("node " + config.nodeId() + " is closed");
        }
        if (copier == null)
        {
            copier = new RegionCopier(context, pd, region.segment(), region.geometry(), segments, config);
        }
        return copier;
    }

    @Override
    public io.rdmakv.server.replication.MoveCopy startCopy(final io.rdmakv.server.replication.PartitionMove move)
    {
        return startPartitionCopy(move);
    }

    @Override
    public void freeze(final long[] segments, final long ticket)
    {
        moves.freeze(segments, ticket);
    }

    @Override
    public void cancelFreezes(final long epoch)
    {
        moves.cancelFreezes(epoch);
    }

    @Override
    public int sessionsBelow(final long epoch)
    {
        return agent.sessionsBelow(epoch);
    }

    @Override
    public int fenceSessionsBelow(final long epoch, final String why)
    {
        try
        {
            return agent.fenceBelow(epoch, why).get(APPLY_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while fencing lagging sessions", e);
        }
        catch (final ExecutionException | TimeoutException e)
        {
            throw new IllegalStateException("the control agent did not fence lagging sessions: " + e, e);
        }
    }

    @Override
    public Reclaimed reclaim(final long segment, final boolean primary)
    {
        final java.util.List<io.rdmakv.server.space.Extent> named = moves.zeroNaming(segment);
        if (!primary)
        {
            return new Reclaimed(named.size(), 0, 0, 0);
        }
        int freed = 0;
        int deferred = 0;
        int refused = 0;
        final int max = io.rdmakv.common.protocol.FreeMessage.MAX_ENTRIES;
        for (int from = 0; from < named.size(); from += max)
        {
            final int n = Math.min(max, named.size() - from);
            final long[] offsets = new long[n];
            final int[] lengths = new int[n];
            for (int i = 0; i < n; i++)
            {
                offsets[i] = named.get(from + i).offset();
                lengths[i] = (int)named.get(from + i).length();
            }
            try
            {
                final io.rdmakv.server.control.ControlAgent.RetiredFrees done =
                    agent.freeRetired(offsets, lengths).get(APPLY_TIMEOUT_SECONDS, TimeUnit.SECONDS);
                freed += done.freed();
                deferred += done.deferred();
                refused += done.refused();
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while freeing a reclaimed segment's blocks", e);
            }
            catch (final ExecutionException | TimeoutException e)
            {
                throw new IllegalStateException("the control agent did not free a reclaimed segment's blocks: " + e, e);
            }
        }
        return new Reclaimed(named.size(), freed, deferred, refused);
    }

    @Override
    public long graceNanos()
    {
        return config.graceNanos();
    }

    /** Starts copying {@code move}'s partitions into this node's group (the move role; tests). */
    public io.rdmakv.server.replication.PartitionCopy startPartitionCopy(
        final io.rdmakv.server.replication.PartitionMove move)
    {
        return new io.rdmakv.server.replication.PartitionCopy(new io.rdmakv.server.replication.PartitionCopier(context,
            pd, region.segment(), region.geometry(), config, nodeGrant, moverGrants, move), moverGrants);
    }
}
