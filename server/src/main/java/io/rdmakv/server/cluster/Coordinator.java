package io.rdmakv.server.cluster;

import io.rdmakv.common.cluster.ClusterMap;
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
 * The coordinator: while this node leads, it reads the members, the sync reports and the map, asks {@link
 * MapPlanner} for the next map and writes it with a versioned {@code setData} (or creates it), until the
 * planner has nothing more to change. A write refused because the map's version moved (someone else wrote)
 * is not an error: the coordinator reads again and plans from what is there.
 *
 * <p>It runs on the membership's single work thread; any change of the members, the reports or the map
 * ({@link CuratorCache} events), becoming leader and a reconnection {@link #poke} it; pokes while a run is
 * queued fold into that run. Right after becoming leader it plans every change but creation; the first map
 * is created only {@code settleMs} later, so that nodes starting together land in one map.
 */
final class Coordinator implements AutoCloseable
{
    private static final System.Logger LOG = System.getLogger(Coordinator.class.getName());
    private static final long RETRY_MS = 500;
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
    private volatile boolean leading;
    private volatile boolean closed;
    private volatile long leaderSinceNanos;
    /** Runs before each map write (tests: to write the map under the coordinator's feet). */
    volatile Runnable beforeWrite = () -> { };

    Coordinator(final CuratorFramework client, final ScheduledExecutorService work, final int nodeId,
        final int replicas, final int partitions, final long settleMs)
    {
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
        leaderSinceNanos = System.nanoTime();
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
            final StoredMap stored = readMap(stat);
            final ClusterMap current = stored == null ? null : stored.map();
            final MapPlanner.Plan plan = MapPlanner.next(current, stored == null ? Map.of() : stored.incarnations(),
                replicas, partitions, readMembers(), readReports(), settled);
            if (plan == null)
            {
                return;
            }
            beforeWrite.run();
            final byte[] json = plan.stored().toJson();
            try
            {
                if (stored == null)
                {
                    client.create().forPath(ZkPaths.MAP, json);
                }
                else
                {
                    client.setData().withVersion(stat.getVersion()).forPath(ZkPaths.MAP, json);
                }
            }
            catch (final KeeperException.BadVersionException | KeeperException.NodeExistsException e)
            {
                refusedWrites.incrementAndGet();
                LOG.log(INFO, "coordinator: the map changed since it was read (" + e.code() + "): planning again");
                continue;
            }
            mapsWritten.incrementAndGet();
            failovers.addAndGet(plan.failovers());
            LOG.log(INFO, "cluster map epoch " + plan.map().epoch() + ": " + plan.change());
        }
    }

    private StoredMap readMap(final Stat stat) throws Exception
    {
        try
        {
            return StoredMap.fromJson(client.getData().storingStatIn(stat).forPath(ZkPaths.MAP));
        }
        catch (final KeeperException.NoNodeException e)
        {
            return null;
        }
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
