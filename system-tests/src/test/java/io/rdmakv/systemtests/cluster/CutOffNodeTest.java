package io.rdmakv.systemtests.cluster;

import io.rdmakv.client.KvClient;
import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.ReplicaGroup;
import io.rdmakv.systemtests.LocalCluster;
import io.rdmakv.systemtests.peer.RegionView;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The primary is cut off from ZooKeeper but stays reachable by clients (its ZooKeeper connection runs through a
 * relay the test closes). Once its session expires the coordinator promotes the backup and every other node
 * fences the old epoch's sessions: a client still on the old map can write nothing through the cut-off node
 * (its chain's first backup refuses), and its write lands only on the new primary, after it followed the map.
 */
class CutOffNodeTest extends ZkClusterTestBase
{

    @Test
    void aPrimaryCutOffFromZooKeeperCanNoLongerBeWrittenThrough() throws Exception
    {
        final ClusterMap before = startReplicated(3, 2, true);
        final ReplicaGroup group = before.groups().getFirst();
        final int cut = group.primary();
        final byte[] key = LocalCluster.bytes("cut-off key");
        try (KvClient stale = KvClient.connect(LocalCluster.clientConfig("127.0.0.1:" + cluster.ports[cut])
            .withOpTimeout(Duration.ofSeconds(30))))
        {
            stale.put(key, LocalCluster.bytes("before the cut"));
            assertEquals(before.epoch(), stale.clusterMap().epoch());

            cluster.cutFromZooKeeper(cut);
            final ClusterMap after = cluster.awaitMap("the backup promoted", Duration.ofSeconds(60),
                m -> m.groups().getFirst().primary() == group.member(1));
            assertTrue(after.epoch() > before.epoch());
            try (RegionView cutOff = new RegionView(cluster.ports[cut]);
                KvClient direct = KvClient.connect(LocalCluster.clientConfig("127.0.0.1:" + cluster.ports[cut])))
            {
                assertEquals(before.epoch(), direct.clusterMap().epoch(), "the cut-off node still hands out its old map");
                // the stale client writes: its session with the new primary (its chain's first backup) was
                // fenced, so nothing lands through the cut-off node; it follows the map and writes there
                stale.put(key, LocalCluster.bytes("after the cut"));
                assertTrue(stale.clusterMap().epoch() >= after.epoch(), "the client moved to the new map");
                final RegionView.Slot slot = cutOff.find(key);
                assertNotNull(slot);
                assertArrayEquals(LocalCluster.bytes("before the cut"),
                    cutOff.bytes(cutOff.valueOffset(slot), cutOff.valueLength(slot)),
                    "the cut-off node's copy of the key did not change");
            }
            try (KvClient fresh = KvClient.connect(LocalCluster.clientConfig(
                "127.0.0.1:" + cluster.ports[group.member(1)])))
            {
                assertArrayEquals(LocalCluster.bytes("after the cut"), fresh.get(key));
            }
        }
    }
}
