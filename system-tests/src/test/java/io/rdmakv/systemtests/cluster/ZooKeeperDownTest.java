package io.rdmakv.systemtests.cluster;

import io.rdmakv.client.KvClient;
import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.systemtests.LocalCluster;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ZooKeeper itself goes down for longer than the nodes' session timeout. No node can confirm it is current, so
 * every node stops serving within the currency bound (docs/design.md: losing ZooKeeper's quorum stops the
 * service; the store chooses consistency), and the map does not change. Once ZooKeeper is back the nodes
 * register again, service resumes on the same map, every acknowledged write is still readable, and membership
 * changes go through again (a node killed then is failed over).
 */
class ZooKeeperDownTest extends ZkClusterTestBase
{

    @Test
    void theNodesStopServingWhileZooKeeperIsDownAndResumeAfter() throws Exception
    {
        final ClusterMap before = startReplicated(3, 2, false);
        try (KvClient client = KvClient.connect(LocalCluster.clientConfig(cluster.seeds())
            .withOpTimeout(Duration.ofSeconds(20))))
        {
            final LoadWriters load = new LoadWriters(client, "zkdown", 4, 30);
            Thread.sleep(1000);
            final long writesBefore = load.writes();
            cluster.zookeeper.stop();
            // within the currency bound (half the session) plus scheduling slack, every node has stopped
            Thread.sleep(ZkNodes.SESSION_TIMEOUT_MS);
            final long writesAfterBound = load.writes();
            Thread.sleep(2L * ZkNodes.SESSION_TIMEOUT_MS);
            final long writesWhileDown = load.writes() - writesAfterBound;
            assertEquals(0, writesWhileDown, "writes acknowledged while no node could confirm it was current");
            assertNull(cluster.newestMap(), "no node hands out a map while it cannot confirm it is current");
            cluster.zookeeper.restart();
            final long writesAtRestart = load.writes();
            Thread.sleep(3L * ZkNodes.SESSION_TIMEOUT_MS);
            assertTrue(load.writes() - writesAtRestart > 100, (load.writes() - writesAtRestart) +
                " writes acknowledged after ZooKeeper came back");
            assertEquals(before.epoch(), cluster.newestMap().epoch(), "no membership change: every node came back");
            final long gapWhileDown = load.longestGapMillis();
            final long writesBeforeDown = writesAfterBound - writesBefore;
            final int primary = before.groups().getFirst().primary();
            cluster.kill(primary);
            final ClusterMap after = cluster.awaitMap("failover once ZooKeeper is back", Duration.ofSeconds(60),
                m -> m.groups().getFirst().primary() != primary && !m.groups().getFirst().lost());
            load.verify(client);
            System.out.printf("zookeeper down %d ms: %d writes acknowledged in the first %d ms, none after; " +
                "longest gap %d ms; failover afterwards: epoch %d -> %d%n", 3L * ZkNodes.SESSION_TIMEOUT_MS,
                writesBeforeDown, ZkNodes.SESSION_TIMEOUT_MS, gapWhileDown, before.epoch(), after.epoch());
        }
    }
}
