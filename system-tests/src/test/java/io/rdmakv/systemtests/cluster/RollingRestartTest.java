package io.rdmakv.systemtests.cluster;

import io.rdmakv.client.KvClient;
import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.systemtests.LocalCluster;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * Rolling restart under load: each of three nodes (two replicas per group) in turn is stopped with SIGTERM
 * (it leaves the cluster: failover at once if it was the primary), the group is brought back to two replicas
 * from the spare, and the node is started again (it comes back empty, a spare). No acknowledged write is
 * lost, and the writers see no error beyond their retries.
 */
class RollingRestartTest extends ZkClusterTestBase
{

    @Test
    void everyNodeRestartedInTurnLosesNothing() throws Exception
    {
        startReplicated(3, 2, false);
        try (KvClient client = KvClient.connect(LocalCluster.clientConfig(cluster.seeds())
            .withOpTimeout(Duration.ofSeconds(30))))
        {
            final LoadWriters load = new LoadWriters(client, "rolling", 4, 30);
            final StringBuilder gaps = new StringBuilder();
            for (int node = 0; node < 3; node++)
            {
                Thread.sleep(500);
                load.longestGapMillis();
                final int stopping = node;
                cluster.stop(node);
                final ClusterMap without = cluster.awaitMap("node " + node + " out and two replicas again",
                    Duration.ofSeconds(90), m -> m.node(stopping) == null && ZkNodes.fullyReplicated(m, 2));
                gaps.append(String.format(" node %d: %d ms (epoch %d);", node, load.longestGapMillis(),
                    without.epoch()));
                cluster.start(node);
                cluster.awaitMap("node " + node + " back", Duration.ofSeconds(60), m -> m.node(stopping) != null);
            }
            final long failures = load.failures();
            load.verify(client);
            System.out.printf("rolling restart: %d writes, %d failed calls %s; longest time without a write per stop:%s%n",
                load.writes(), failures, load.failureSamples(), gaps);
            assertFalse(failures > 0, failures + " writes failed beyond their retries: " + load.failureSamples());
        }
    }
}
