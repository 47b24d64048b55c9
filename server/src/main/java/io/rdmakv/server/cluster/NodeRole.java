package io.rdmakv.server.cluster;

import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.ClusterNode;
import io.rdmakv.common.cluster.ReplicaGroup;
import io.rdmakv.server.cluster.map.MapRefusal;

import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicLong;

/**
 * How a node of a ZooKeeper cluster follows the maps membership hands it ({@link MembershipListener}, on the
 * membership thread, epochs increasing). For each map of a higher epoch than the one applied:
 * <ol>
 *   <li>a copy job under way is abandoned (it must not report for an epoch that is no longer current);</li>
 *   <li>the node applies it ({@link MapApplier#apply}): every session opened under an older epoch is fenced
 *       in one step; if the node became its group's primary (it was not the primary in the map applied
 *       before), the allocator is rebuilt from one index scan first; only then is the map served in
 *       HELLO_OK, or, when the map does not list the node, HELLOs are refused with NOT_IN_CLUSTER;</li>
 *   <li>if the node is copying in its group, it catches up on a worker thread ({@link CopyLoop}) and reports
 *       {@code bulk}, or, once the group is sealed, {@code final};</li>
 *   <li>the primaries of a move batch's two groups act on its phase ({@link MoveRole}: copy, freeze, hand over,
 *       report); what must end before the map's marks (a freeze of an abandoned batch, the hand-over of an opened
 *       one) ends before the map is applied.</li>
 * </ol>
 * A lost ZooKeeper connection is reported here ({@link #zooKeeperConnected}); the node's currency ({@link
 * NodeCurrency}, watched apart) decides whether it serves.
 */
public final class NodeRole implements MembershipListener, ClusterView, AutoCloseable
{
    private static final System.Logger LOG = System.getLogger(NodeRole.class.getName());

    private final MapApplier node;
    private final CopyLoop copies;
    private final MoveRole moves;
    /** Per batch of the applied map: its phase (ordinal) and when this node first applied a map with it so. */
    private volatile java.util.Map<Long, long[]> phaseSince = java.util.Map.of();
    private final AtomicLong failovers = new AtomicLong();
    private final java.util.concurrent.atomic.AtomicLongArray refusedMaps =
        new java.util.concurrent.atomic.AtomicLongArray(MapRefusal.values().length);
    private volatile ClusterMap applied;
    private volatile ReplicaRole role = ReplicaRole.NONE;
    private volatile boolean zooKeeperConnected;
    private volatile java.util.function.BooleanSupplier current = () -> true;

    /**
     * @param node     the node the maps are applied to
     * @param copier   one diff pass against the group's primary (the node's region copier)
     * @param reporter how sync progress reaches the coordinator
     */
    public NodeRole(final MapApplier node, final CopyPass copier, final SyncReporter reporter)
    {
        this(node, copier, reporter, null);
    }

    /**
     * A role that also takes its node's part in partition moves ({@link MoveRole}), reporting through {@code
     * moveReporter}: what {@link ZooKeeperNode} builds; tests that hand maps to nodes themselves build it too.
     */
    public static NodeRole withMoves(final MemberNode node, final CopyPass copier, final SyncReporter reporter,
        final MoveReporter moveReporter)
    {
        final MoveRole moves = new MoveRole(node, node.nodeId(), moveReporter);
        node.reportMovesWith(moves::progress);
        return new NodeRole(node, copier, reporter, moves);
    }

    /**
     * @param node     the node the maps are applied to
     * @param copier   one diff pass against the group's primary (the node's region copier)
     * @param reporter how sync progress reaches the coordinator
     * @param moves    the node's part in partition moves, or null (a node that takes no part: tests)
     */
    NodeRole(final MapApplier node, final CopyPass copier, final SyncReporter reporter, final MoveRole moves)
    {
        this.node = node;
        this.copies = new CopyLoop(copier, reporter);
        this.moves = moves;
    }

    @Override
    public void onMap(final ClusterMap map)
    {
        final ClusterMap previous = applied;
        if (previous != null && map.epoch() <= previous.epoch())
        {
            LOG.log(System.Logger.Level.DEBUG, "map of epoch " + map.epoch() + " ignored: epoch " + previous.epoch() +
                " is applied");
            return;
        }
        final int me = node.nodeId();
        final ReplicaRole next = ReplicaRole.of(map, me);
        final boolean promoted = next == ReplicaRole.PRIMARY && ReplicaRole.of(previous, me) != ReplicaRole.PRIMARY;
        copies.abandon();
        if (moves != null)
        {
            try
            {
                moves.beforeApply(previous, map);
            }
            catch (final RuntimeException e)
            {
                LOG.log(System.Logger.Level.ERROR, "preparing the moves of the map of epoch " + map.epoch() + ": " +
                    e.getMessage() + "; applying it anyway", e);
            }
        }
        final int fenced;
        try
        {
            fenced = node.apply(map, promoted);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            return;
        }
        catch (final RuntimeException e)
        {
            LOG.log(System.Logger.Level.ERROR, "cannot apply the cluster map of epoch " + map.epoch() + ": " +
                e.getMessage() + "; still serving epoch " + epoch(), e);
            return;
        }
        failovers.addAndGet(failoversBetween(previous, map));
        phasesSince(map);
        applied = map;
        role = next;
        LOG.log(System.Logger.Level.INFO, "applied the cluster map of epoch " + map.epoch() + ": node " + me + " is " +
            next + (promoted ? " (allocator rebuilt from the index)" : "") + ", " + fenced +
            " session(s) of older epochs fenced");
        if (moves != null)
        {
            moves.onMap(map);
        }
        if (next == ReplicaRole.COPYING)
        {
            final ReplicaGroup group = map.groupOfNode(me);
            final ClusterNode primary = group.lost() ? null : map.node(group.primary());
            if (primary != null)
            {
                copies.start(group.id(), map.epoch(), group.sealed(),
                    new InetSocketAddress(primary.host(), primary.port()));
            }
        }
    }

    /** Groups whose primary in {@code next} is another node than in {@code previous} (lost groups not counted). */
    static int failoversBetween(final ClusterMap previous, final ClusterMap next)
    {
        if (previous == null || previous.isSimple() || next.isSimple())
        {
            return 0;
        }
        int count = 0;
        for (final ReplicaGroup group : next.groups())
        {
            for (final ReplicaGroup before : previous.groups())
            {
                if (before.id() == group.id() && !before.lost() && !group.lost() && before.primary() != group.primary())
                {
                    count++;
                }
            }
        }
        return count;
    }

    @Override
    public void onMapRefused(final MapRefusal reason, final String detail)
    {
        refusedMaps.incrementAndGet(reason.ordinal());
    }

    @Override
    public long mapsRefused(final MapRefusal reason)
    {
        return refusedMaps.get(reason.ordinal());
    }

    @Override
    public void onZooKeeper(final boolean connected)
    {
        zooKeeperConnected = connected;
        LOG.log(connected ? System.Logger.Level.INFO : System.Logger.Level.WARNING, connected ?
            "ZooKeeper connected" : "ZooKeeper disconnected at the map of epoch " + epoch() + ": the node stops " +
            "serving (it cannot confirm it is current) until it is back");
    }

    /** The map applied last, or null. */
    public ClusterMap applied()
    {
        return applied;
    }

    /** Whether an applied map lists this node (member, copying or spare): the node is ready only then. */
    public boolean inMap()
    {
        return role != ReplicaRole.NONE;
    }

    @Override
    public long epoch()
    {
        final ClusterMap map = applied;
        return map == null ? 0 : map.epoch();
    }

    @Override
    public ReplicaRole role()
    {
        return role;
    }

    @Override
    public boolean zooKeeperConnected()
    {
        return zooKeeperConnected;
    }

    /** Reports currency from {@code current} ({@link NodeCurrency#current()}). */
    public void followCurrency(final java.util.function.BooleanSupplier current)
    {
        this.current = current;
    }

    @Override
    public ClusterMap map()
    {
        return applied;
    }

    @Override
    public boolean current()
    {
        return current.getAsBoolean();
    }

    @Override
    public long copyPasses()
    {
        return copies.passes();
    }

    @Override
    public long copySlots()
    {
        return copies.slots();
    }

    @Override
    public long failovers()
    {
        return failovers.get();
    }

    /** Notes when this node first saw each batch of {@code map} in its phase (membership thread). */
    private void phasesSince(final ClusterMap map)
    {
        final java.util.Map<Long, long[]> next = new java.util.HashMap<>();
        if (!map.isSimple())
        {
            final long now = System.nanoTime();
            for (final io.rdmakv.common.cluster.MoveBatch b : map.moves().batches())
            {
                final long[] seen = phaseSince.get(b.id());
                next.put(b.id(), seen != null && seen[0] == b.phase().ordinal() ? seen :
                    new long[] {b.phase().ordinal(), now});
            }
        }
        phaseSince = next;
    }

    @Override
    public double movePhaseAgeSeconds()
    {
        final long now = System.nanoTime();
        long oldest = 0;
        for (final long[] seen : phaseSince.values())
        {
            oldest = Math.max(oldest, now - seen[1]);
        }
        return oldest / 1e9;
    }

    @Override
    public int partitionsMoving(final boolean asSource)
    {
        final ClusterMap map = applied;
        final ReplicaGroup mine = map == null || map.isSimple() ? null : map.groupOfNode(node.nodeId());
        if (mine == null)
        {
            return 0;
        }
        int count = 0;
        for (final io.rdmakv.common.cluster.MoveBatch b : map.moves().batches())
        {
            if ((asSource ? b.source() : b.target()) == mine.id())
            {
                count += b.size();
            }
        }
        return count;
    }

    @Override
    public long moves(final boolean finished)
    {
        return moves == null ? 0 : finished ? moves.opened() : moves.aborted();
    }

    @Override
    public long moveKeys()
    {
        return moves == null ? 0 : moves.keysCopied();
    }

    @Override
    public long moveBytes()
    {
        return moves == null ? 0 : moves.bytesCopied();
    }

    @Override
    public long moveFreezes()
    {
        return moves == null ? 0 : moves.freezes();
    }

    @Override
    public long moveFreezeNanos()
    {
        return moves == null ? 0 : moves.freezeNanos();
    }

    /** Retired segments this node reclaimed (docs/growth.md §10). */
    public long reclaims()
    {
        return moves == null ? 0 : moves.reclaims();
    }

    /** Blocks of those segments this node freed or deferred as a primary, and those it refused to free. */
    public long reclaimedBlocks(final boolean refused)
    {
        return moves == null ? 0 : refused ? moves.refusedBlocks() : moves.reclaimedBlocks();
    }

    /** Stops the copy worker (the job under way is abandoned). */
    @Override
    public void close()
    {
        copies.close();
        if (moves != null)
        {
            moves.close();
        }
    }
}
