package io.rdmakv.server.cluster;

import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.ClusterNode;
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
import io.rdmakv.server.cluster.map.MemberInfo;
import io.rdmakv.server.cluster.map.MoveRequest;
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
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * REBALANCE as a node of a ZooKeeper cluster takes it ({@link ZkRebalanceDesk}, from {@link
 * ZkMembership#rebalanceDesk}), against a real ZooKeeper server: the request written to {@code rebalance/request} and
 * acted on by the coordinator, a dry run that writes nothing and says why the coordinator could not act, and bad
 * requests refused with nothing written.
 */
class ZkRebalanceDeskTest
{
    /** A move to a group that does not exist: the coordinator can never act on it, so it stays in the znode. */
    private static final String IMPOSSIBLE = "{\"moves\":[{\"partitions\":[0],\"target\":7}]}";
    /** Partition 0 (on group 0) to group 1, which has room in the seeded map. */
    private static final String POSSIBLE = "{\"moves\":[{\"partitions\":[0],\"target\":1}]}";

    private ZkTestCluster cluster;
    private CuratorFramework raw;
    private ZkRebalanceDesk desk;

    /**
     * Groups 0 [0, 1] and 1 [2, 3], 8 partitions (even ones on group 0), each group's segments in the first half of
     * its arena, so a move has room; asked of node 3, a backup (any node takes REBALANCE).
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
        for (int id = 0; id < 4; id++)
        {
            nodes.add(ZkTestCluster.member(id, 1000 + id).node());
            incarnations.put(id, 1000L + id);
        }
        final int[] groups = {0, 1, 0, 1, 0, 1, 0, 1};
        final long arena = RegionGeometry.indexGroupCount(1 << 20, 4096);
        final ClusterMap map = new ClusterMap(1, 1, 8, nodes, 2,
            List.of(new ReplicaGroup(0, new int[] {0, 1}, new int[0], false),
                new ReplicaGroup(1, new int[] {2, 3}, new int[0], false)),
            groups, MapPlanner.segments(groups, new long[] {arena / 2, arena / 2}));
        raw.create().creatingParentsIfNeeded().forPath(ZkPaths.MAP, new StoredMap(map, incarnations).toJson());
        for (int id = 0; id < 4; id++)
        {
            cluster.start(id);
        }
        cluster.awaitMap("the seeded map", map::equals);
        final ZkMembership node3 = cluster.nodes.get(3);
        await("node 3 sees every member", () -> node3.liveMembers().size() == 4);
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

    private byte[] znode() throws Exception
    {
        return raw.checkExists().forPath(ZkPaths.REBALANCE_REQUEST) == null ? null :
            raw.getData().forPath(ZkPaths.REBALANCE_REQUEST);
    }

    private boolean absent(final String path)
    {
        try
        {
            return raw.checkExists().forPath(path) == null;
        }
        catch (final Exception e)
        {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void theLiveMembersAreTheRegisteredNodes()
    {
        assertEquals(List.of(0, 1, 2, 3), cluster.nodes.get(3).liveMembers().stream().map(MemberInfo::id).toList());
    }

    @Test
    void aRequestIsWrittenAndOneTheCoordinatorCannotActOnStaysThere() throws Exception
    {
        final RebalanceOkMessage ok = assertInstanceOf(RebalanceOkMessage.class, ask(false, IMPOSSIBLE));
        assertEquals(RebalanceOkMessage.Outcome.REQUESTED, ok.outcome());
        assertEquals(5, ok.requestId());
        assertTrue(ok.text().startsWith("requested, but the coordinator cannot act on it now: ") &&
            ok.text().contains("group 7 does not exist"), ok.text());
        final MoveRequest written = MoveRequest.fromJson(0, znode());
        assertEquals(List.of(new MoveRequest.Wanted(new int[] {0}, 7, 0)), written.moves());
        assertEquals(List.of(), written.cancel());

        // written over by the next request (the coordinator still cannot act: a partition outside the map)
        final RebalanceOkMessage again = assertInstanceOf(RebalanceOkMessage.class,
            ask(false, "{\"moves\":[{\"partitions\":[9],\"target\":1}],\"cancel\":[]}"));
        assertEquals(RebalanceOkMessage.Outcome.REQUESTED, again.outcome());
        assertEquals(List.of(new MoveRequest.Wanted(new int[] {9}, 1, 0)), MoveRequest.fromJson(0, znode()).moves());
        assertTrue(again.text().contains("partition 9 outside 0..7"), again.text());
    }

    @Test
    void aDryRunWritesNothingAndSaysWhyTheCoordinatorCouldNotAct() throws Exception
    {
        final RebalanceOkMessage no = assertInstanceOf(RebalanceOkMessage.class, ask(true, IMPOSSIBLE));
        assertEquals(RebalanceOkMessage.Outcome.WOULD_WAIT, no.outcome());
        assertTrue(no.text().contains("cannot move [0] -> group 7: group 7 does not exist") &&
            no.text().contains("the map of epoch 1, 4 live member(s)") && no.text().endsWith("nothing written"),
            no.text());
        assertNull(znode());

        final RebalanceOkMessage yes = assertInstanceOf(RebalanceOkMessage.class, ask(true, POSSIBLE));
        assertEquals(RebalanceOkMessage.Outcome.WOULD_ACT, yes.outcome(), yes.text());
        assertNull(znode());
        assertEquals(1, cluster.awaitMap("still the seeded map", m -> true).epoch(), "nothing moved");
    }

    @Test
    void aRequestTheCoordinatorCanActOnStartsABatchAndIsTaken() throws Exception
    {
        final RebalanceOkMessage ok = assertInstanceOf(RebalanceOkMessage.class, ask(false, POSSIBLE));
        assertEquals(RebalanceOkMessage.Outcome.REQUESTED, ok.outcome());
        assertTrue(ok.text().startsWith("requested: the coordinator acts on it"), ok.text());
        final ClusterMap copy = cluster.awaitMap("a batch in COPY", m -> m.moves().batches().size() == 1 &&
            m.moves().batches().get(0).phase() == MovePhase.COPY);
        assertEquals(1, copy.moves().batches().get(0).target());
        await("the request taken", () -> absent(ZkPaths.REBALANCE_REQUEST));
    }

    @Test
    void theGrowthSwitchIsReadAndWrittenAndABadSettingChangesNothing() throws Exception
    {
        final RebalanceOkMessage absent = assertInstanceOf(RebalanceOkMessage.class, ask(false, "{\"auto\":\"status\"}"));
        assertEquals(RebalanceOkMessage.Outcome.WOULD_ACT, absent.outcome());
        assertEquals("/rebalance/auto is off (absent); nothing written", absent.text());
        assertTrue(absent(ZkPaths.REBALANCE_AUTO));

        final RebalanceOkMessage on = assertInstanceOf(RebalanceOkMessage.class, ask(false, "{\"auto\":\"on\"}"));
        assertEquals(RebalanceOkMessage.Outcome.REQUESTED, on.outcome());
        assertTrue(on.text().startsWith("/rebalance/auto was off (absent), now on: "), on.text());
        assertEquals("on", new String(raw.getData().forPath(ZkPaths.REBALANCE_AUTO)));

        final RebalanceOkMessage dry = assertInstanceOf(RebalanceOkMessage.class, ask(true, "{\"auto\":\"off\"}"));
        assertEquals(RebalanceOkMessage.Outcome.WOULD_ACT, dry.outcome());
        assertEquals("/rebalance/auto is on; would set it off; nothing written", dry.text());
        assertEquals("on", new String(raw.getData().forPath(ZkPaths.REBALANCE_AUTO)), "a dry run writes nothing");

        final CodedRefusalMessage bad = CodedRefusalMessage.expect(MessageType.ERROR, ask(false, "{\"auto\":\"yes\"}"));
        assertEquals(ReasonCode.MALFORMED_MESSAGE.code(), bad.code());
        assertTrue(bad.text().contains("not on, off or status") && bad.text().endsWith("nothing written"), bad.text());
        final CodedRefusalMessage extra = CodedRefusalMessage.expect(MessageType.ERROR,
            ask(false, "{\"auto\":\"off\",\"moves\":[]}"));
        assertTrue(extra.text().contains("unknown field \"moves\""), extra.text());
        assertEquals("on", new String(raw.getData().forPath(ZkPaths.REBALANCE_AUTO)), "refused requests write nothing");

        raw.setData().forPath(ZkPaths.REBALANCE_AUTO, "maybe".getBytes());
        final RebalanceOkMessage off = assertInstanceOf(RebalanceOkMessage.class, ask(false, "{\"auto\":\"off\"}"));
        assertTrue(off.text().startsWith("/rebalance/auto was unreadable, taken as off (rebalance/auto holds " +
            "\"maybe\", not on or off), now off: no group forms"), off.text());
        assertEquals("off", new String(raw.getData().forPath(ZkPaths.REBALANCE_AUTO)));
    }

    @Test
    void aBadRequestIsRefusedAndNothingWritten() throws Exception
    {
        raw.create().creatingParentsIfNeeded().forPath(ZkPaths.REBALANCE_REQUEST, IMPOSSIBLE.getBytes());
        final CodedRefusalMessage malformed = CodedRefusalMessage.expect(MessageType.ERROR,
            ask(false, "{\"moves\":[{\"partitions\":[0]}]}"));
        assertEquals(ReasonCode.MALFORMED_MESSAGE.code(), malformed.code());
        assertTrue(malformed.text().startsWith("malformed move request, nothing written: move request move #0"),
            malformed.text());
        final CodedRefusalMessage notJson = CodedRefusalMessage.expect(MessageType.ERROR, ask(true, "moves: 0 -> 1"));
        assertEquals(ReasonCode.MALFORMED_MESSAGE.code(), notJson.code());
        final CodedRefusalMessage empty = CodedRefusalMessage.expect(MessageType.ERROR, ask(false, "{}"));
        assertTrue(empty.text().contains("asks for nothing"), empty.text());
        assertEquals(IMPOSSIBLE, new String(znode()), "the request there is left as it was");
    }
}
