package io.rdmakv.server;

import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.ClusterNode;
import io.rdmakv.common.cluster.ReplicaGroup;
import io.rdmakv.server.cluster.NodeRole;
import io.rdmakv.server.config.ServerConfig;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.List;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A node of a ZooKeeper cluster is ready only while an applied map lists it and it can confirm it is current. */
class ClusterReadinessTest
{
    private static final int PARTITIONS = 8;

    @Test
    void readyOnlyWhileAMapListsTheNode() throws IOException
    {
        try (KvServer server = KvServer.start(ServerConfig.local(16L << 20).toBuilder()
                .zookeeper(new ServerConfig.ZooKeeper("127.0.0.1:2181", "ready-test", 1, 4000)).build());
            NodeRole role = new NodeRole(server, (primary, epoch) -> 0, (group, epoch, finalPass) -> { }))
        {
            final BooleanSupplier ready = NodeRunner.readyWhen(server, role);
            assertNull(server.clusterMap());
            assertFalse(ready.getAsBoolean(), "in no map yet");

            final ClusterNode me = new ClusterNode(0, "127.0.0.1", server.port());
            final ClusterNode other = new ClusterNode(5, "127.0.0.1", 1);
            role.onMap(new ClusterMap(1, PARTITIONS, List.of(me, other), 1, List.of(ReplicaGroup.single(5)),
                groups(5)));
            assertTrue(ready.getAsBoolean(), "a spare is ready");
            final java.util.concurrent.atomic.AtomicBoolean current = new java.util.concurrent.atomic.AtomicBoolean(true);
            server.followCurrency(current::get, () -> "cut off from ZooKeeper (test)");
            assertTrue(ready.getAsBoolean(), "current");
            current.set(false);
            assertFalse(ready.getAsBoolean(), "not current (ZooKeeper down, or its session unconfirmed): not ready");
            current.set(true);
            assertTrue(ready.getAsBoolean(), "current again");
            role.onMap(new ClusterMap(2, PARTITIONS, List.of(other), 1, List.of(ReplicaGroup.single(5)), groups(5)));
            assertFalse(ready.getAsBoolean(), "removed from the map");
            assertNull(server.clusterMap());
        }
    }

    @Test
    void aNodeWithoutZooKeeperIsReadyAsBefore() throws IOException
    {
        try (KvServer server = KvServer.start(ServerConfig.local(16L << 20)))
        {
            assertTrue(NodeRunner.readyWhen(server, null).getAsBoolean());
        }
    }

    private static int[] groups(final int id)
    {
        final int[] ids = new int[PARTITIONS];
        java.util.Arrays.fill(ids, id);
        return ids;
    }
}
