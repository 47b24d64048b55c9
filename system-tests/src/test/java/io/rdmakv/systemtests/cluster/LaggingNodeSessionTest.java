package io.rdmakv.systemtests.cluster;

import io.rdmakv.client.KvClient;
import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.ClusterNode;
import io.rdmakv.common.cluster.ReplicaGroup;
import io.rdmakv.server.KvServer;
import io.rdmakv.server.cluster.NodeRole;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.systemtests.LocalCluster;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A client that knows a newer map than a node has applied does not run operations on a session that node opens
 * under its older map: the node would fence that session as soon as it applies the map, possibly after a write
 * on it took its word, and the write's effect would be unknown (the cause of RetriedWriteTest's rare "effect
 * unknown" for the insert right after a promotion: the new primary opened the client's session a few
 * milliseconds before it applied the map the client already had). Two real nodes, each handed its maps by hand
 * (as membership would): node A serves the map of epoch 3 first, node B, the primary, still serves epoch 2.
 */
class LaggingNodeSessionTest
{
    private static final int A = 0;
    private static final int B = 1;
    private static final int GONE = 9;
    private static final int PARTITIONS = 64;

    private KvServer nodeA;
    private KvServer nodeB;
    private NodeRole roleA;
    private NodeRole roleB;

    @AfterEach
    void stop()
    {
        LocalCluster.closeAll(roleA, roleB, nodeA, nodeB);
    }

    private static KvServer start(final int id)
    {
        return LocalCluster.startNode(ServerConfig.local(LocalCluster.MEMORY).toBuilder().nodeId(id)
            .zookeeper(new ServerConfig.ZooKeeper("127.0.0.1:2181", "lagging-node-test", 2, 4000)).build());
    }

    /** B the primary of the only group (with {@code backups}), A a spare, node 9 listed. */
    private ClusterMap map(final long epoch, final int... backups)
    {
        final int[] members = new int[1 + backups.length];
        members[0] = B;
        System.arraycopy(backups, 0, members, 1, backups.length);
        return new ClusterMap(epoch, PARTITIONS, List.of(new ClusterNode(A, "127.0.0.1", nodeA.port()),
            new ClusterNode(B, "127.0.0.1", nodeB.port()), new ClusterNode(GONE, "127.0.0.1", 1)), 2,
            List.of(new ReplicaGroup(0, members, null, false)), new int[PARTITIONS]);
    }

    @Test
    void aSessionOpenedUnderAnOlderFenceEpochThanTheClientsMapIsNotUsed() throws Exception
    {
        nodeA = start(A);
        nodeB = start(B);
        roleA = new NodeRole(nodeA, (primary, epoch) -> 0, (group, epoch, finalPass) -> { });
        roleB = new NodeRole(nodeB, (primary, epoch) -> 0, (group, epoch, finalPass) -> { });
        roleA.onMap(map(2, GONE));
        roleB.onMap(map(2, GONE));
        // epoch 3 drops the backup: a change of placement, so it fences sessions of epoch 2
        roleA.onMap(map(3));
        assertEquals(3, map(3).fenceEpoch());
        try (KvClient client = KvClient.connect(LocalCluster.clientConfig(LocalCluster.address(nodeA))
            .withOpTimeout(Duration.ofSeconds(10))))
        {
            assertEquals(3, client.clusterMap().epoch(), "the client follows A's map");
            final java.util.concurrent.atomic.AtomicBoolean applying = new java.util.concurrent.atomic.AtomicBoolean();
            final Thread catchUp = Thread.ofPlatform().start(() ->
            {
                try
                {
                    Thread.sleep(500);
                    applying.set(true);
                    roleB.onMap(map(3));
                }
                catch (final InterruptedException e)
                {
                    Thread.currentThread().interrupt();
                }
            });
            // a read-only operation: B would answer it at epoch 2 just as well, on a session it then fences
            assertEquals(null, client.get("absent".getBytes(StandardCharsets.UTF_8)));
            assertTrue(applying.get(), "the GET ran only once B was applying the client's map, not on a session B " +
                "opened under epoch 2 (which B fences at epoch 3)");
            catchUp.join();
            final long fenced = nodeB.sessionsFencedByEpoch();
            client.put("k".getBytes(StandardCharsets.UTF_8), "v".getBytes(StandardCharsets.UTF_8));
            assertEquals(fenced, nodeB.sessionsFencedByEpoch(), "the session the GET ran on is not fenced");
            assertEquals("v", new String(client.get("k".getBytes(StandardCharsets.UTF_8)), StandardCharsets.UTF_8));
        }
    }
}
