package io.rdmakv.systemtests.cluster;

import io.rdmakv.client.KvClient;
import io.rdmakv.client.KvException;
import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.ReplicaGroup;
import io.rdmakv.systemtests.LocalCluster;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The primary is cut off from ZooKeeper but stays reachable by clients (its ZooKeeper connection runs through a
 * relay the test closes). It stops serving once it cannot confirm it is current (its sessions fenced, HELLO
 * refused with NOT_CURRENT), and the backup is promoted only after the promotion wait. A client that had been
 * reading through the cut-off node, asked for the key after a write through the new primary was acknowledged,
 * returns the new value (it follows the map to the new primary) or fails: never the value the write replaced.
 * A client that knows only the cut-off node cannot even connect, and is told why.
 */
class CutOffNodeTest extends ZkClusterTestBase
{
    private static final byte[] BEFORE = LocalCluster.bytes("before the cut");
    private static final byte[] AFTER = LocalCluster.bytes("after the cut");

    @Test
    void aPrimaryCutOffFromZooKeeperServesNobodyOnceItsSuccessorServes() throws Exception
    {
        final ClusterMap before = startReplicated(3, 2, true);
        final ReplicaGroup group = before.groups().getFirst();
        final int cut = group.primary();
        final int successor = group.member(1);
        final byte[] key = LocalCluster.bytes("cut-off key");
        try (KvClient reader = KvClient.connect(LocalCluster.clientConfig(cluster.address(cut))
            .withOpTimeout(Duration.ofSeconds(30))))
        {
            reader.put(key, BEFORE);
            assertArrayEquals(BEFORE, reader.get(key));
            assertEquals(before.epoch(), reader.clusterMap().epoch());

            cluster.cutFromZooKeeper(cut);
            final ClusterMap after = cluster.awaitMap("the backup promoted", Duration.ofSeconds(60),
                m -> m.groups().getFirst().primary() == successor);
            assertTrue(after.epoch() > before.epoch());
            try (KvClient writer = KvClient.connect(LocalCluster.clientConfig(cluster.address(successor))
                .withOpTimeout(Duration.ofSeconds(30))))
            {
                writer.put(key, AFTER);
            }
            // the reader's sessions are with the cut-off node, its map the old one: its next GET must not
            // return what the cut-off node still holds
            byte[] read = null;
            KvException failed = null;
            try
            {
                read = reader.get(key);
            }
            catch (final KvException e)
            {
                failed = e; // failing is allowed; the old value is not
            }
            if (failed == null)
            {
                assertArrayEquals(AFTER, read, "read " + (read == null ? "null" : new String(read)) + " after the " +
                    "new write was acknowledged (the value it replaced is " + Arrays.toString(BEFORE) + ")");
                assertTrue(reader.clusterMap().epoch() >= after.epoch(), "the reader moved to the new map");
            }
            System.out.println("[cut-off] the reader of the cut-off node " + (failed == null ? "read the new value " +
                "at epoch " + reader.clusterMap().epoch() : "failed: " + failed.getMessage()));

            final KvException refused = assertThrows(KvException.class, () -> KvClient.connect(
                LocalCluster.clientConfig(cluster.address(cut))).close());
            assertTrue(String.valueOf(refused.getMessage()).contains("current"),
                "a client of the cut-off node alone is told it cannot confirm it is current: " + refused.getMessage());
        }
    }
}
