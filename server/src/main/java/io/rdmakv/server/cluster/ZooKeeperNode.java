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
     * Starts ZooKeeper membership for {@code role} (register, elect, coordinate, watch) and sets how sync reports
     * reach the coordinator. Refuses a node whose memory windows are on in a cluster that replicates.
     */
    private static AutoCloseable membership(final ServerConfig config, final KvServer server, final NodeRole role,
        final AtomicReference<SyncReporter> reports) throws java.io.IOException
    {
        final ServerConfig.ZooKeeper zk = config.zookeeper();
        final ZkMembership m = ZkMembership.start(
            ZkOptions.of(zk.connect(), zk.clusterName(), zk.replicas()).withSessionTimeoutMs(zk.sessionTimeoutMs()),
            new MemberInfo(config.nodeId(),
                config.advertiseHost() != null ? config.advertiseHost() : config.listenHost(),
                config.advertisePort() != 0 ? config.advertisePort() : server.port(),
                MemberInfo.geometry(config.memoryBytes(), config.chunkSize()), INCARNATION),
            role);
        if (m.replicas() > 1 && server.memoryWindows())
        {
            m.close();
            throw new IllegalArgumentException("cluster " + zk.clusterName() + " keeps " + m.replicas() +
                " replicas per group: start this node with --replicas " + m.replicas() + " (its data area must be " +
                "writable by every session, which memory windows forbid)");
        }
        reports.set((g, e, f) -> m.reportSync(g, e, f ? SyncPhase.FINAL : SyncPhase.BULK));
        return m;
    }

    /** Chosen once per process: a node that restarts comes back empty, under another incarnation. */
    private static final long INCARNATION = new java.security.SecureRandom().nextLong();

    /** One diff pass against the primary, refused while the primary serves an older map than {@code epoch}. */
    private static CopyPass copier(final KvServer server)
    {
        return (primary, epoch) -> server.regionCopier().pass(primary, epoch).slotsChanged();
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
