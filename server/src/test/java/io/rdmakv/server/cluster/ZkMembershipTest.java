package io.rdmakv.server.cluster;

import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.ClusterNode;
import io.rdmakv.common.cluster.ReplicaGroup;
import io.rdmakv.server.cluster.map.MemberInfo;
import io.rdmakv.server.cluster.map.StoredMap;
import io.rdmakv.server.cluster.map.SyncPhase;
import io.rdmakv.server.cluster.map.SyncReport;
import io.rdmakv.server.cluster.zk.ZkOptions;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

import static io.rdmakv.server.cluster.ZkTestCluster.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Memberships of made-up nodes against a real ZooKeeper server (curator-test's TestingServer). */
class ZkMembershipTest
{
    private ZkTestCluster cluster;

    @AfterEach
    void tearDown() throws IOException
    {
        if (cluster != null)
        {
            cluster.close();
        }
    }

    private static boolean group(final ClusterMap map, final int g, final int[] members, final int[] copying,
        final boolean sealed)
    {
        final ReplicaGroup group = map.groups().get(g);
        return Arrays.equals(group.members(), members) && Arrays.equals(group.copying(), copying) &&
            group.sealed() == sealed;
    }

    private static List<Integer> nodeIds(final ClusterMap map)
    {
        return map.nodes().stream().map(ClusterNode::id).toList();
    }

    private CuratorFramework rawClient()
    {
        final CuratorFramework c = CuratorFrameworkFactory.builder().connectString(cluster.server.getConnectString())
            .retryPolicy(new RetryOneTime(100)).namespace("rdmakv/test").build();
        c.start();
        return c;
    }

    @Test
    void threeNodesFormAMapAndThePrimarysDepartureFailsOverToItsBackup() throws Exception
    {
        cluster = new ZkTestCluster(2, 1500);
        cluster.start(0);
        cluster.start(1);
        cluster.start(2);
        final ClusterMap formed = cluster.awaitMap("a map of group [0, 1] and spare 2",
            m -> m.groups().size() == 1 && group(m, 0, new int[] {0, 1}, new int[0], false) &&
                nodeIds(m).equals(List.of(0, 1, 2)));
        assertEquals(2, formed.replicationFactor());
        assertEquals(8, formed.partitionCount());
        assertEquals(0, formed.nodeFor(3).id());
        for (final ZkMembership m : cluster.nodes.values())
        {
            assertEquals(2, m.replicas());
            assertTrue(m.connected());
        }
        await("one coordinator", () -> cluster.coordinator() != null);

        cluster.stop(0);
        final ClusterMap after = cluster.awaitMap("1 primary, spare 2 copying",
            m -> group(m, 0, new int[] {1}, new int[] {2}, false));
        assertEquals(1, after.nodeFor(3).id());
        assertEquals(List.of(1, 2), nodeIds(after));
        for (final Recorder r : cluster.recorders.values())
        {
            r.assertOrdered();
            assertEquals(List.of(true), r.connections);
        }
        // the failover is a map of its own (1 primary alone) before the spare is made copying. A listener need not
        // see it: a ZooKeeper watch is one-shot and the next read gets the newest data, so under load both maps can
        // be written before a node reads again (this assertion, made on the listeners, failed so once). The map
        // znode keeps the map each one replaced: the failover map is the copying map's previous.
        try (CuratorFramework raw = rawClient())
        {
            final StoredMap stored = StoredMap.fromJson(raw.getData().forPath("/map"));
            assertEquals(after, stored.map());
            final ClusterMap failover = stored.previous().map();
            assertTrue(failover.epoch() > formed.epoch() && group(failover, 0, new int[] {1}, new int[0], false),
                "the failover map was written on its own: " + failover);
        }
        await("the failover counted", () -> cluster.nodes.values().stream().mapToLong(ZkMembership::failovers).sum() == 1);
        assertEquals(after, cluster.nodes.get(1).currentMap());
    }

    @Test
    void aSpareReplacingAGoneBackupBecomesAMemberThroughItsSyncReports() throws Exception
    {
        cluster = new ZkTestCluster(2, 1500);
        cluster.start(0);
        cluster.start(1);
        cluster.awaitMap("group [0, 1]", m -> group(m, 0, new int[] {0, 1}, new int[0], false));
        final ZkMembership spare = cluster.start(2);
        cluster.awaitMap("spare 2 listed", m -> nodeIds(m).contains(2));
        cluster.stop(1);
        final ClusterMap copying = cluster.awaitMap("2 copying", m -> group(m, 0, new int[] {0}, new int[] {2}, false));

        spare.reportSync(0, copying.epoch(), SyncPhase.BULK);
        final ClusterMap sealed = cluster.awaitMap("sealed", m -> group(m, 0, new int[] {0}, new int[] {2}, true));
        assertEquals(copying.epoch() + 1, sealed.epoch());
        spare.reportSync(0, sealed.epoch(), SyncPhase.FINAL);
        final ClusterMap synced = cluster.awaitMap("2 a member", m -> group(m, 0, new int[] {0, 2}, new int[0], false));
        assertEquals(sealed.epoch() + 1, synced.epoch());
        try (CuratorFramework raw = rawClient())
        {
            final SyncReport report = SyncReport.fromJson(2, raw.getData().forPath("/sync/2"));
            assertEquals(new SyncReport(2, 0, sealed.epoch(), SyncPhase.FINAL), report);
            assertNotEquals(0, raw.checkExists().forPath("/sync/2").getEphemeralOwner(), "ephemeral");
        }
        cluster.recorders.values().forEach(Recorder::assertOrdered);
    }

    @Test
    void whenTheCoordinatorLeavesAnotherNodeLeadsAndKeepsTheMap() throws Exception
    {
        cluster = new ZkTestCluster(2, 1500).withCreationSettle();
        for (int id = 0; id < 4; id++)
        {
            cluster.start(id);
        }
        final ClusterMap formed = cluster.awaitMap("groups [0, 1] and [2, 3]",
            m -> m.groups().size() == 2 && group(m, 0, new int[] {0, 1}, new int[0], false) &&
                group(m, 1, new int[] {2, 3}, new int[0], false));
        await("one coordinator", () -> cluster.coordinator() != null);
        final int old = cluster.coordinator().self().id();
        assertEquals(1, cluster.nodes.values().stream().filter(ZkMembership::isCoordinator).count());

        cluster.stop(old);
        await("another coordinator", () -> cluster.coordinator() != null);
        final ZkMembership next = cluster.coordinator();
        assertNotEquals(old, next.self().id());
        final int oldGroup = formed.groupOfNode(old).id();
        final ClusterMap after = cluster.awaitMap("node " + old + " removed",
            m -> m.groupOfNode(old) == null && m.node(old) == null);
        assertTrue(after.epoch() > formed.epoch(), "the map goes on, it is not created again");
        assertArrayEquals(formed.partitionGroups(), after.partitionGroups());
        assertEquals(formed.groups().get(1 - oldGroup), after.groups().get(1 - oldGroup), "the other group untouched");
        assertEquals(1, after.groups().get(oldGroup).memberCount());
        if (formed.groups().get(oldGroup).primary() == old)
        {
            await("the failover counted by the new coordinator", () -> next.failovers() == 1);
        }
        cluster.recorders.values().forEach(Recorder::assertOrdered);
    }

    @Test
    void aMapWrittenUnderTheCoordinatorsFeetRefusesItsWriteAndItPlansAgain() throws Exception
    {
        cluster = new ZkTestCluster(1, 1500).withCreationSettle();
        cluster.start(0);
        cluster.start(1);
        final ClusterMap formed = cluster.awaitMap("two groups", m -> m.groups().size() == 2);
        await("one coordinator", () -> cluster.coordinator() != null);
        final Coordinator coordinator = cluster.coordinator().coordinator();
        final long externalEpoch;
        try (CuratorFramework raw = rawClient())
        {
            final Stat stat = new Stat();
            final StoredMap stored = StoredMap.fromJson(raw.getData().storingStatIn(stat).forPath("/map"));
            assertEquals(formed, stored.map());
            // a stale versioned write is refused
            final ClusterMap bumped = new ClusterMap(formed.epoch() + 1, formed.partitionCount(), formed.nodes(),
                formed.replicationFactor(), formed.groups(), formed.partitionGroups()).withSegments(formed.segments());
            externalEpoch = bumped.epoch();
            final byte[] json = new StoredMap(bumped, stored.incarnations()).toJson();
            final AtomicBoolean once = new AtomicBoolean();
            coordinator.beforeWrite = () ->
            {
                if (once.compareAndSet(false, true))
                {
                    try
                    {
                        raw.setData().withVersion(stat.getVersion()).forPath("/map", json);
                    }
                    catch (final Exception e)
                    {
                        throw new IllegalStateException(e);
                    }
                }
            };
            final long refusedBefore = coordinator.refusedWrites();
            cluster.start(2);
            final ClusterMap after = cluster.awaitMap("spare 2 listed", m -> nodeIds(m).contains(2));
            assertTrue(once.get(), "the map was written under the coordinator's feet");
            assertTrue(coordinator.refusedWrites() > refusedBefore, "the coordinator's stale write was refused");
            assertEquals(externalEpoch + 1, after.epoch(), "planned again from the map that was there");
            assertThrows(KeeperException.BadVersionException.class,
                () -> raw.setData().withVersion(stat.getVersion()).forPath("/map", json));
        }
        cluster.recorders.values().forEach(Recorder::assertOrdered);
    }

    @Test
    void zooKeeperDownTellsTheListenersAndChangesNoMapUntilItIsBack() throws Exception
    {
        // a session long enough to outlast the server's restart: this test is about the connection, not expiry
        cluster = new ZkTestCluster(2, 20_000);
        cluster.start(0);
        cluster.start(1);
        final ClusterMap formed = cluster.awaitMap("group [0, 1]", m -> group(m, 0, new int[] {0, 1}, new int[0], false));
        cluster.server.stop();
        await("every node told disconnected", () -> cluster.recorders.values().stream()
            .allMatch(r -> r.connections.equals(List.of(true, false))));
        for (final ZkMembership m : cluster.nodes.values())
        {
            assertFalse(m.connected());
            assertFalse(m.isCoordinator());
            assertEquals(formed, m.currentMap(), "the map stays");
        }
        cluster.server.restart();
        await("every node told connected again", () -> cluster.recorders.values().stream()
            .allMatch(r -> r.connections.equals(List.of(true, false, true))));
        cluster.nodes.values().forEach(m -> assertTrue(m.connected()));
        // the next change is the first since the outage: nothing changed while ZooKeeper was away
        cluster.start(2);
        final ClusterMap after = cluster.awaitMap("spare 2 listed", m -> nodeIds(m).contains(2));
        assertEquals(formed.epoch() + 1, after.epoch());
        assertEquals(formed.groups(), after.groups());
        for (final int id : new int[] {0, 1})
        {
            final Recorder r = cluster.recorders.get(id);
            assertEquals(List.of(formed.epoch(), after.epoch()), r.maps.stream().map(ClusterMap::epoch).toList());
            r.assertOrdered();
        }
    }

    /**
     * ZooKeeper down for longer than the session timeout, then back: every node's client gave up its session and
     * opened a new one, while the restarted server brings the old sessions back from its log only to expire them
     * a session timeout later; every member znode then vanishes, and each node registers again a round trip
     * later (ZooKeeperDownTest failed once in ten on this race). Made certain here: a member znode vanishes and
     * the same process (same incarnation) registers again at once under a new session. The coordinator sees it gone in between; it must wait the promotion wait before it drops
     * anyone, and then find it back: the map stays.
     */
    @Test
    void aBackupThatRegistersAgainAtOnceKeepsItsPlace() throws Exception
    {
        cluster = new ZkTestCluster(2, 1500);
        cluster.start(0);
        cluster.start(1);
        cluster.start(2);
        final ClusterMap formed = cluster.awaitMap("group [0, 1], spare 2", m ->
            group(m, 0, new int[] {0, 1}, new int[0], false) && nodeIds(m).contains(2));
        for (final int id : new int[] {1, 2, 1})
        {
            cluster.stop(id);
            cluster.start(id);
            Thread.sleep(2L * cluster.sessionTimeoutMs);
            for (final ZkMembership m : cluster.nodes.values())
            {
                assertEquals(formed.epoch(), m.currentMap().epoch(), "node " + id + " registered again at once, " +
                    "yet the map changed to " + m.currentMap());
            }
        }
    }

    @Test
    void anEarlierProcessOfTheSameIdIsWaitedOutAndALiveOneRefused() throws Exception
    {
        cluster = new ZkTestCluster(1, 1500);
        cluster.start(1);
        final CuratorFramework earlier = rawClient();
        earlier.create().creatingParentsIfNeeded().withMode(CreateMode.EPHEMERAL)
            .forPath("/members/0", ZkTestCluster.member(0, 7).toJson());
        final CompletableFuture<ZkMembership> joining = CompletableFuture.supplyAsync(() ->
        {
            try
            {
                return ZkMembership.start(cluster.options(), ZkTestCluster.member(0, 8), new Recorder());
            }
            catch (final IOException e)
            {
                throw new IllegalStateException(e);
            }
        });
        // the earlier process's session ends: its znode goes, the new one registers
        earlier.close();
        final ZkMembership joined = joining.get();
        try (CuratorFramework raw = rawClient())
        {
            assertEquals(8, MemberInfo.fromJson(raw.getData().forPath("/members/0")).incarnation());
            // a node id held by a live process is refused
            final IOException refused = assertThrows(IOException.class,
                () -> ZkMembership.start(cluster.options(), ZkTestCluster.member(0, 9), new Recorder()));
            assertTrue(refused.getMessage().contains("another live process"), refused.getMessage());
        }
        finally
        {
            joined.close();
            joined.close();
        }
        assertNotNull(cluster.nodes.get(1).currentMap());
    }

    @Test
    void aNodeWhoseSessionExpiredRegistersAgainInItsNewSession() throws Exception
    {
        cluster = new ZkTestCluster(2, 1500);
        cluster.start(0);
        cluster.start(1);
        final ZkMembership spare = cluster.start(2);
        cluster.awaitMap("group [0, 1], spare 2", m -> group(m, 0, new int[] {0, 1}, new int[0], false) &&
            nodeIds(m).contains(2));
        final long oldSession = spare.client().getZookeeperClient().getZooKeeper().getSessionId();
        spare.client().getZookeeperClient().getZooKeeper().getTestable().injectSessionExpiration();
        final Recorder recorder = cluster.recorders.get(2);
        await("node 2 told disconnected, then connected", () -> recorder.connections.size() >= 3 &&
            recorder.connections.equals(List.of(true, false, true)));
        try (CuratorFramework raw = rawClient())
        {
            await("members/2 registered in the new session", () ->
            {
                try
                {
                    final long session = spare.client().getZookeeperClient().getZooKeeper().getSessionId();
                    final Stat stat = raw.checkExists().forPath("/members/2");
                    return session != oldSession && stat != null && stat.getEphemeralOwner() == session;
                }
                catch (final Exception e)
                {
                    return false;
                }
            });
            assertEquals(1002, MemberInfo.fromJson(raw.getData().forPath("/members/2")).incarnation());
        }
        cluster.awaitMap("node 2 listed", m -> nodeIds(m).contains(2) && group(m, 0, new int[] {0, 1}, new int[0], false));
        assertTrue(spare.connected());
        cluster.recorders.values().forEach(Recorder::assertOrdered);
    }

    @Test
    void anUnreachableZooKeeperFailsTheStartSayingSo() throws Exception
    {
        cluster = new ZkTestCluster(1, 1500);
        final ZkOptions options = cluster.options();
        cluster.server.stop();
        final IOException e = assertThrows(IOException.class,
            () -> ZkMembership.start(options, ZkTestCluster.member(0, 1), new Recorder()));
        assertTrue(e.getMessage().contains("cannot reach ZooKeeper at " + options.connectString()), e.getMessage());
    }
}
