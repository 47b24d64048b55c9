package io.rdmakv.server.cluster;

import io.rdmakv.server.cluster.map.MemberInfo;
import io.rdmakv.server.cluster.map.SyncPhase;
import io.rdmakv.server.cluster.zk.ZkOptions;
import io.rdmakv.server.config.ServerConfig;

import java.util.concurrent.atomic.AtomicReference;

/**
 * A node started with {@code --zookeeper}: its {@link NodeRole}, its membership (register, elect,
 * coordinate, watch) and its currency ({@link NodeCurrency}, watched by {@link CurrencyWatch}, which fences
 * every session when it lapses), started together and closed together. Closing leaves the cluster first (the
 * member znode goes, so the coordinator fails over after the promotion wait instead of the session timeout),
 * then stops the copy worker; it also takes the operator's REBALANCE ({@link ZkRebalanceDesk}). A node stops serving
 * before it closes this ({@code io.rdmakv.server.KvServer#withdraw}).
 *
 */
public final class ZooKeeperNode implements AutoCloseable
{
    private final NodeRole role;
    private final CurrencyWatch watch;
    private final ZkMembership membership;
    /** The operator's REBALANCE on this node ({@code kvctl rebalance}). */
    private final ZkRebalanceDesk rebalance;

    private ZooKeeperNode(final NodeRole role, final CurrencyWatch watch, final ZkMembership membership,
        final ZkRebalanceDesk rebalance)
    {
        this.role = role;
        this.watch = watch;
        this.membership = membership;
        this.rebalance = rebalance;
    }

    /**
     * Joins the cluster of {@code config.zookeeper()} with {@code server}: the node is in no map (HELLO refused,
     * not ready) until the coordinator places it.
     */
    public static ZooKeeperNode start(final ServerConfig config, final MemberNode server) throws Exception
    {
        final AtomicReference<SyncReporter> reports = new AtomicReference<>();
        final AtomicReference<MoveReporter> moveReports = new AtomicReference<>();
        final NodeRole role = NodeRole.withMoves(server, copier(server), (group, epoch, finalPass) ->
        {
            final SyncReporter to = reports.get();
            if (to == null)
            {
                throw new IllegalStateException("membership is still starting");
            }
            to.report(group, epoch, finalPass);
        }, (epoch, batches) ->
        {
            final MoveReporter to = moveReports.get();
            if (to == null)
            {
                throw new IllegalStateException("membership is still starting");
            }
            to.report(epoch, batches);
        });
        final NodeCurrency currency = new NodeCurrency(FencingBounds.ofMillis(config.zookeeper().sessionTimeoutMs(),
            config.heartbeatIntervalNanos()));
        // not current (HELLO refused, heartbeats unanswered) until the membership has confirmed its session
        server.followCurrency(currency::current, currency::why);
        role.followCurrency(server::serving);
        final CurrencyWatch watch = new CurrencyWatch(currency, server::selfFence, config.nodeId());
        try
        {
            final ZkMembership membership = membership(config, server, role, reports, moveReports, currency);
            membership.reportLoad(server::segmentLoads);
            final ZkRebalanceDesk rebalance = membership.rebalanceDesk();
            server.useRebalance(rebalance);
            return new ZooKeeperNode(role, watch, membership, rebalance);
        }
        catch (final Exception | Error e)
        {
            watch.close();
            role.close();
            throw e;
        }
    }

    /** The maps this node applied and its role in them (readiness, metrics). */
    public NodeRole role()
    {
        return role;
    }

    /**
     * Starts ZooKeeper membership for {@code role} (register, elect, coordinate, watch) and sets how sync reports
     * reach the coordinator.
     */
    private static ZkMembership membership(final ServerConfig config, final MemberNode server, final NodeRole role,
        final AtomicReference<SyncReporter> reports, final AtomicReference<MoveReporter> moveReports,
        final NodeCurrency currency) throws java.io.IOException
    {
        final ServerConfig.ZooKeeper zk = config.zookeeper();
        final ZkMembership m = ZkMembership.start(
            ZkOptions.of(zk.connect(), zk.clusterName(), zk.replicas()).withPartitions(zk.partitions())
                .withSessionTimeoutMs(zk.sessionTimeoutMs())
                .withCredentials(zk.credentials()).withTls(zk.tls()).withMoveStuckMs(zk.moveStuckMs()),
            new MemberInfo(config.nodeId(),
                config.advertiseHost() != null ? config.advertiseHost() : config.listenHost(),
                config.advertisePort() != 0 ? config.advertisePort() : server.port(),
                MemberInfo.geometry(config.memoryBytes(), config.chunkSize()), INCARNATION),
            role, currency);
        reports.set((g, e, f) -> m.reportSync(g, e, f ? SyncPhase.FINAL : SyncPhase.BULK));
        moveReports.set(m.moveReporter());
        return m;
    }

    /** Chosen once per process: a node that restarts comes back empty, under another incarnation. */
    private static final long INCARNATION = new java.security.SecureRandom().nextLong();

    /** One diff pass against the primary, refused while the primary serves an older map than {@code epoch}. */
    private static CopyPass copier(final MemberNode server)
    {
        return (primary, epoch) -> server.regionCopier().pass(primary, epoch).slotsChanged();
    }

    @Override
    public void close()
    {
        try
        {
            rebalance.close();
            membership.close();
        }
        catch (final Exception e)
        {
            System.getLogger(ZooKeeperNode.class.getName()).log(System.Logger.Level.WARNING,
                "leaving ZooKeeper: " + e.getMessage());
        }
        finally
        {
            watch.close();
            role.close();
        }
    }
}
