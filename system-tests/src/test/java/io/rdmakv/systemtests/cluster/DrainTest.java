package io.rdmakv.systemtests.cluster;

import io.rdmakv.client.KvClient;
import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.ReplicaGroup;
import io.rdmakv.kvctl.KvCtl;
import io.rdmakv.systemtests.LocalCluster;
import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Draining a node of a running cluster (issue 23, {@code kvctl drain}): four nodes, two replicas per group, 16
 * partitions; two nodes join and, with the growth switch on, form group 2, and every group takes its share (so the
 * groups' index arenas have room: groups made at creation have all theirs in segments, and a move keeps a
 * partition's segment size). Then the switch goes off and {@code
 * kvctl drain 0}: group 0's partitions move to groups 1 and 2 by shares under writes, the group is dissolved once
 * reclaimed, nodes 0 and 1 become spares, {@code kvctl drain 0} says it is safe to stop, and node 0 is stopped. No
 * call fails, every key reads back.
 */
class DrainTest extends ZkClusterTestBase
{
    private static final Duration OP_TIMEOUT = Duration.ofSeconds(20);
    private static final int PARTITIONS = 16;
    private static final int FILL_KEYS = 200;

    private String kvctl(final int node, final String... args)
    {
        final List<String> all = new ArrayList<>(List.of("--hosts", cluster.address(node), "--timeout-ms", "10000"));
        all.addAll(LocalCluster.kvctlArgs());
        all.addAll(List.of(args));
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final int code = KvCtl.run(new PrintWriter(out), new PrintWriter(err), Map.of(), all.toArray(String[]::new));
        assertEquals(KvCtl.OK, code, out + " " + err);
        return out.toString();
    }

    @Test
    void aDrainedGroupGivesItsPartitionsAwayUnderWritesAndItsNodesBecomeSpares() throws Exception
    {
        final ClusterMap first = startReplicated(4, 2, false, List.of("--partitions", Integer.toString(PARTITIONS)));
        // two groups, or one when the map was made before the last two nodes registered (a loaded machine): with the
        // switch on the spares form a group then, so the wait below is for three groups either way
        assertTrue(first.groups().size() <= 2, first.toString());
        try (GrowthZk zk = new GrowthZk(cluster);
            KvClient client = KvClient.connect(LocalCluster.clientConfig(cluster.seeds()).withOpTimeout(OP_TIMEOUT)))
        {
            final List<String> filled = new ArrayList<>();
            for (int i = 0; i < FILL_KEYS; i++)
            {
                filled.add("fill-" + i);
                client.put(GrowthZk.bytes("fill-" + i), GrowthZk.bytes("value of fill-" + i));
            }
            zk.growthOn();
            cluster.add(2);
            zk.awaitMap("group 2 at its share, reclaimed", Duration.ofSeconds(120),
                m -> m.groups().size() == 3 && m.moves().isEmpty() &&
                    m.groups().stream().allMatch(g -> count(m, g.id()) >= PARTITIONS / 3));
            zk.growthOff();
            try (LoadWriters load = new LoadWriters(client, "drain", 4, 40))
            {
                Thread.sleep(500);
                final long drainAt = System.nanoTime();
                assertTrue(kvctl(2, "drain", "0").startsWith("node 0 is being drained (/drain/0 created)"));
                assertTrue(zk.draining(0));
                final ClusterMap drained = zk.awaitMap("group 0 dissolved", Duration.ofSeconds(120),
                    m -> m.groups().stream().noneMatch(g -> g.id() == 0));
                final long drainMillis = (System.nanoTime() - drainAt) / 1_000_000;
                assertEquals(List.of(1, 2), drained.groups().stream().map(ReplicaGroup::id).toList());
                assertEquals(PARTITIONS / 2, count(drained, 1), "equal arenas: 8 each");
                assertEquals(PARTITIONS / 2, count(drained, 2));
                assertNull(drained.groupOfNode(0));
                assertNull(drained.groupOfNode(1));
                final String safe = kvctl(2, "drain", "0");
                assertTrue(safe.contains("node 0 is a spare") && safe.contains("drained, safe to stop"), safe);
                cluster.stop(0);
                Thread.sleep(500);
                load.verify(client);
                for (final String key : filled)
                {
                    assertEquals("value of " + key, new String(client.get(GrowthZk.bytes(key)),
                        StandardCharsets.UTF_8), key);
                }
                System.out.printf("drain: %d writes, %d failed calls; group 0 dissolved %d ms after the drain (epoch " +
                    "%d), node 0 stopped%n", load.writes(), load.failures(), drainMillis, drained.epoch());
                assertEquals(0, load.failures(), "no write failed: " + load.failureSamples());
            }
        }
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
