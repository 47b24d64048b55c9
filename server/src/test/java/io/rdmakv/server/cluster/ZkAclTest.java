package io.rdmakv.server.cluster;

import io.rdmakv.server.cluster.zk.ZkCredentials;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static io.rdmakv.server.cluster.ZkTestCluster.await;
import static io.rdmakv.server.cluster.ZkTestCluster.member;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A node with a digest credential locks every znode of its cluster to it; others cannot touch the map. */
class ZkAclTest
{
    private static final ZkCredentials CREDENTIALS = ZkCredentials.parse("rdmakv:s3cret-pw", "the test");
    private final List<CuratorFramework> clients = new ArrayList<>();
    private ZkTestCluster cluster;

    @AfterEach
    void tearDown() throws IOException
    {
        clients.forEach(CuratorFramework::close);
        if (cluster != null)
        {
            cluster.close();
        }
    }

    /** A client of the whole tree (no namespace), authenticated as {@code auth} ("user:password") or not at all. */
    private CuratorFramework client(final String auth)
    {
        final CuratorFrameworkFactory.Builder b = CuratorFrameworkFactory.builder()
            .connectString(cluster.server.getConnectString()).retryPolicy(new RetryOneTime(100));
        if (auth != null)
        {
            b.authorization("digest", auth.getBytes(StandardCharsets.UTF_8));
        }
        final CuratorFramework c = b.build();
        c.start();
        clients.add(c);
        return c;
    }

    private ZkMembership start(final int id, final ZkCredentials credentials) throws IOException
    {
        final Recorder recorder = new Recorder();
        final ZkMembership m = ZkMembership.start(cluster.options().withCredentials(credentials),
            member(id, 1000 + id), recorder);
        cluster.nodes.put(id, m);
        cluster.recorders.put(id, recorder);
        return m;
    }

    /** Every znode from /rdmakv down through the cluster's, depth first. */
    private static List<String> tree(final CuratorFramework c) throws Exception
    {
        final List<String> paths = new ArrayList<>(List.of("/rdmakv", "/rdmakv/test"));
        for (int i = 1; i < paths.size(); i++)
        {
            for (final String child : c.getChildren().forPath(paths.get(i)))
            {
                paths.add(paths.get(i) + "/" + child);
            }
        }
        return paths;
    }

    @Test
    void everyZnodeOfTheClusterGrantsAllToTheCredentialAndNothingToOthers() throws Exception
    {
        cluster = new ZkTestCluster(1, 1500);
        start(0, CREDENTIALS);
        start(1, CREDENTIALS);
        cluster.awaitMap("a map of both nodes", m -> m.nodes().size() == 2);
        final CuratorFramework owner = client("rdmakv:s3cret-pw");
        final List<String> paths = tree(owner);
        for (final String expected : new String[] {"/rdmakv/test/config", "/rdmakv/test/map", "/rdmakv/test/members",
            "/rdmakv/test/members/0", "/rdmakv/test/members/1", "/rdmakv/test/sync", "/rdmakv/test/leader"})
        {
            assertTrue(paths.contains(expected), expected + " in " + paths);
        }
        assertTrue(paths.stream().anyMatch(p -> p.startsWith("/rdmakv/test/leader/")), "latch nodes: " + paths);
        final List<ACL> locked = List.of(new ACL(ZooDefs.Perms.ALL, new org.apache.zookeeper.data.Id("digest",
            CREDENTIALS.digestId())));
        for (final String path : paths)
        {
            assertEquals(locked, owner.getACL().forPath(path), path);
        }

        final byte[] map = owner.getData().forPath("/rdmakv/test/map");
        for (final CuratorFramework other : new CuratorFramework[] {client(null), client("rdmakv:wrong"),
            client("intruder:s3cret-pw")})
        {
            assertThrows(KeeperException.NoAuthException.class,
                () -> other.setData().forPath("/rdmakv/test/map", "{\"epoch\":999}".getBytes(StandardCharsets.UTF_8)));
            assertThrows(KeeperException.NoAuthException.class, () -> other.getData().forPath("/rdmakv/test/map"));
            assertThrows(KeeperException.NoAuthException.class, () -> other.delete().forPath("/rdmakv/test/members/0"));
            assertThrows(KeeperException.NoAuthException.class,
                () -> other.create().forPath("/rdmakv/test/members/7", new byte[0]));
        }
        assertEquals(new String(map, StandardCharsets.UTF_8),
            new String(owner.getData().forPath("/rdmakv/test/map"), StandardCharsets.UTF_8), "the map is untouched");
    }

    @Test
    void aClusterFoundOpenIsLockedDown() throws Exception
    {
        cluster = new ZkTestCluster(1, 1500);
        start(0, null);
        cluster.awaitMap("a map of node 0", m -> m.nodes().size() == 1);
        final CuratorFramework anyone = client(null);
        assertEquals(ZooDefs.Ids.OPEN_ACL_UNSAFE, anyone.getACL().forPath("/rdmakv/test/map"), "no credentials: open");
        cluster.stop(0);

        start(1, CREDENTIALS);
        cluster.awaitMap("a map with node 1", m -> m.nodes().stream().anyMatch(n -> n.id() == 1));
        final CuratorFramework owner = client("rdmakv:s3cret-pw");
        for (final String path : tree(owner))
        {
            assertEquals(CREDENTIALS.acl(), owner.getACL().forPath(path), path);
        }
        assertThrows(KeeperException.NoAuthException.class,
            () -> anyone.setData().forPath("/rdmakv/test/map", new byte[] {'x'}));
    }

    @Test
    void aClusterLockedToOtherCredentialsIsRefusedByName() throws Exception
    {
        cluster = new ZkTestCluster(1, 1500);
        start(0, CREDENTIALS);
        cluster.awaitMap("a map of node 0", m -> m.nodes().size() == 1);
        final IOException wrong = assertThrows(IOException.class,
            () -> start(1, ZkCredentials.parse("rdmakv:other", "the other test")));
        assertTrue(wrong.getMessage().contains("NoAuth") && wrong.getMessage().contains("other credentials") &&
            wrong.getMessage().contains("'rdmakv'"), wrong.getMessage());
        final IOException none = assertThrows(IOException.class, () -> start(2, null));
        assertTrue(none.getMessage().contains("NoAuth") && none.getMessage().contains("--zk-auth-file"),
            none.getMessage());
        await("node 0 still alone in the map", () -> cluster.recorders.get(0).last().nodes().size() == 1);
        assertNotNull(cluster.nodes.get(0));
    }
}
