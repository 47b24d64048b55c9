package io.rdmakv.server.cluster;

import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.ClusterNode;
import io.rdmakv.common.cluster.ReplicaGroup;
import io.rdmakv.common.layout.RegionGeometry;
import io.rdmakv.server.cluster.map.MapPlanner;
import io.rdmakv.server.cluster.map.StoredMap;
import io.rdmakv.server.cluster.zk.ZkPaths;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The growth switch {@code rebalance/auto} against a real ZooKeeper server: absent or unreadable, spares stay
 * spares; turned {@code on}, the coordinator (woken by the change) forms a new group of two spares, which every
 * node accepts.
 */
class NewGroupCoordinationTest
{
    private ZkTestCluster cluster;
    private CuratorFramework raw;

    @AfterEach
    void tearDown() throws IOException
    {
        if (raw != null)
        {
            raw.close();
        }
        if (cluster != null)
        {
            cluster.close();
        }
    }

    private static boolean lists(final ClusterMap map, final int id)
    {
        return map.nodes().stream().anyMatch(n -> n.id() == id);
    }

    @Test
    void sparesFormAGroupOnlyOnceTheSwitchIsOn() throws Exception
    {
        cluster = new ZkTestCluster(2, 1500);
        raw = CuratorFrameworkFactory.builder().connectString(cluster.server.getConnectString())
            .retryPolicy(new RetryOneTime(100)).namespace("rdmakv/test").build();
        raw.start();
        // groups 0 [0, 1] and 1 [2, 3] as creation makes them, written before any node starts
        final List<ClusterNode> nodes = new ArrayList<>();
        final Map<Integer, Long> incarnations = new TreeMap<>();
        for (int id = 0; id < 4; id++)
        {
            nodes.add(ZkTestCluster.member(id, 1000 + id).node());
            incarnations.put(id, 1000L + id);
        }
        final int[] groups = {0, 1, 0, 1, 0, 1, 0, 1};
        final long arena = RegionGeometry.indexGroupCount(1 << 20, 4096);
        final ClusterMap seeded = new ClusterMap(1, 1, 8, nodes, 2,
            List.of(new ReplicaGroup(0, new int[] {0, 1}, new int[0], false),
                new ReplicaGroup(1, new int[] {2, 3}, new int[0], false)),
            groups, MapPlanner.segments(groups, new long[] {arena, arena}));
        raw.create().creatingParentsIfNeeded().forPath(ZkPaths.MAP, new StoredMap(seeded, incarnations).toJson());
        for (int id = 0; id < 6; id++)
        {
            cluster.start(id);
        }
        final ClusterMap spares = cluster.awaitMap("4 and 5 listed", m -> lists(m, 4) && lists(m, 5));
        assertEquals(2, spares.groups().size(), "no switch: spares stay spares");

        // an unreadable switch counts as off: the map that lists the next spare forms no group
        raw.create().creatingParentsIfNeeded().forPath(ZkPaths.REBALANCE_AUTO, "maybe".getBytes(StandardCharsets.UTF_8));
        cluster.start(6);
        final ClusterMap listed = cluster.awaitMap("6 listed", m -> lists(m, 6));
        assertEquals(2, listed.groups().size(), "a bad switch is off");

        raw.setData().forPath(ZkPaths.REBALANCE_AUTO, "on\n".getBytes(StandardCharsets.UTF_8));
        final ClusterMap formed = cluster.awaitMap("a new group", m -> m.groups().size() == 3);
        assertEquals(new ReplicaGroup(2, new int[] {4, 5}, new int[0], false), formed.groups().get(2));
        assertTrue(formed.fenceEpoch() < formed.epoch(), "a new group holding nothing fences nobody");
        assertEquals(0, formed.partitionsOf(4).length, "and owns no partition");
        assertTrue(java.util.Arrays.equals(seeded.partitionGroups(), formed.partitionGroups()));
        assertNull(formed.groupOfNode(6), "one spare left over");
        for (final Recorder r : cluster.recorders.values())
        {
            assertTrue(r.refusals.isEmpty(), "every node accepted every map: " + r.refusals);
            r.assertOrdered();
        }
    }
}
