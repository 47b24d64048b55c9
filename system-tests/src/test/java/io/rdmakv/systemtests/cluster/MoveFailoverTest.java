package io.rdmakv.systemtests.cluster;

import io.rdmakv.client.KvClient;
import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.MoveBatch;
import io.rdmakv.common.cluster.MovePhase;
import io.rdmakv.common.cluster.ReplicaGroup;
import io.rdmakv.systemtests.LocalCluster;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * kill -9 during a partition move (issue 23, docs/growth.md §9), writers running throughout: the source group's
 * primary killed while the move freezes (the failover map abandons it, the promoted backup opens the frozen segment
 * before it serves), then the target group's primary killed at SWITCH (the move finishes: the promoted backup holds
 * the whole copy and opens it). Either move may also have gone one phase further before the kill landed: then it
 * finishes, which is as good. Nothing acknowledged is lost either way.
 */
class MoveFailoverTest extends ZkClusterTestBase
{
    private static final Duration OP_TIMEOUT = Duration.ofSeconds(20);
    private static final int WRITERS = 4;
    private static final int KEYS_PER_WRITER = 40;

    @Test
    void killedPrimariesDuringMovesLoseNoAcknowledgedWrite() throws Exception
    {
        startReplicated(4, 2, false);
        try (GrowthZk zk = new GrowthZk(cluster);
            KvClient client = KvClient.connect(LocalCluster.clientConfig(cluster.seeds()).withOpTimeout(OP_TIMEOUT)))
        {
            zk.growthOn();
            final int added = cluster.add(2);
            final ClusterMap grown = zk.awaitMap("a new group of the two nodes", Duration.ofSeconds(60),
                m -> m.groups().size() == 3 && ZkNodes.fullyReplicated(m, 2));
            final ReplicaGroup target = grown.groups().get(2);
            assertTrue(target.isMember(added));
            try (LoadWriters load = new LoadWriters(client, "mf", WRITERS, KEYS_PER_WRITER))
            {
                Thread.sleep(1000);
                // the source primary killed in FREEZE
                final ReplicaGroup source = grown.groups().get(0);
                final int first = busiest(grown, source.id());
                zk.requestMove(List.of(first), target.id());
                final ClusterMap freezing = zk.awaitMap("the move in FREEZE", Duration.ofSeconds(60),
                    m -> phase(m, first) == MovePhase.FREEZE);
                cluster.kill(source.primary());
                final ClusterMap afterFirst = zk.awaitMap("the move abandoned or finished, the source failed over",
                    Duration.ofSeconds(60), m -> phase(m, first) == null && m.groups().get(0).primary() != source.primary());
                final boolean firstAborted = afterFirst.groupFor(first).id() == source.id();
                Thread.sleep(1000);
                final long gapFirst = load.longestGapMillis();

                // the target primary killed at SWITCH
                final int second = busiest(afterFirst, afterFirst.groups().get(1).id());
                final int targetPrimary = afterFirst.groups().get(2).primary();
                zk.requestMove(List.of(second), target.id());
                final ClusterMap switching = zk.awaitMap("the second move at SWITCH or later", Duration.ofSeconds(60),
                    m -> m.groupFor(second).id() == target.id());
                cluster.kill(targetPrimary);
                final ClusterMap afterSecond = zk.awaitMap("the second move open, the target failed over",
                    Duration.ofSeconds(60), m -> phase(m, second) == null && m.groups().get(2).primary() != targetPrimary);
                assertTrue(afterSecond.groupFor(second).id() == target.id(), "from SWITCH on a move finishes: " +
                    afterSecond);
                Thread.sleep(1000);
                final long gapSecond = load.longestGapMillis();
                load.verify(client);
                System.out.printf("move failover: %d writes, %d failed calls; source primary %d killed in FREEZE " +
                    "(epoch %d): the move %s at epoch %d, longest gap %d ms; target primary %d killed at epoch %d " +
                    "(%s): the move finished at epoch %d, longest gap %d ms%n", load.writes(), load.failures(),
                    source.primary(), freezing.epoch(), firstAborted ? "was abandoned" : "finished", afterFirst.epoch(),
                    gapFirst, targetPrimary, switching.epoch(), phase(switching, second) == null ? "after OPEN" :
                        phase(switching, second).json(), afterSecond.epoch(), gapSecond);
            }
        }
    }

    /** The phase of the batch moving {@code partition} in {@code map}, or null. */
    private static MovePhase phase(final ClusterMap map, final int partition)
    {
        final MoveBatch b = map.moves().batchOf(partition);
        return b == null ? null : b.phase();
    }

    /** The partition of group {@code group} holding most of the writers' keys (the lowest of those). */
    private static int busiest(final ClusterMap map, final int group)
    {
        final int[] keys = new int[map.partitionCount()];
        for (int slot = 0; slot < WRITERS * KEYS_PER_WRITER; slot++)
        {
            keys[GrowthZk.partitionOf("mf-" + slot, map.partitionCount())]++;
        }
        return IntStream.range(0, map.partitionCount()).filter(p -> map.groupFor(p).id() == group).boxed()
            .max((a, b) -> keys[a] != keys[b] ? Integer.compare(keys[a], keys[b]) : Integer.compare(b, a)).orElseThrow();
    }
}
