package io.rdmakv.systemtests.cluster;

import io.rdmakv.client.KvClient;
import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.systemtests.LocalCluster;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ZooKeeper itself goes down for longer than the nodes' session timeout: the data path goes on with the
 * current map (writes and reads keep being acknowledged and stay readable), the map does not change; once
 * ZooKeeper is back, membership changes go through again (a node killed then is failed over).
 */
class ZooKeeperDownTest extends ZkClusterTestBase
{

    @Test
    void theDataPathGoesOnWhileZooKeeperIsDown() throws Exception
    {
        final ClusterMap before = startReplicated(3, 2, false);
        try (KvClient client = KvClient.connect(LocalCluster.clientConfig(cluster.seeds())
            .withOpTimeout(Duration.ofSeconds(20))))
        {
            final LoadWriters load = new LoadWriters(client, "zkdown", 4, 30);
            Thread.sleep(1000);
            final long writesBefore = load.writes();
            cluster.zookeeper.stop();
            Thread.sleep(3L * ZkNodes.SESSION_TIMEOUT_MS);
            final long writesWhileDown = load.writes() - writesBefore;
            final long gapWhileDown = load.longestGapMillis();
            assertTrue(writesWhileDown > 100, writesWhileDown + " writes acknowledged while ZooKeeper was down");
            assertEquals(before.epoch(), cluster.newestMap().epoch(), "no membership change without ZooKeeper");
            cluster.zookeeper.restart();
            Thread.sleep(2L * ZkNodes.SESSION_TIMEOUT_MS);
            final int primary = before.groups().getFirst().primary();
            cluster.kill(primary);
            final ClusterMap after = cluster.awaitMap("failover once ZooKeeper is back", Duration.ofSeconds(60),
                m -> m.groups().getFirst().primary() != primary && !m.groups().getFirst().lost());
            load.verify(client);
            System.out.printf("zookeeper down %d ms: %d writes acknowledged meanwhile (longest gap %d ms); " +
                "failover afterwards: epoch %d -> %d%n", 3L * ZkNodes.SESSION_TIMEOUT_MS, writesWhileDown,
                gapWhileDown, before.epoch(), after.epoch());
        }
    }
}
