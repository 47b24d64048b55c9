package io.rdmakv.systemtests.cluster;

import io.rdmakv.client.KvClient;
import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.ReplicaGroup;
import io.rdmakv.systemtests.LocalCluster;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Growing a running cluster (issue 23): four nodes with two replicas per group and 16 partitions, writers running
 * and more keys written once; the growth switch on, two nodes join, form a new group, and the coordinator moves
 * partitions to it by shares, one batch at a time through COPY, FREEZE, SWITCH and OPEN, until every group holds
 * its share (5 or 6 of 16); the old groups reclaim what they gave away. No call fails, nothing acknowledged is lost,
 * every key reads back. Prints the time it took and the longest time without a successful write.
 */
class ScaleOutTest extends ZkClusterTestBase
{
    private static final Duration OP_TIMEOUT = Duration.ofSeconds(20);
    private static final int PARTITIONS = 16;
    private static final int FILL_KEYS = 400;

    @Test
    void partitionsSpreadToANewGroupByShareUnderWritesLosingNothing() throws Exception
    {
        final ClusterMap first = startReplicated(4, 2, false, List.of("--partitions", Integer.toString(PARTITIONS)));
        assertEquals(PARTITIONS, first.partitionCount());
        try (GrowthZk zk = new GrowthZk(cluster);
            KvClient client = KvClient.connect(LocalCluster.clientConfig(cluster.seeds()).withOpTimeout(OP_TIMEOUT)))
        {
            zk.growthOn();
            // two groups, 8 partitions each; on a loaded machine the map may have been created before the fourth node
            // registered (one group and spares): the switch then forms the second group and spreads to it first
            zk.awaitMap("two groups at their shares", Duration.ofSeconds(120), m -> m.groups().size() == 2 &&
                ZkNodes.fullyReplicated(m, 2) && m.moves().isEmpty() && m.groups().stream()
                    .allMatch(g -> count(m, g.id()) == PARTITIONS / 2));
            final List<String> filled = new ArrayList<>();
            for (int i = 0; i < FILL_KEYS; i++)
            {
                filled.add("fill-" + i);
                client.put(GrowthZk.bytes("fill-" + i), GrowthZk.bytes("value of fill-" + i));
            }
            try (LoadWriters load = new LoadWriters(client, "scale", 4, 40))
            {
                Thread.sleep(1000);
                final long gapBefore = load.longestGapMillis();
                final long addedAt = System.nanoTime();
                final int added = cluster.add(2);
                final ClusterMap grown = zk.awaitMap("a new group of the two nodes", Duration.ofSeconds(60),
                    m -> m.groups().size() == 3 && ZkNodes.fullyReplicated(m, 2));
                final ReplicaGroup fresh = grown.groups().get(2);
                assertTrue(fresh.isMember(added) && fresh.isMember(added + 1), grown.toString());
                final ClusterMap spread = zk.awaitMap("every group at its share, no move under way",
                    Duration.ofSeconds(180), m -> m.moves().batches().isEmpty() && balanced(m));
                final long spreadMillis = (System.nanoTime() - addedAt) / 1_000_000;
                final long gapDuringMoves = load.longestGapMillis();
                final ClusterMap reclaimed = zk.awaitMap("the old groups reclaimed", Duration.ofSeconds(60),
                    m -> m.moves().isEmpty());
                Thread.sleep(500);
                load.verify(client);
                for (final String key : filled)
                {
                    assertEquals("value of " + key, new String(client.get(GrowthZk.bytes(key)),
                        StandardCharsets.UTF_8), key);
                }
                System.out.printf("scale-out: %d writes, %d failed calls; %d of %d partitions moved to group %d in " +
                    "%d ms from the nodes' start (epoch %d -> %d, reclaimed at %d); longest time without a write: " +
                    "%d ms before, %d ms while partitions moved%n", load.writes(), load.failures(),
                    count(spread, fresh.id()), PARTITIONS, fresh.id(), spreadMillis, grown.epoch(), spread.epoch(),
                    reclaimed.epoch(), gapBefore, gapDuringMoves);
                assertEquals(0, load.failures(), "no write failed: " + load.failureSamples());
            }
        }
    }

    /** Every group owns 5 or 6 of the 16 partitions (equal arenas: a share of 16/3 each). */
    private static boolean balanced(final ClusterMap map)
    {
        return map.groups().size() == 3 && map.groups().stream()
            .allMatch(g -> count(map, g.id()) >= PARTITIONS / 3 && count(map, g.id()) <= PARTITIONS / 3 + 1);
    }

    private static int count(final ClusterMap map, final int group)
    {
        int n = 0;
        for (int p = 0; p < map.partitionCount(); p++)
        {
            n += map.groupFor(p).id() == group ? 1 : 0;
        }
        return n;
    }
}
