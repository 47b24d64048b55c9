package io.rdmakv.systemtests.cluster;

import io.rdmakv.client.KvClient;
import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.MoveBatch;
import io.rdmakv.common.cluster.MovePhase;
import io.rdmakv.systemtests.LocalCluster;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * kill -9 during the moves of a scale-out (issue 23, docs/growth.md §9), writers running throughout: four nodes
 * (R = 2, 16 partitions), two more join with the growth switch on and the coordinator moves partitions to their new
 * group by shares. The source group's primary is killed while a batch freezes (the failover map abandons it, the
 * promoted backup opens the frozen segment before it serves), then the target group's primary while a batch is at
 * SWITCH (that move finishes: the promoted backup holds the whole copy and opens it). A batch may have gone one phase
 * further before a kill landed: then it finishes, which is as good. The moves go on to the shares; nothing
 * acknowledged is lost.
 */
class MoveFailoverTest extends ZkClusterTestBase
{
    private static final Duration OP_TIMEOUT = Duration.ofSeconds(20);

    @Test
    void killedPrimariesDuringMovesLoseNoAcknowledgedWrite() throws Exception
    {
        startReplicated(4, 2, false, List.of("--partitions", "16"));
        try (GrowthZk zk = new GrowthZk(cluster);
            KvClient client = KvClient.connect(LocalCluster.clientConfig(cluster.seeds()).withOpTimeout(OP_TIMEOUT));
            LoadWriters load = new LoadWriters(client, "mf", 4, 40))
        {
            zk.growthOn();
            // two groups of 8 partitions first (a map created before the fourth node registered has one group and
            // spares: the switch forms the second and spreads to it)
            zk.awaitMap("two groups at their shares", Duration.ofSeconds(120), m -> m.groups().size() == 2 &&
                ZkNodes.fullyReplicated(m, 2) && m.moves().isEmpty() && m.groups().stream().allMatch(g ->
                    java.util.stream.IntStream.range(0, m.partitionCount()).filter(p -> m.groupFor(p).id() == g.id())
                        .count() == m.partitionCount() / 2));
            final int added = cluster.add(2);
            // the source primary killed while a batch freezes
            final ClusterMap freezing = zk.awaitMap("a batch in FREEZE", Duration.ofSeconds(90),
                m -> batchIn(m, MovePhase.FREEZE) != null);
            final MoveBatch first = batchIn(freezing, MovePhase.FREEZE);
            final int sourcePrimary = freezing.groupById(first.source()).primary();
            cluster.kill(sourcePrimary);
            final ClusterMap afterFirst = zk.awaitMap("that batch gone, its source failed over", Duration.ofSeconds(60),
                m -> m.moves().batch(first.id()) == null && m.groupById(first.source()).primary() != sourcePrimary);
            final boolean firstAborted = afterFirst.groupFor(first.partition(0)).id() == first.source();
            Thread.sleep(1000);
            final long gapFirst = load.longestGapMillis();

            // the target primary killed while a batch is at SWITCH
            final ClusterMap switching = zk.awaitMap("a batch at SWITCH", Duration.ofSeconds(90),
                m -> batchIn(m, MovePhase.SWITCH) != null);
            final MoveBatch second = batchIn(switching, MovePhase.SWITCH);
            final int targetPrimary = switching.groupById(second.target()).primary();
            assertTrue(targetPrimary == added || targetPrimary == added + 1, switching.toString());
            cluster.kill(targetPrimary);
            final ClusterMap afterSecond = zk.awaitMap("that batch open, its target failed over",
                Duration.ofSeconds(60), m -> m.moves().batch(second.id()) == null &&
                    m.groupById(second.target()).primary() != targetPrimary);
            for (int i = 0; i < second.size(); i++)
            {
                assertEquals(second.target(), afterSecond.groupFor(second.partition(i)).id(),
                    "from SWITCH on a move finishes: " + afterSecond);
            }
            final ClusterMap settled = zk.awaitMap("no move under way", Duration.ofSeconds(120),
                m -> m.moves().batches().isEmpty());
            Thread.sleep(1000);
            final long gapSecond = load.longestGapMillis();
            load.verify(client);
            System.out.printf("move failover: %d writes, %d failed calls; source primary %d killed with %s in " +
                "FREEZE (epoch %d): it %s at epoch %d, longest gap %d ms; target primary %d killed with %s at SWITCH " +
                "(epoch %d): it finished at epoch %d; moves settled at epoch %d, longest gap %d ms%n", load.writes(),
                load.failures(), sourcePrimary, first, freezing.epoch(), firstAborted ? "was abandoned" : "finished",
                afterFirst.epoch(), gapFirst, targetPrimary, second, switching.epoch(), afterSecond.epoch(),
                settled.epoch(), gapSecond);
        }
    }

    /** A batch of {@code map} in {@code phase}, or null. */
    private static MoveBatch batchIn(final ClusterMap map, final MovePhase phase)
    {
        return map.moves().batches().stream().filter(b -> b.phase() == phase).findFirst().orElse(null);
    }
}
