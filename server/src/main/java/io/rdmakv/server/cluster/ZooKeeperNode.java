package io.rdmakv.server.cluster;

import io.rdmakv.server.KvServer;
import io.rdmakv.server.ServerConfig;

import java.util.concurrent.atomic.AtomicReference;

/**
 * A node started with {@code --zookeeper}: its {@link NodeRole} and its membership (register, elect,
 * coordinate, watch), started together and closed together. Closing leaves the cluster first (the member
 * znode goes, so the coordinator fails over at once instead of after the session timeout), then stops the
 * copy worker.
 *
 * <p>The two calls into the other parts of issue 12 are {@link #membership} ({@code ZkMembership.start}) and
 * {@link #copier} ({@code KvServer.regionCopier()}); until those exist in this branch they fail with a clear
 * line, and the node refuses to start with {@code --zookeeper}.
 */
public final class ZooKeeperNode implements AutoCloseable
{
    private final NodeRole role;
    private final AutoCloseable membership;

    private ZooKeeperNode(final NodeRole role, final AutoCloseable membership)
    {
        this.role = role;
        this.membership = membership;
    }

    /**
     * Joins the cluster of {@code config.zookeeper()} with {@code server}: the node is in no map (HELLO refused,
     * not ready) until the coordinator places it.
     */
    public static ZooKeeperNode start(final ServerConfig config, final KvServer server) throws Exception
    {
        final AtomicReference<SyncReporter> reports = new AtomicReference<>();
        final NodeRole role = new NodeRole(server, copier(server), (group, epoch, finalPass) ->
        {
            final SyncReporter to = reports.get();
            if (to == null)
            {
                throw new IllegalStateException("membership is still starting");
            }
            to.report(group, epoch, finalPass);
        });
        try
        {
            return new ZooKeeperNode(role, membership(config, server, role, reports));
        }
        catch (final Exception | Error e)
        {
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
     * Starts ZooKeeper membership for {@code role} and sets how sync reports reach the coordinator. Merged with
     * the membership code, the body is:
     * <pre>
     * final ServerConfig.ZooKeeper zk = config.zookeeper();
     * final ZkMembership m = ZkMembership.start(
     *     ZkOptions.of(zk.connect(), zk.clusterName(), zk.replicas()).withSessionTimeoutMs(zk.sessionTimeoutMs()),
     *     new MemberInfo(config.nodeId(),
     *         config.advertiseHost() != null ? config.advertiseHost() : config.listenHost(),
     *         config.advertisePort() != 0 ? config.advertisePort() : server.port(),
     *         MemberInfo.geometry(config.memoryBytes(), config.chunkSize()), INCARNATION),
     *     role);
     * reports.set((g, e, f) -> m.reportSync(g, e, f ? SyncPhase.FINAL : SyncPhase.BULK));
     * return m;
     * </pre>
     * with {@code INCARNATION} a random long chosen once per process.
     */
    private static AutoCloseable membership(final ServerConfig config, final KvServer server, final NodeRole role,
        final AtomicReference<SyncReporter> reports)
    {
        throw new IllegalStateException("this build has no ZooKeeper membership yet (cluster/ZkMembership): " +
            "--zookeeper " + config.zookeeper().connect() + " cannot be joined");
    }

    /**
     * One diff pass against the primary: {@code (p, epoch) -> server.regionCopier().pass(p).slotsChanged()} once
     * merged (with a check that the primary serves {@code epoch}, see {@link CopyPass#pass}).
     */
    private static CopyPass copier(final KvServer server)
    {
        return (primary, epoch) ->
        {
            throw new IllegalStateException("this build has no region copier yet (replication/RegionCopier)");
        };
    }

    @Override
    public void close()
    {
        try
        {
            membership.close();
        }
        catch (final Exception e)
        {
            System.getLogger(ZooKeeperNode.class.getName()).log(System.Logger.Level.WARNING,
                "leaving ZooKeeper: " + e.getMessage());
        }
        finally
        {
            role.close();
        }
    }
}
