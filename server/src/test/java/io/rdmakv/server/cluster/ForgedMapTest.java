package io.rdmakv.server.cluster;

import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.ReplicaGroup;
import io.rdmakv.server.cluster.map.MapCheck;
import io.rdmakv.server.cluster.map.MapRefusal;
import io.rdmakv.server.cluster.map.StoredMap;
import io.rdmakv.server.cluster.zk.ZkCredentials;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import static io.rdmakv.server.cluster.ZkTestCluster.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Maps written into ZooKeeper by someone other than the coordinator, through a client authenticated with the
 * cluster's own credential, each breaking one of {@link MapCheck}'s rules: no node applies it, each node that reads
 * it refuses and counts it once (the coordinator's node always: the coordinator reads it to write the last good map
 * back), and the cluster still fails over afterwards.
 */
class ForgedMapTest
{
    private static final ZkCredentials CREDENTIALS = ZkCredentials.parse("rdmakv:forged-map-test", "the test");

    private ZkTestCluster cluster;
    private ClusterMap formed;

    @BeforeEach
    void form() throws Exception
    {
        cluster = new ZkTestCluster(2, 1500).withCredentials(CREDENTIALS);
        cluster.start(0);
        cluster.start(1);
        cluster.awaitMap("group [0, 1]", m -> m.groups().size() == 1 && members(m).length == 2);
        cluster.start(2);
        formed = cluster.awaitMap("spare 2 listed", m -> m.nodes().size() == 3);
        await("one coordinator", () -> cluster.coordinator() != null);
    }

    @AfterEach
    void tearDown() throws IOException
    {
        if (cluster != null)
        {
            cluster.close();
        }
    }

    private static int[] members(final ClusterMap map)
    {
        return map.groups().get(0).members();
    }

    /**
     * A client holding the cluster's own credential (the ACLs let it write): what the checks must stop is a map no
     * coordinator writes, whoever writes it (a leaked credential, an operator's mistake, a bug).
     */
    private CuratorFramework forger()
    {
        final CuratorFramework c = CuratorFrameworkFactory.builder().connectString(cluster.server.getConnectString())
            .authorization("digest", CREDENTIALS.authBytes())
            .retryPolicy(new RetryOneTime(100)).namespace("rdmakv/test").build();
        c.start();
        return c;
    }

    /**
     * Writes {@code forge} of the stored map over it; checks the coordinator restored the map's groups two epochs
     * up, its node counted the refusal for {@code reason}, no node counted it twice and none applied it.
     */
    private void forgeAndExpect(final MapRefusal reason, final Function<StoredMap, byte[]> forge) throws Exception
    {
        final Coordinator coordinator = cluster.coordinator().coordinator();
        final long restoresBefore = coordinator.restores();
        final Stat stat = new Stat();
        final StoredMap stored;
        try (CuratorFramework forger = forger())
        {
            stored = StoredMap.fromJson(forger.getData().storingStatIn(stat).forPath("/map"));
            final Map<Integer, Integer> refusedBefore = refusals(reason);
            forger.setData().withVersion(stat.getVersion()).forPath("/map", forge.apply(stored));
            final long restored = stat.getVersion() + 3L;
            final ClusterMap back = cluster.awaitMap("the map restored at epoch " + restored,
                m -> m.epoch() == restored);
            // a node whose watch read the forged version refused it; one whose watch read only the restored map
            // (the coordinator may write it back first) never saw it; the coordinator's node always counts it
            final int coordinatorId = cluster.nodes.entrySet().stream()
                .filter(e -> e.getValue().coordinator() == coordinator).findFirst().orElseThrow().getKey();
            await("the coordinator's node counted the " + reason.label() + " map refused", () ->
                count(cluster.recorders.get(coordinatorId), reason) == refusedBefore.get(coordinatorId) + 1);
            cluster.recorders.forEach((id, r) -> assertTrue(count(r, reason) - refusedBefore.get(id) <= 1,
                "node " + id + " counted the forged map once at most: " + r.refusals));
            assertEquals(stored.map().groups(), back.groups(), "the groups of the map before the forgery");
            assertEquals(stored.map().nodes(), back.nodes());
            // counted after its setData returns, which the nodes' watches (its own node's too) may beat: awaited
            // (asserted at once, it failed once in a run of the cluster tests on two loaded cores)
            await("the coordinator counted its restore", () -> coordinator.restores() > restoresBefore);
            final Stat now = new Stat();
            final StoredMap after = StoredMap.fromJson(forger.getData().storingStatIn(now).forPath("/map"));
            assertEquals(now.getVersion() + 1L, after.map().epoch(), "one epoch per write again");
        }
        for (final Recorder r : cluster.recorders.values())
        {
            assertTrue(r.maps.stream().allMatch(m -> m.epoch() <= stored.map().epoch() ||
                m.groups().equals(stored.map().groups())), "no node applied the forged map: " + r.maps);
            r.assertOrdered();
        }
    }

    private Map<Integer, Integer> refusals(final MapRefusal reason)
    {
        final Map<Integer, Integer> counts = new java.util.TreeMap<>();
        cluster.recorders.forEach((id, r) -> counts.put(id, count(r, reason)));
        return counts;
    }

    private static int count(final Recorder r, final MapRefusal reason)
    {
        return (int) r.refusals.stream().filter(reason::equals).count();
    }

    private static ClusterMap reshaped(final ClusterMap m, final long epoch, final List<ReplicaGroup> groups)
    {
        return new ClusterMap(epoch, m.partitionCount(), m.nodes(), m.replicationFactor(), groups,
            m.partitionGroups());
    }

    @Test
    void forgedMapsAreRefusedRestoredAndTheClusterStillFailsOver() throws Exception
    {
        // the epoch at the end of the range: the coordinator once failed forever on epoch + 1
        forgeAndExpect(MapRefusal.EPOCH, s -> s.withEpoch(Long.MAX_VALUE).toJson());
        // one epoch up, the spare (never copied) made the group's only member: its keys would read as absent
        forgeAndExpect(MapRefusal.PROMOTION, s -> new StoredMap(reshaped(s.map(), s.map().epoch() + 1,
            List.of(new ReplicaGroup(0, new int[] {2}, new int[0], false))), Map.of(2, 1002L)).after(s).toJson());
        // a new group taking backup 1 out of group 0 (with the spare): group 0 would lose a replica to an empty group
        forgeAndExpect(MapRefusal.PROMOTION, s -> new StoredMap(reshaped(s.map(), s.map().epoch() + 1,
            List.of(new ReplicaGroup(0, new int[] {0}, new int[0], false),
                new ReplicaGroup(1, new int[] {1, 2}, new int[0], false))).withSegments(s.map().segments()),
            Map.of(0, 1000L, 1, 1001L, 2, 1002L)).after(s).toJson());
        // a new group of the spare that owns a partition nothing moved to it: its keys would read as absent
        forgeAndExpect(MapRefusal.PLACEMENT, s ->
        {
            final int[] partitionGroups = s.map().partitionGroups();
            partitionGroups[3] = 1;
            return new StoredMap(new ClusterMap(s.map().epoch() + 1, s.map().partitionCount(), s.map().nodes(), 2,
                List.of(s.map().groups().get(0), new ReplicaGroup(1, new int[] {2}, new int[0], false)),
                partitionGroups).withSegments(s.map().segments()), Map.of(0, 1000L, 1, 1001L, 2, 1002L)).after(s)
                .toJson();
        });
        // group 0 dissolved while it owns every partition, handed to a new group of the spare: every key would be
        // lost (a group is dissolved only when it owns, moves and retires nothing, growth.md §12 "Drain")
        forgeAndExpect(MapRefusal.GEOMETRY, s ->
        {
            final int[] partitionGroups = new int[s.map().partitionCount()];
            Arrays.fill(partitionGroups, 1);
            return new StoredMap(new ClusterMap(s.map().epoch() + 1, s.map().partitionCount(), s.map().nodes(), 2,
                List.of(new ReplicaGroup(1, new int[] {2}, new int[0], false)), partitionGroups)
                .withSegments(s.map().segments()), Map.of(2, 1002L)).after(s).toJson();
        });
        // other geometry: the partitions of a cluster never change
        forgeAndExpect(MapRefusal.GEOMETRY, s -> new StoredMap(new ClusterMap(s.map().epoch() + 1, 16,
            s.map().nodes(), 2, s.map().groups(), new int[16]), s.incarnations()).after(s).toJson());
        // a partition's index segment shrunk: its keys would be looked for in groups that do not hold them
        forgeAndExpect(MapRefusal.SEGMENTS, s ->
        {
            final long[] segments = s.map().segments();
            segments[0] = io.rdmakv.common.hash.KeyHash.segment(io.rdmakv.common.hash.KeyHash.segmentBase(segments[0]), 2);
            return new StoredMap(new ClusterMap(s.map().epoch() + 1, s.map().fenceEpoch(), s.map().partitionCount(),
                s.map().nodes(), 2, s.map().groups(), s.map().partitionGroups(), segments), s.incarnations()).after(s)
                .toJson();
        });
        // a move that appears already frozen: nobody copied, and its source would freeze for nothing
        forgeAndExpect(MapRefusal.MOVE_START, s -> new StoredMap(s.map().withMoves(new io.rdmakv.common.cluster.MapMoves(
            List.of(new io.rdmakv.common.cluster.MoveBatch(1, 0, 0, io.rdmakv.common.cluster.MovePhase.FREEZE,
                s.map().epoch() + 1, new int[] {0}, new long[] {io.rdmakv.common.hash.KeyHash.segment(1L << 30, 8)})),
            List.of())), s.incarnations()).withEpoch(s.map().epoch() + 1).after(s).toJson());
        // a retired segment out of nowhere: the group would keep (and mark MOVED) a segment nothing moved from
        forgeAndExpect(MapRefusal.RETIRED, s -> new StoredMap(s.map().withMoves(new io.rdmakv.common.cluster.MapMoves(
            List.of(), List.of(new io.rdmakv.common.cluster.RetiredSegment(0, 0,
                io.rdmakv.common.hash.KeyHash.segment(1L << 30, 8), s.map().epoch() + 1, 1)))), s.incarnations())
            .withEpoch(s.map().epoch() + 1).after(s).toJson());
        forgeAndExpect(MapRefusal.UNREADABLE, s -> "{\"map\": 42}".getBytes(java.nio.charset.StandardCharsets.UTF_8));

        assertArrayEquals(members(formed), members(cluster.recorders.get(2).last()));
        cluster.stop(0);
        final ClusterMap failedOver = cluster.awaitMap("1 primary after 0 left",
            m -> Arrays.equals(members(m), new int[] {1}));
        assertEquals(1, failedOver.nodeFor(0).id());
        await("the failover counted", () -> cluster.nodes.values().stream().mapToLong(ZkMembership::failovers)
            .sum() == 1);
    }
}
