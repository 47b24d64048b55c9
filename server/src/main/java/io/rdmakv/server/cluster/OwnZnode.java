package io.rdmakv.server.cluster;

import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/** A node's own report znode ({@code sync/<id>}, {@code moves/<id>}): an ephemeral of its current session. */
final class OwnZnode
{
    private OwnZnode()
    {
    }

    /** Writes {@code json} at {@code path} as an ephemeral of this session (one of an expired session is replaced). */
    static void write(final CuratorFramework client, final String path, final byte[] json) throws Exception
    {
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
}
