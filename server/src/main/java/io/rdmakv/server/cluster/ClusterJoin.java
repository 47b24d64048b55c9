package io.rdmakv.server.cluster;

import io.rdmakv.server.cluster.map.ClusterSettings;
import io.rdmakv.server.cluster.map.MemberInfo;
import io.rdmakv.server.cluster.zk.ZkOptions;
import io.rdmakv.server.cluster.zk.ZkPaths;

import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

import java.io.IOException;
import java.util.concurrent.TimeUnit;

import static java.lang.System.Logger.Level.INFO;
import static java.lang.System.Logger.Level.WARNING;

/** The first steps of joining a cluster: its config (created or followed), and an earlier self waited out. */
final class ClusterJoin
{
    private static final System.Logger LOG = System.getLogger(ClusterJoin.class.getName());

    private ClusterJoin()
    {
    }

    /** Creates {@code config} (and the parents of members and reports) unless there; the settings to follow. */
    static ClusterSettings ensureConfig(final CuratorFramework client, final ZkOptions options) throws Exception
    {
        for (final String parent : new String[] {ZkPaths.MEMBERS, ZkPaths.SYNC, ZkPaths.MOVES, ZkPaths.LOAD})
        {
            try
            {
                client.create().creatingParentsIfNeeded().forPath(parent);
            }
            catch (final KeeperException.NodeExistsException e)
            {
                // created by another node
            }
        }
        final ClusterSettings wanted = new ClusterSettings(options.replicas(), options.partitions());
        try
        {
            client.create().forPath(ZkPaths.CONFIG, wanted.toJson());
            LOG.log(INFO, "created cluster " + options.clusterName() + ": replicas " + wanted.replicas() + ", " +
                wanted.partitions() + " partitions");
            return wanted;
        }
        catch (final KeeperException.NodeExistsException e)
        {
            final ClusterSettings stored;
            try
            {
                stored = ClusterSettings.fromJson(client.getData().forPath(ZkPaths.CONFIG));
            }
            catch (final IllegalArgumentException bad)
            {
                throw new IOException("cluster " + options.clusterName() + ": " + bad.getMessage(), bad);
            }
            if (stored.replicas() != wanted.replicas())
            {
                LOG.log(WARNING, "cluster " + options.clusterName() + " was created with replicas " +
                    stored.replicas() + ": following it, not --replicas " + wanted.replicas());
            }
            if (stored.partitions() != wanted.partitions())
            {
                LOG.log(WARNING, "cluster " + options.clusterName() + " was created with " + stored.partitions() +
                    " partitions: following it, not --partitions " + wanted.partitions());
            }
            return stored;
        }
    }

    /**
     * Waits until no {@code members/<id>} of another incarnation is left: an earlier process with this id
     * whose session has not expired yet. If it is still there well after a session timeout, another live
     * process uses this id: refused.
     */
    static void waitOutEarlierSelf(final CuratorFramework client, final ZkOptions options, final MemberInfo self)
        throws Exception
    {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(2L * options.sessionTimeoutMs() + 2000);
        boolean told = false;
        while (true)
        {
            final Stat stat = new Stat();
            final byte[] data;
            try
            {
                data = client.getData().storingStatIn(stat).forPath(ZkPaths.member(self.id()));
            }
            catch (final KeeperException.NoNodeException e)
            {
                return;
            }
            final String who = describe(data, self);
            if (who == null)
            {
                return;
            }
            if (System.nanoTime() - deadline > 0)
            {
                throw new IOException("node id " + self.id() + " is registered in cluster " + options.clusterName() +
                    " by another live process (" + who + "): node ids must be unique");
            }
            if (!told)
            {
                LOG.log(INFO, "node " + self.id() + ": waiting for the session of an earlier process (" + who +
                    ") to expire");
                told = true;
            }
            Thread.sleep(100);
        }
    }

    /** The earlier process in {@code data}, or null when it is this one. */
    private static String describe(final byte[] data, final MemberInfo self)
    {
        try
        {
            final MemberInfo other = MemberInfo.fromJson(data);
            return other.incarnation() == self.incarnation() ? null :
                other.host() + ":" + other.port() + " incarnation " + other.incarnation();
        }
        catch (final IllegalArgumentException e)
        {
            return "unreadable: " + e.getMessage();
        }
    }
}
