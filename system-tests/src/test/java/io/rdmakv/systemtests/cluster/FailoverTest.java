package io.rdmakv.systemtests.cluster;

import io.rdmakv.client.KvClient;
import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.ReplicaGroup;
import io.rdmakv.systemtests.LocalCluster;
import org.junit.jupiter.api.Test;

import java.time.Duration;

/**
 * Three nodes with two replicas per group (one group and a spare) joined through a real ZooKeeper. Eight
 * threads write and read while the primary is killed with SIGKILL: after failover every acknowledged write is
 * readable (a write whose call failed may or may not have happened, and is allowed either way); the spare then
 * copies the new primary under that load and joins the group; then that primary is killed too, and still
 * nothing acknowledged is lost. Prints the longest time without a successful write around each kill.
 */
class FailoverTest extends ZkClusterTestBase
{
    private static final Duration OP_TIMEOUT = Duration.ofSeconds(20);


    @Test
    void killedPrimariesLoseNoAcknowledgedWrite() throws Exception
    {
        final ClusterMap first = startReplicated(3, 2, false);
        final ReplicaGroup group = first.groups().getFirst();
        try (KvClient client = KvClient.connect(LocalCluster.clientConfig(cluster.seeds()).withOpTimeout(OP_TIMEOUT));
            LoadWriters load = new LoadWriters(client, "failover", 8, 40))
        {
            Thread.sleep(1500);
            final long gapBefore = load.longestGapMillis();
            cluster.kill(group.primary());
            final ClusterMap failedOver = cluster.awaitMap("the backup promoted", Duration.ofSeconds(60),
                m -> m.groups().getFirst().primary() == group.member(1));
            Thread.sleep(1500);
            final long gapAtFirstKill = load.longestGapMillis();
            final ClusterMap rereplicated = cluster.awaitMap("the spare copied and in sync", Duration.ofSeconds(90),
                m -> ZkNodes.fullyReplicated(m, 2));
            Thread.sleep(1000);
            load.longestGapMillis();
            cluster.kill(group.member(1));
            final ClusterMap second = cluster.awaitMap("the copied node promoted", Duration.ofSeconds(60),
                m -> !m.groups().getFirst().lost() && !m.groups().getFirst().isMember(group.member(1)));
            Thread.sleep(1500);
            final long gapAtSecondKill = load.longestGapMillis();
            load.verify(client);
            System.out.printf("failover: %d writes, %d failed calls; longest time without a write: %d ms before, " +
                "%d ms at the first kill (epoch %d -> %d), %d ms at the second (in sync again at epoch %d, then %d)%n",
                load.writes(), load.failures(), gapBefore, gapAtFirstKill, first.epoch(), failedOver.epoch(),
                gapAtSecondKill, rereplicated.epoch(), second.epoch());
        }
    }
}
