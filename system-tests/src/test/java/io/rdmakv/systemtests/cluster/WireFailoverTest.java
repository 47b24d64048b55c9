package io.rdmakv.systemtests.cluster;

import io.rdmakv.client.KvClient;
import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.ClusterNode;
import io.rdmakv.common.cluster.ReplicaGroup;
import io.rdmakv.systemtests.LocalCluster;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The slim kill -9 failover test that {@code scripts/softroce-wire.sh} runs with client and nodes at different
 * addresses, each on an RDMA device of its own, the traffic crossing a link: three child-JVM nodes (a group of
 * two and a spare) at {@link LocalCluster#nodeHost} 0..2, which the map must list as such; two threads write
 * through a client while the primary is killed with SIGKILL; once the backup is promoted every acknowledged
 * write is readable. {@link FailoverTest} does more (re-replication and a second kill); this one fits the
 * emulated VM's time. Run by the normal build too, on 127.0.0.1 over {@code tcp}.
 */
@Tag("softroce-wire")
class WireFailoverTest extends ZkClusterTestBase
{
    @Test
    void aKilledPrimaryLosesNoAcknowledgedWriteAcrossTheWire() throws Exception
    {
        final ClusterMap first = startReplicated(3, 2, false);
        for (int id = 0; id < 3; id++)
        {
            final ClusterNode node = first.node(id);
            assertEquals(LocalCluster.nodeHost(id), node.host(), "node " + id + " is listed at its own address");
        }
        final ReplicaGroup group = first.groups().getFirst();
        final int successor = group.member(1);
        try (KvClient client = KvClient.connect(LocalCluster.clientConfig(cluster.seeds())
                .withOpTimeout(LocalCluster.OP_TIMEOUT.multipliedBy(2)));
            LoadWriters load = new LoadWriters(client, "wire", 2, 20))
        {
            // Writes must be going through before the kill: waited for (up to the client's operation timeout), not
            // slept on, since the first session across the wire can take longer than a fixed pause under a loaded
            // TCG (a run on 2026-12-04 had no write 6 s after the writers started, its nodes 2.5 min into joining)
            final long started = System.nanoTime();
            while (load.writes() < 20 && System.nanoTime() - started < LocalCluster.OP_TIMEOUT.toNanos())
            {
                Thread.sleep(100);
            }
            Thread.sleep(1000 * ZkNodes.SLOWNESS);
            final long writesBefore = load.writes();
            assertTrue(writesBefore >= 20, "writes go through before the kill: " + writesBefore + " in " +
                (System.nanoTime() - started) / 1_000_000 + " ms; failures " + load.failureSamples());
            cluster.kill(group.primary());
            final ClusterMap failedOver = cluster.awaitMap("the backup promoted", Duration.ofSeconds(60),
                m -> m.groups().getFirst().primary() == successor);
            final long promotedAt = load.writes();
            final long deadline = System.nanoTime() + LocalCluster.OP_TIMEOUT.multipliedBy(2).toNanos();
            while (load.writes() < promotedAt + 20 && System.nanoTime() < deadline)
            {
                Thread.sleep(100);
            }
            assertTrue(load.writes() >= promotedAt + 20, "writes resume through the promoted backup: " +
                (load.writes() - promotedAt) + " since the promotion; failures " + load.failureSamples());
            final long gap = load.longestGapMillis();
            load.verify(client);
            System.out.printf("wire failover: nodes at %s; %d writes, %d failed calls; epoch %d -> %d, node %d " +
                "killed, node %d promoted; longest time without a write %d ms%n", cluster.seeds(), load.writes(),
                load.failures(), first.epoch(), failedOver.epoch(), group.primary(), successor, gap);
        }
    }
}
