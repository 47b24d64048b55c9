package io.rdmakv.client;

import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.ClusterNode;
import io.rdmakv.common.cluster.ReplicaGroup;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a client takes from a node's map area, and how often it reads one: maps older than the node claimed, not
 * newer than the client's, of another cluster's shape or fencing below the client's are refused; a node's area is
 * read once per newer epoch it claims and never faster than the probe interval.
 */
class MapFollowerTest
{
    @Test
    void followsANewerMapOfTheSameClusterInPlaceOrFencing()
    {
        final ClusterMap held = map(5, 5, 64, 2);
        assertNull(MapFollower.refusal(held, map(6, 5, 64, 2), 6), "placement only: the same fence epoch");
        assertNull(MapFollower.refusal(held, map(9, 8, 64, 2), 7), "a newer map that fences");
    }

    @Test
    void refusesWhatAHostileOrConfusedNodeOffers()
    {
        final ClusterMap held = map(5, 5, 64, 2);
        assertEquals("it says it applied epoch 1000000000000 but its map area holds epoch 6",
            MapFollower.refusal(held, map(6, 5, 64, 2), 1_000_000_000_000L));
        assertTrue(MapFollower.refusal(held, map(5, 5, 64, 2), 5).contains("not newer"));
        assertTrue(MapFollower.refusal(held, map(6, 5, 128, 2), 6).contains("another cluster's"));
        assertTrue(MapFollower.refusal(held, map(6, 5, 64, 3), 6).contains("another cluster's"));
        assertTrue(MapFollower.refusal(held, ClusterMap.of(6, List.of(new ClusterNode(0, "h", 1))), 6)
            .contains("another cluster's"), "an unreplicated map");
        assertTrue(MapFollower.refusal(held, map(6, 4, 64, 2), 6).contains("fences at epoch 4"));
    }

    @Test
    void readsANodesAreaOncePerNewerEpochAndNeverFasterThanTheSpacing()
    {
        final MapFollower.ReadGate gate = new MapFollower.ReadGate(100);
        assertTrue(gate.due(1, 6, 0));
        gate.reading(1, 6, 0);
        assertFalse(gate.due(1, 6, 1_000), "the same claim again: not read again");
        assertFalse(gate.due(1, 5, 1_000));
        assertFalse(gate.due(1, 7, 50), "a newer claim within the spacing waits");
        assertTrue(gate.due(1, 7, 100));
        assertTrue(gate.due(2, 6, 1), "another node has its own");
        gate.reading(1, Long.MAX_VALUE, 100);
        assertFalse(gate.due(1, Long.MAX_VALUE, 10_000), "a node claiming the largest epoch is read once");
    }

    /**
     * Probes still connecting when the client closes hold sessions of its protection domain: close ends them and
     * waits, so the domain is not closed under them (ChainReplicationTest once saw {@code ibv_dealloc_pd} refused,
     * "still has 1 memory region and 1 queue pair", from a probe session of a closed client).
     */
    @Test
    void closeEndsAndWaitsForProbesStillConnecting() throws Exception
    {
        final java.util.concurrent.atomic.AtomicInteger connecting = new java.util.concurrent.atomic.AtomicInteger();
        final java.util.concurrent.CountDownLatch started = new java.util.concurrent.CountDownLatch(3);
        final io.rdmakv.client.internal.session.Router.SessionOpener hanging = address ->
        {
            connecting.incrementAndGet();
            started.countDown();
            try
            {
                Thread.sleep(60_000); // a node that never answers the connect
                throw new AssertionError("not interrupted");
            }
            catch (final InterruptedException e)
            {
                throw new io.rdmakv.peer.SessionFailedException(address, e);
            }
            finally
            {
                connecting.decrementAndGet();
            }
        };
        final io.rdmakv.client.internal.session.Router router = new io.rdmakv.client.internal.session.Router(
            map(5, 5, 64, 2), hanging, new io.rdmakv.client.internal.op.SlotCache(64));
        final MapFollower follower = new MapFollower(router, hanging, List.of(),
            java.util.concurrent.TimeUnit.SECONDS.toNanos(30));
        final Thread waiting = Thread.ofPlatform().start(() ->
        {
            try
            {
                follower.await(router, 0L, "a test");
            }
            catch (final RuntimeException e)
            {
                // the operation's wait ends with the client
            }
        });
        assertTrue(started.await(10, java.util.concurrent.TimeUnit.SECONDS), "a probe per node is connecting");
        final long start = System.nanoTime();
        follower.close();
        assertEquals(0, connecting.get(), "every probe ended before close returned");
        assertTrue(System.nanoTime() - start < java.util.concurrent.TimeUnit.SECONDS.toNanos(5), "ended, not waited out");
        waiting.join(10_000);
    }

    private static ClusterMap map(final long epoch, final long fence, final int partitions, final int replicas)
    {
        final List<ClusterNode> nodes = List.of(new ClusterNode(0, "127.0.0.1", 7000),
            new ClusterNode(1, "127.0.0.1", 7001), new ClusterNode(2, "127.0.0.1", 7002));
        return new ClusterMap(epoch, fence, partitions, nodes, replicas,
            List.of(new ReplicaGroup(0, new int[] {0, 1}, null, false)), new int[partitions]);
    }
}
