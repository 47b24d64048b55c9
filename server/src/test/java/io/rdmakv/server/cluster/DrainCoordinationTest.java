package io.rdmakv.server.cluster;

import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.ClusterNode;
import io.rdmakv.common.cluster.MoveBatch;
import io.rdmakv.common.cluster.MovePhase;
import io.rdmakv.common.cluster.ReplicaGroup;
import io.rdmakv.common.layout.RegionGeometry;
import io.rdmakv.common.protocol.CodedRefusalMessage;
import io.rdmakv.common.protocol.ControlMessage;
import io.rdmakv.common.protocol.RebalanceMessage;
import io.rdmakv.common.protocol.RebalanceOkMessage;
import io.rdmakv.common.protocol.wire.MessageType;
import io.rdmakv.common.protocol.wire.ReasonCode;
import io.rdmakv.server.cluster.map.MapPlanner;
import io.rdmakv.server.cluster.map.StoredMap;
import io.rdmakv.server.cluster.zk.ZkPaths;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static io.rdmakv.server.cluster.ZkTestCluster.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code kvctl drain} against a real ZooKeeper server: REBALANCE with a drain ({@link ZkRebalanceDesk}) creates or
 * deletes {@code drain/<id>}, and the coordinator, watching {@code drain}, plans from it with the switch off: a
 * group owning nothing is dissolved at once, its nodes spares; a group owning partitions gets a batch moving them
 * away. Made-up nodes: nobody acts on a batch, so it stays in COPY.
 */
class DrainCoordinationTest
{
    private ZkTestCluster cluster;
    private CuratorFramework raw;
    private ZkRebalanceDesk desk;

    /**
     * Groups 0 [0, 1] (even partitions) and 1 [2, 3] (odd), each one's segments in the first half of its arena, and
     * group 2 [4, 5], owning nothing (as rule 4 forms one); 8 partitions, R = 2, {@code rebalance/auto} absent (off).
     * The drains are asked of node 3.
     */
    @BeforeEach
    void seed() throws Exception
    {
        cluster = new ZkTestCluster(2, 1500);
        raw = CuratorFrameworkFactory.builder().connectString(cluster.server.getConnectString())
            .retryPolicy(new RetryOneTime(100)).namespace("rdmakv/test").build();
        raw.start();
        final List<ClusterNode> nodes = new ArrayList<>();
        final Map<Integer, Long> incarnations = new TreeMap<>();
        for (int id = 0; id < 6; id++)
        {
            nodes.add(ZkTestCluster.member(id, 1000 + id).node());
            incarnations.put(id, 1000L + id);
        }
        final int[] groups = {0, 1, 0, 1, 0, 1, 0, 1};
        final long arena = RegionGeometry.indexGroupCount(1 << 20, 4096);
        final ClusterMap map = new ClusterMap(1, 1, 8, nodes, 2,
            List.of(new ReplicaGroup(0, new int[] {0, 1}, new int[0], false),
                new ReplicaGroup(1, new int[] {2, 3}, new int[0], false),
                new ReplicaGroup(2, new int[] {4, 5}, new int[0], false)),
            groups, MapPlanner.segments(groups, new long[] {arena / 2, arena / 2, arena}));
        raw.create().creatingParentsIfNeeded().forPath(ZkPaths.MAP, new StoredMap(map, incarnations).toJson());
        for (int id = 0; id < 6; id++)
        {
            cluster.start(id);
        }
        cluster.awaitMap("the seeded map", map::equals);
        final ZkMembership node3 = cluster.nodes.get(3);
        await("node 3 sees every member", () -> node3.liveMembers().size() == 6);
        desk = node3.rebalanceDesk();
    }

    @AfterEach
    void tearDown() throws Exception
    {
        if (desk != null)
        {
            desk.close();
        }
        if (raw != null)
        {
            raw.close();
        }
        if (cluster != null)
        {
            cluster.close();
        }
    }

    private ControlMessage ask(final boolean dryRun, final String json) throws Exception
    {
        return desk.ask(new RebalanceMessage(5, dryRun, json)).get();
    }

    private boolean present(final String path) throws Exception
    {
        return raw.checkExists().forPath(path) != null;
    }

    @Test
    void aDrainedGroupOwningNothingIsDissolvedAndItsNodesShowAsSpares() throws Exception
    {
        final RebalanceOkMessage ok = assertInstanceOf(RebalanceOkMessage.class, ask(false, "{\"drain\":5}"));
        assertEquals(RebalanceOkMessage.Outcome.REQUESTED, ok.outcome());
        assertTrue(ok.text().startsWith("node 5 is being drained (/drain/5 created); node 5 is in group 2"),
            ok.text());
        assertTrue(present(ZkPaths.drain(5)));
        final ClusterMap dissolved = cluster.awaitMap("group 2 dissolved", m -> m.groups().size() == 2);
        assertEquals(List.of(0, 1), dissolved.groups().stream().map(ReplicaGroup::id).toList());
        assertNull(dissolved.groupOfNode(4));
        assertNull(dissolved.groupOfNode(5));
        assertTrue(dissolved.fenceEpoch() < dissolved.epoch(), "a group dissolved holding nothing fences nobody");
        await("node 3 applied it", () -> cluster.nodes.get(3).currentMap().groups().size() == 2);

        final RebalanceOkMessage again = assertInstanceOf(RebalanceOkMessage.class, ask(false, "{\"drain\":5}"));
        assertTrue(again.text().startsWith("node 5 is already being drained; node 5 is a spare") &&
            again.text().endsWith("drained, safe to stop (it joins no group)"), again.text());
    }

    @Test
    void aDrainedGroupOwningPartitionsGetsABatchAwayAndACancelDeletesTheZnode() throws Exception
    {
        final RebalanceOkMessage dry = assertInstanceOf(RebalanceOkMessage.class, ask(true, "{\"drain\":0}"));
        assertEquals(RebalanceOkMessage.Outcome.WOULD_ACT, dry.outcome());
        assertTrue(dry.text().startsWith("would create /drain/0 (absent now)"), dry.text());
        assertFalse(present(ZkPaths.drain(0)), "a dry run writes nothing");

        assertInstanceOf(RebalanceOkMessage.class, ask(false, "{\"drain\":0}"));
        final ClusterMap moving = cluster.awaitMap("a batch away from group 0", m -> !m.moves().batches().isEmpty());
        final MoveBatch b = moving.moves().batches().get(0);
        assertEquals(1, moving.moves().batches().size());
        assertEquals(0, b.source(), "the switch is off: only the draining group gives");
        assertEquals(2, b.target(), "targets 0, 4, 4: group 1 has its 4, group 2 none");
        assertEquals(MovePhase.COPY, b.phase());

        final RebalanceOkMessage cancel = assertInstanceOf(RebalanceOkMessage.class,
            ask(false, "{\"drain\":0,\"cancel\":true}"));
        assertTrue(cancel.text().startsWith("drain of node 0 cancelled (/drain/0 deleted)"), cancel.text());
        assertFalse(present(ZkPaths.drain(0)));
        final RebalanceOkMessage twice = assertInstanceOf(RebalanceOkMessage.class,
            ask(false, "{\"drain\":0,\"cancel\":true}"));
        assertTrue(twice.text().startsWith("node 0 was not being drained: nothing to cancel"), twice.text());
    }

    @Test
    void anUnknownNodeOrABadRequestIsRefusedAndNothingWritten() throws Exception
    {
        final CodedRefusalMessage unknown = CodedRefusalMessage.expect(MessageType.ERROR, ask(false, "{\"drain\":9}"));
        assertEquals(ReasonCode.MALFORMED_MESSAGE.code(), unknown.code());
        assertTrue(unknown.text().startsWith("node 9 is not in the cluster map (epoch 1, nodes [0, 1, 2, 3, 4, 5]): " +
            "nothing written"), unknown.text());
        assertFalse(present(ZkPaths.drain(9)));
        final CodedRefusalMessage bad = CodedRefusalMessage.expect(MessageType.ERROR,
            ask(false, "{\"drain\":1,\"cancel\":\"yes\"}"));
        assertTrue(bad.text().startsWith("malformed drain request, nothing written"), bad.text());
        assertFalse(present(ZkPaths.drain(1)));

        // a node gone from the map whose drain znode is left over: its drain can still be cancelled
        raw.create().creatingParentsIfNeeded().forPath(ZkPaths.drain(9));
        final RebalanceOkMessage left = assertInstanceOf(RebalanceOkMessage.class,
            ask(false, "{\"drain\":9,\"cancel\":true}"));
        assertTrue(left.text().startsWith("drain of node 9 cancelled"), left.text());
        assertFalse(present(ZkPaths.drain(9)));
    }
}
