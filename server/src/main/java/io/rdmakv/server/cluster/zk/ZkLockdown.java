package io.rdmakv.server.cluster.zk;

import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.ACL;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

import static java.lang.System.Logger.Level.WARNING;

/**
 * A node with credentials locks down a cluster found open: every znode from {@code /rdmakv} down through
 * {@code /rdmakv/<name>} and all below it whose ACL is not the credential's alone gets that ACL (setACL), each
 * one logged. A cluster locked to other credentials is refused, naming the znode.
 */
public final class ZkLockdown
{
    private static final System.Logger LOG = System.getLogger(ZkLockdown.class.getName());

    private ZkLockdown()
    {
    }

    /**
     * Sets the credential's ACL where it is missing; returns the paths changed (absolute).
     *
     * @throws IOException when ZooKeeper refuses to show or change an ACL (the znode is locked to other
     *     credentials)
     */
    public static List<String> apply(final CuratorFramework namespaced, final ZkOptions options) throws Exception
    {
        final ZkCredentials credentials = options.credentials();
        if (credentials == null)
        {
            return List.of();
        }
        final CuratorFramework client = namespaced.usingNamespace(null);
        final List<ACL> wanted = credentials.acl();
        final String root = "/" + options.namespace();
        final List<String> changed = new ArrayList<>();
        final Deque<String> pending = new ArrayDeque<>();
        final String shared = root.substring(0, root.indexOf('/', 1));
        pending.add(shared);
        pending.add(root);
        while (!pending.isEmpty())
        {
            final String path = pending.poll();
            try
            {
                final List<ACL> acl = client.getACL().forPath(path);
                if (!acl.equals(wanted))
                {
                    client.setACL().withACL(wanted).forPath(path);
                    changed.add(path);
                    LOG.log(WARNING, "cluster " + options.clusterName() + ": locked down " + path + " (its ACL was " +
                        acl + "): ALL for digest user '" + credentials.user() + "' only");
                }
                if (path.startsWith(root))
                {
                    for (final String child : client.getChildren().forPath(path))
                    {
                        pending.add(path + "/" + child);
                    }
                }
            }
            catch (final KeeperException.NoNodeException e)
            {
                // not created yet (it will be, with the ACL), or gone meanwhile (an ephemeral)
            }
            catch (final KeeperException.NoAuthException e)
            {
                if (path.equals(shared))
                {
                    // the parent of every cluster, locked by another cluster's credentials: not this cluster's
                    continue;
                }
                throw new IOException("ZooKeeper refused digest user '" + credentials.user() + "' (" +
                    credentials.source() + ") access to " + path + " (NoAuth): cluster " + options.clusterName() +
                    " is locked to other credentials", e);
            }
        }
        if (!changed.isEmpty())
        {
            LOG.log(WARNING, "cluster " + options.clusterName() + " was open to anyone who reaches ZooKeeper: locked " +
                "down " + changed.size() + " znode(s); nodes still running without these credentials lose access " +
                "to them");
        }
        return changed;
    }
}
