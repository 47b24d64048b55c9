package io.rdmakv.server.cluster;

import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.ClusterNode;
import io.rdmakv.server.cluster.map.ClusterSettings;
import io.rdmakv.server.cluster.map.LoadReport;
import io.rdmakv.server.cluster.map.MapCheck;
import io.rdmakv.server.cluster.map.MapPlanner;
import io.rdmakv.server.cluster.map.MapRefusal;
import io.rdmakv.server.cluster.map.MemberInfo;
import io.rdmakv.server.cluster.map.MoveReport;
import io.rdmakv.server.cluster.map.MoveRequest;
import io.rdmakv.server.cluster.map.RebalanceSwitch;
import io.rdmakv.server.cluster.map.StoredMap;
import io.rdmakv.server.cluster.map.SyncReport;
import io.rdmakv.server.cluster.zk.ZkPaths;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static java.lang.System.Logger.Level.INFO;
import static java.lang.System.Logger.Level.WARNING;

/**
 * The coordinator: while this node leads, it reads the members, the sync reports, the move reports
 * ({@code moves/<id>}), the load reports ({@code load/<id>}), the operator's move request ({@code rebalance/request}), the growth switch ({@code
 * rebalance/auto}, {@link RebalanceSwitch}), the drains ({@code drain/<id>}) and the map, asks {@link
 * MapPlanner} for the next map and writes it with a versioned {@code setData} (or creates it), until the
 * planner has nothing more to change. A write refused because the map's version moved (someone else wrote)
 * is not an error: the coordinator reads again and plans from what is there.
 *
 * <p>It runs on the membership's single work thread; any change of the members, the reports or the map
 * ({@link CuratorCache} events), becoming leader and a reconnection {@link #poke} it; pokes while a run is
 * queued fold into that run. Right after becoming leader it plans every change but creation; the first map
 * is created only {@code settleMs} later, so that nodes starting together land in one map.
 *
 * <p>A map that takes a place from an unregistered node (a group's primary away: a failover, or the group lost; a
 * member or copying node out of its group; a node out of the map) is written only once the promotion wait
 * ({@link FencingBounds#promotionWaitNanos()}) has passed since this coordinator first planned it, in one
 * transaction that fails if any of those nodes registered again meanwhile ({@link #goneMembers}). By then a gone
 * primary has fenced itself and every read lease it granted has ended, so nobody reads or writes it after its
 * successor serves; and a node that only changed sessions keeps its place. Other changes are written at once.
 *
 * <p>It plans only from a map that keeps {@link MapCheck}'s rules, checked against the last map it accepted (or
 * its node holds). Over one that breaks them it writes that last map back, two epochs up, and plans from there
 * (every node refuses the broken map too, and counts it).
 */
final class Coordinator implements AutoCloseable
{
    private static final System.Logger LOG = System.getLogger(Coordinator.class.getName());
    private static final long RETRY_MS = 500;
    /** Refused maps and restores, at most one line each every 10 s (a writer may repeat them). */
    private static final io.rdmakv.common.RateLimitedLog REFUSALS_LOG =
        new io.rdmakv.common.RateLimitedLog(LOG, 10, TimeUnit.SECONDS);
    private static final int MAX_ROUNDS = 100;

    private final CuratorFramework client;
    private final ScheduledExecutorService work;
    private final int nodeId;
    private final int replicas;
    private final int partitions;
    private final long settleMs;
    private final AtomicBoolean queued = new AtomicBoolean();
    private final AtomicLong failovers = new AtomicLong();
    private final AtomicLong refusedWrites = new AtomicLong();
    private final AtomicLong mapsWritten = new AtomicLong();
    private final AtomicLong restores = new AtomicLong();
    private final ClusterSettings settings;
    private final java.util.function.Supplier<StoredMap> held;
    /** Told of each map this coordinator refuses, with its znode version (its node counts it, once per version). */
    private final java.util.function.BiConsumer<MapCheck.Refusal, Integer> refused;
    /** The last map this coordinator read and accepted, or wrote (work thread only). */
    private StoredMap accepted;
    private volatile boolean leading;
    private volatile boolean closed;
    private volatile long leaderSinceNanos;
    private final java.util.function.LongSupplier promotionWaitNanos;
    /** When a map that takes a place from an unregistered node was first planned and not yet written (0: none pending); work thread only. */
    private volatile long removalPlannedAtNanos;
    /** How long a batch may stay in one phase before SWITCH before this coordinator aborts it; 0: never. */
    private final long moveStuckNanos;
    /**
     * Per batch before SWITCH in the last map read: its phase and when this coordinator first saw it in that phase
     * (work thread only). A new coordinator starts the clocks afresh: a stuck batch is aborted later, never sooner.
     */
    private final Map<Long, PhaseSeen> phaseSince = new java.util.HashMap<>();
    /** Whether a poke for the next stuck deadline is scheduled (work thread only). */
    private boolean stuckCheckScheduled;
    /** Runs before each map write (tests: to write the map under the coordinator's feet). */
    volatile Runnable beforeWrite = () -> { };

    /** @param moveStuckMs how long a batch may stay in one phase before SWITCH before it is aborted; 0: never */
    Coordinator(final CuratorFramework client, final ScheduledExecutorService work, final int nodeId,
        final int replicas, final int partitions, final long settleMs,
        final java.util.function.LongSupplier promotionWaitNanos, final java.util.function.Supplier<StoredMap> held,
        final java.util.function.BiConsumer<MapCheck.Refusal, Integer> refused, final long moveStuckMs)
    {
        this.moveStuckNanos = TimeUnit.MILLISECONDS.toNanos(moveStuckMs);
        this.refused = refused;
        this.settings = new ClusterSettings(replicas, partitions);
        this.held = held;
        this.promotionWaitNanos = promotionWaitNanos;
        this.client = client;
        this.work = work;
        this.nodeId = nodeId;
        this.replicas = replicas;
        this.partitions = partitions;
        this.settleMs = settleMs;
    }

    /** This node became leader. */
    void lead()
    {
        schedule(phaseSince::clear, 0);
        leaderSinceNanos = System.nanoTime();
        removalPlannedAtNanos = 0;
        leading = true;
        LOG.log(INFO, "node " + nodeId + " is the coordinator");
        poke();
        schedule(this::poke, settleMs);
    }

    /** This node is no longer leader (or its connection is suspended). */
    void stepDown()
    {
        if (leading)
        {
            leading = false;
            LOG.log(INFO, "node " + nodeId + " is no longer the coordinator");
        }
    }

    boolean leading()
    {
        return leading;
    }

    /** Something changed: plan (soon, on the work thread) if this node leads. */
    void poke()
    {
        if (leading && !closed && queued.compareAndSet(false, true))
        {
            try
            {
                work.execute(this::run);
            }
            catch (final RejectedExecutionException e)
            {
                queued.set(false);
            }
        }
    }

    long failovers()
    {
        return failovers.get();
    }

    /** Map writes refused because the map changed since it was read. */
    long refusedWrites()
    {
        return refusedWrites.get();
    }

    long mapsWritten()
    {
        return mapsWritten.get();
    }

    /** Refused maps this coordinator wrote the last accepted map over. */
    long restores()
    {
        return restores.get();
    }

    @Override
    public void close()
    {
        closed = true;
        leading = false;
    }

    private void run()
    {
        queued.set(false);
        if (!leading || closed)
        {
            return;
        }
        try
        {
            coordinate();
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
        catch (final Exception e)
        {
            if (!closed)
            {
                LOG.log(WARNING, "coordinator: " + e + "; trying again in " + RETRY_MS + " ms");
                schedule(this::poke, RETRY_MS);
            }
        }
    }

    private void coordinate() throws Exception
    {
        final boolean settled = System.nanoTime() - leaderSinceNanos >= TimeUnit.MILLISECONDS.toNanos(settleMs);
        for (int round = 0; round < MAX_ROUNDS && leading && !closed; round++)
        {
            final Stat stat = new Stat();
            final byte[] raw = readMap(stat);
            final StoredMap stored = raw == null ? null : checked(raw, stat.getVersion());
            if (raw != null && stored == null)
            {
                if (!restore(stat.getVersion()))
                {
                    return;
                }
                continue;
            }
            final ClusterMap current = stored == null ? null : stored.map();
            final List<MemberInfo> live = readMembers();
            final MoveRequest request = readRequest();
            final java.util.Set<Integer> draining = readDraining();
            final List<LoadReport> loads = readLoadReports();
            final java.util.Set<Long> stuck = stuck(current);
            final MapPlanner.Plan plan = MapPlanner.next(current, stored == null ? Map.of() : stored.incarnations(),
                replicas, partitions, live, readReports(), readMoveReports(), request, settled, readAuto(), draining,
                loads, stuck);
            if (plan == null)
            {
                removalPlannedAtNanos = 0;
                final String refusal = MapPlanner.requestRefusal(current, live, request, draining);
                if (refusal != null)
                {
                    REFUSALS_LOG.log(WARNING, "request", "coordinator: the move request (" + ZkPaths.REBALANCE_REQUEST +
                        " version " + request.version() + ") waits: " + refusal);
                }
                final String stalled = MapPlanner.drainStalled(current, draining);
                if (stalled != null)
                {
                    REFUSALS_LOG.log(WARNING, "drain", "coordinator: " + stalled);
                }
                final String growth = MapPlanner.growthStalled(current, live, loads, draining);
                if (growth != null)
                {
                    REFUSALS_LOG.log(WARNING, "growth", "coordinator: " + growth);
                }
                return;
            }
            final List<Integer> gone = goneMembers(current, plan.map(), live);
            if (!gone.isEmpty() && !promotionWaitOver(plan))
            {
                return;
            }
            beforeWrite.run();
            final byte[] json = plan.stored().after(stored).toJson();
            try
            {
                if (stored == null)
                {
                    client.create().forPath(ZkPaths.MAP, json);
                }
                else
                {
                    write(stat.getVersion(), json, gone, plan.tookRequest() ? request.version() : -1);
                }
            }
            catch (final KeeperException.BadVersionException | KeeperException.NodeExistsException |
                KeeperException.NoNodeException e)
            {
                refusedWrites.incrementAndGet();
                LOG.log(INFO, "coordinator: the map changed since it was read (" + e.code() + "): planning again");
                continue;
            }
            mapsWritten.incrementAndGet();
            failovers.addAndGet(plan.failovers());
            if (!gone.isEmpty())
            {
                removalPlannedAtNanos = 0;
            }
            LOG.log(INFO, "cluster map epoch " + plan.map().epoch() + ": " + plan.change());
        }
    }

    /**
     * Writes the map over version {@code version}; for each of {@code gone} (nodes this map takes a place from
     * that are not registered), in the same transaction, creates and deletes its member znode: the write fails with
     * NodeExists if one came back meanwhile, so a node registered under a live session is never replaced
     * (a node whose session expired counts on it: {@code ZkMembership#onNewSession}). A map that acts on the move
     * request ({@code requestVersion} at least 0) deletes it at that version in the same transaction, so a request
     * is acted on once (a changed one fails the write, and is planned from again).
     */
    private void write(final int version, final byte[] json, final List<Integer> gone, final int requestVersion)
        throws Exception
    {
        if (gone.isEmpty() && requestVersion < 0)
        {
            client.setData().withVersion(version).forPath(ZkPaths.MAP, json);
            return;
        }
        final List<org.apache.curator.framework.api.transaction.CuratorOp> ops = new ArrayList<>();
        for (final int id : gone)
        {
            ops.add(client.transactionOp().create().withMode(org.apache.zookeeper.CreateMode.EPHEMERAL)
                .forPath(ZkPaths.member(id)));
            ops.add(client.transactionOp().delete().forPath(ZkPaths.member(id)));
        }
        if (requestVersion >= 0)
        {
            ops.add(client.transactionOp().delete().withVersion(requestVersion).forPath(ZkPaths.REBALANCE_REQUEST));
        }
        ops.add(client.transactionOp().setData().withVersion(version).forPath(ZkPaths.MAP, json));
        client.transaction().forOperations(ops);
    }

    /**
     * The nodes of {@code current} that {@code next} takes a place from (a primary replaced or its group lost, a
     * member or copying node dropped from its group, a node dropped from the map) and that are not registered now.
     * All of them, not only primaries: a node whose ZooKeeper session expired while it was cut off, or while
     * ZooKeeper itself was down (whose restart brings the old sessions back only to expire them a session timeout
     * later), registers again under its new session a round trip after its old member znode vanishes; a map read
     * in between must not cost it its place, nor the group a full copy onto a spare.
     */
    static List<Integer> goneMembers(final ClusterMap current, final ClusterMap next, final List<MemberInfo> live)
    {
        final List<Integer> gone = new ArrayList<>();
        if (current == null || current.isSimple())
        {
            return gone;
        }
        for (final ClusterNode node : current.nodes())
        {
            final int id = node.id();
            if (live.stream().anyMatch(m -> m.id() == id))
            {
                continue;
            }
            if (next.nodes().stream().noneMatch(n -> n.id() == id) || losesPlace(current, next, id))
            {
                gone.add(id);
            }
        }
        return gone;
    }

    /** Whether {@code next} drops node {@code id} from a group {@code current} has it in, or takes its primacy. */
    private static boolean losesPlace(final ClusterMap current, final ClusterMap next, final int id)
    {
        for (final io.rdmakv.common.cluster.ReplicaGroup before : current.groups())
        {
            if (before.lost() || !before.contains(id))
            {
                continue;
            }
            for (final io.rdmakv.common.cluster.ReplicaGroup after : next.groups())
            {
                if (after.id() == before.id() && (!after.contains(id) || after.lost() ||
                    (before.primary() == id && after.primary() != id)))
                {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * Whether the promotion wait has passed since a map that takes a place from an unregistered node was first
     * planned; if not, plans again when it will have.
     */
    private boolean promotionWaitOver(final MapPlanner.Plan plan)
    {
        final long now = System.nanoTime();
        if (removalPlannedAtNanos == 0)
        {
            removalPlannedAtNanos = now;
            LOG.log(INFO, "coordinator: " + plan.change() + " — writing it in " +
                TimeUnit.NANOSECONDS.toMillis(promotionWaitNanos.getAsLong()) + " ms (the promotion wait: the " +
                "gone primary has fenced itself and its read leases have ended by then, and a node that registers " +
                "again meanwhile keeps its place)");
        }
        final long left = removalPlannedAtNanos + promotionWaitNanos.getAsLong() - now;
        if (left > 0)
        {
            schedule(this::poke, Math.max(1, TimeUnit.NANOSECONDS.toMillis(left) + 1));
            return false;
        }
        return true;
    }

    private byte[] readMap(final Stat stat) throws Exception
    {
        try
        {
            return client.getData().storingStatIn(stat).forPath(ZkPaths.MAP);
        }
        catch (final KeeperException.NoNodeException e)
        {
            return null;
        }
    }

    /**
     * The map read at {@code version} when it keeps {@link MapCheck}'s rules against the last map this coordinator
     * accepted (or, if newer, the one its node holds); null when it breaks one (logged).
     */
    private StoredMap checked(final byte[] raw, final int version)
    {
        final StoredMap known = known();
        MapCheck.Refusal refusal;
        StoredMap stored = null;
        try
        {
            stored = StoredMap.fromJson(raw);
            refusal = stored.equals(known) ? null : MapCheck.check(settings, stored, version, known);
        }
        catch (final IllegalArgumentException e)
        {
            refusal = new MapCheck.Refusal(MapRefusal.UNREADABLE, e.getMessage());
        }
        if (refusal != null)
        {
            // counted and logged as its node's refusal: a map restored before any node's watch read it is still
            // refused somewhere, so rdmakv_cluster_maps_refused_total and its alert see every forged map
            refused.accept(refusal, version);
            return null;
        }
        accepted = stored;
        return stored;
    }

    private StoredMap known()
    {
        final StoredMap mine = accepted;
        final StoredMap held = this.held.get();
        if (mine == null)
        {
            return held;
        }
        return held == null || held.map().epoch() <= mine.map().epoch() ? mine : held;
    }

    /**
     * Writes the last map accepted over a refused one at {@code version}: the same groups, two epochs up (one
     * for the refused write), recorded as replacing itself, so that every node can check the step. False when
     * there is none to restore (the refused map stays, counted and logged by every node, until a coordinator
     * that holds a map, or an operator, writes one); planned again later.
     */
    private boolean restore(final int version) throws Exception
    {
        final StoredMap known = known();
        if (known == null)
        {
            LOG.log(WARNING, "coordinator: no earlier map to restore over the refused one; waiting");
            schedule(this::poke, RETRY_MS);
            return false;
        }
        final StoredMap base = known.withoutPrevious();
        final StoredMap restored = base.withEpoch(version + 2L).after(base.withEpoch(version + 1L));
        try
        {
            client.setData().withVersion(version).forPath(ZkPaths.MAP, restored.toJson());
        }
        catch (final KeeperException.BadVersionException e)
        {
            refusedWrites.incrementAndGet();
            return true;
        }
        restores.incrementAndGet();
        accepted = restored;
        REFUSALS_LOG.log(WARNING, "restored", "coordinator: restored the map of epoch " + base.map().epoch() +
            " as epoch " + restored.map().epoch() + " over the refused one");
        return true;
    }

    private List<MemberInfo> readMembers() throws Exception
    {
        final List<MemberInfo> live = new ArrayList<>();
        for (final String child : children(ZkPaths.MEMBERS))
        {
            final byte[] data = dataOrNull(ZkPaths.MEMBERS + "/" + child);
            if (data == null)
            {
                continue;
            }
            try
            {
                final MemberInfo m = MemberInfo.fromJson(data);
                if (!Integer.toString(m.id()).equals(child))
                {
                    throw new IllegalArgumentException("member znode " + child + " says it is node " + m.id());
                }
                live.add(m);
            }
            catch (final IllegalArgumentException e)
            {
                LOG.log(WARNING, "coordinator: ignoring member " + child + ": " + e.getMessage());
            }
        }
        return live;
    }

    private List<SyncReport> readReports() throws Exception
    {
        final List<SyncReport> reports = new ArrayList<>();
        for (final String child : children(ZkPaths.SYNC))
        {
            final byte[] data = dataOrNull(ZkPaths.SYNC + "/" + child);
            if (data == null)
            {
                continue;
            }
            try
            {
                reports.add(SyncReport.fromJson(Integer.parseInt(child), data));
            }
            catch (final IllegalArgumentException e)
            {
                LOG.log(WARNING, "coordinator: ignoring sync report " + child + ": " + e.getMessage());
            }
        }
        return reports;
    }

    /** Every node's move report ({@code moves/<id>}); unreadable ones are logged and skipped. */
    private List<MoveReport> readMoveReports() throws Exception
    {
        final List<MoveReport> reports = new ArrayList<>();
        for (final String child : children(ZkPaths.MOVES))
        {
            final byte[] data = dataOrNull(ZkPaths.MOVES + "/" + child);
            if (data == null)
            {
                continue;
            }
            try
            {
                reports.add(MoveReport.fromJson(Integer.parseInt(child), data));
            }
            catch (final IllegalArgumentException e)
            {
                REFUSALS_LOG.log(WARNING, "moves/" + child, "coordinator: ignoring move report " + child + ": " +
                    e.getMessage());
            }
        }
        return reports;
    }

    /** Every node's load report ({@code load/<id>}); unreadable ones are logged and skipped. */
    private List<LoadReport> readLoadReports() throws Exception
    {
        final List<LoadReport> reports = new ArrayList<>();
        for (final String child : children(ZkPaths.LOAD))
        {
            final byte[] data = dataOrNull(ZkPaths.LOAD + "/" + child);
            if (data == null)
            {
                continue;
            }
            try
            {
                reports.add(LoadReport.fromJson(Integer.parseInt(child), data));
            }
            catch (final IllegalArgumentException e)
            {
                REFUSALS_LOG.log(WARNING, "load/" + child, "coordinator: ignoring load report " + child + ": " +
                    e.getMessage());
            }
        }
        return reports;
    }

    /** The operator's move request, or null (none, or unreadable: logged). */
    private MoveRequest readRequest() throws Exception
    {
        final Stat stat = new Stat();
        final byte[] data;
        try
        {
            data = client.getData().storingStatIn(stat).forPath(ZkPaths.REBALANCE_REQUEST);
        }
        catch (final KeeperException.NoNodeException e)
        {
            return null;
        }
        try
        {
            return MoveRequest.fromJson(stat.getVersion(), data);
        }
        catch (final IllegalArgumentException e)
        {
            REFUSALS_LOG.log(WARNING, "request", "coordinator: ignoring the move request in " +
                ZkPaths.REBALANCE_REQUEST + ": " + e.getMessage());
            return null;
        }
    }

    /** The ids of the nodes being drained: the children of {@code drain} named by a node id (others logged). */
    private java.util.Set<Integer> readDraining() throws Exception
    {
        final java.util.Set<Integer> draining = new java.util.TreeSet<>();
        for (final String child : children(ZkPaths.DRAIN))
        {
            try
            {
                draining.add(Integer.parseInt(child));
            }
            catch (final NumberFormatException e)
            {
                REFUSALS_LOG.log(WARNING, "drain/" + child, "coordinator: ignoring " + ZkPaths.DRAIN + "/" + child +
                    ": not a node id");
            }
        }
        return draining;
    }

    /** The growth switch ({@code rebalance/auto}): off when absent or unreadable (logged). */
    private boolean readAuto() throws Exception
    {
        final byte[] data = dataOrNull(ZkPaths.REBALANCE_AUTO);
        if (data == null)
        {
            return false;
        }
        try
        {
            return RebalanceSwitch.isOn(data);
        }
        catch (final IllegalArgumentException e)
        {
            REFUSALS_LOG.log(WARNING, "auto", "coordinator: taking " + ZkPaths.REBALANCE_AUTO + " as off: " +
                e.getMessage());
            return false;
        }
    }

    private List<String> children(final String path) throws Exception
    {
        try
        {
            return client.getChildren().forPath(path);
        }
        catch (final KeeperException.NoNodeException e)
        {
            return List.of();
        }
    }

    private byte[] dataOrNull(final String path) throws Exception
    {
        try
        {
            return client.getData().forPath(path);
        }
        catch (final KeeperException.NoNodeException e)
        {
            return null;
        }
    }

    /**
     * The batches of {@code current} before SWITCH that have stayed in their phase at least {@code --move-stuck-ms}
     * since this coordinator first saw them in it; schedules a poke for the earliest deadline still to come, so that
     * a batch nobody reports on is still found. Work thread only.
     */
    private java.util.Set<Long> stuck(final ClusterMap current)
    {
        if (moveStuckNanos == 0 || current == null || current.isSimple())
        {
            phaseSince.clear();
            return java.util.Set.of();
        }
        final long now = System.nanoTime();
        final java.util.Set<Long> seen = new java.util.HashSet<>();
        final java.util.Set<Long> stuck = new java.util.TreeSet<>();
        long nextDeadline = Long.MAX_VALUE;
        for (final io.rdmakv.common.cluster.MoveBatch b : current.moves().batches())
        {
            if (!b.phase().beforeSwitch())
            {
                continue;
            }
            seen.add(b.id());
            final PhaseSeen since = phaseSince.get(b.id());
            if (since == null || since.phase() != b.phase())
            {
                phaseSince.put(b.id(), new PhaseSeen(b.phase(), now));
                nextDeadline = Math.min(nextDeadline, now + moveStuckNanos);
            }
            else if (now - since.nanos() >= moveStuckNanos)
            {
                stuck.add(b.id());
                LOG.log(WARNING, "coordinator: " + b + " has been in " + b.phase() + " for " +
                    TimeUnit.NANOSECONDS.toMillis(now - since.nanos()) + " ms (--move-stuck-ms " +
                    TimeUnit.NANOSECONDS.toMillis(moveStuckNanos) + "): aborting it");
            }
            else
            {
                nextDeadline = Math.min(nextDeadline, since.nanos() + moveStuckNanos);
            }
        }
        phaseSince.keySet().retainAll(seen);
        if (nextDeadline != Long.MAX_VALUE && !stuckCheckScheduled)
        {
            stuckCheckScheduled = true;
            schedule(() ->
            {
                stuckCheckScheduled = false;
                poke();
            }, Math.max(1, TimeUnit.NANOSECONDS.toMillis(nextDeadline - now) + 1));
        }
        return stuck;
    }

    /** A batch's phase and when this coordinator first saw it there ({@link System#nanoTime}). */
    private record PhaseSeen(io.rdmakv.common.cluster.MovePhase phase, long nanos)
    {
    }

    private void schedule(final Runnable task, final long delayMs)
    {
        try
        {
            work.schedule(task, delayMs, TimeUnit.MILLISECONDS);
        }
        catch (final RejectedExecutionException e)
        {
            // closing
        }
    }
}
