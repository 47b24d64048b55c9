package io.rdmakv.systemtests.ops;

import io.rdmakv.client.KvClient;
import io.rdmakv.client.internal.chain.ChainFaults;
import io.rdmakv.systemtests.LocalCluster;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static io.rdmakv.systemtests.ops.ReplicatedMetricsCluster.awaitEpochAbove;
import static io.rdmakv.systemtests.ops.ReplicatedMetricsCluster.nodeWithRole;
import static io.rdmakv.systemtests.ops.ReplicatedMetricsCluster.roles;
import static io.rdmakv.systemtests.ops.ReplicatedMetricsCluster.sameEpoch;

/**
 * Map changes that fence nobody reach idle clients through heartbeats and the map area, and nodes learn which
 * epochs clients still run operations under. Three child-JVM nodes under ZooKeeper with R = 2 (a group of two and a
 * spare):
 * <ol>
 *   <li>the spare is killed (the node list changes, the fence epoch does not): an idle client's router moves to the
 *       new epoch within a few heartbeat intervals, having read a map area, without any operation, without opening a
 *       session (the group's nodes count the same sessions) and without fencing any;</li>
 *   <li>a write is held mid-chain (after its first backup's CAS, {@link ChainFaults}) under the router of that
 *       epoch while the spare comes back (another placement-only change): the client follows again, and its
 *       heartbeats report the older epoch of the held write to the primary ({@code rdmakv_client_oldest_epoch});
 *       once the write finishes they report the new one.</li>
 * </ol>
 */
class MapFollowTest
{
    private static final String EPOCH = "rdmakv_cluster_epoch";
    private static final String OLDEST = "rdmakv_client_oldest_epoch";
    private static final String FENCED = "rdmakv_sessions_fenced_by_epoch_total";
    private static final String SESSIONS = "rdmakv_connected_clients";

    @TempDir
    Path dir;

    @AfterEach
    void noHook()
    {
        ChainFaults.afterFirstBackup(null);
    }

    @Test
    void placementOnlyChangesReachIdleClientsAndNodesLearnTheEpochsOfRunningOperations() throws Exception
    {
        try (ReplicatedMetricsCluster cluster = new ReplicatedMetricsCluster(dir, 3, 2))
        {
            final ReplicatedMetricsCluster.GroupAndSpare formed = cluster.awaitGroupAndSpare();
            Map<Integer, ReplicatedMetricsCluster.Scrape> scrapes = formed.scrapes();
            final int spare = formed.spare();
            final int primary = formed.primary();
            final int backup = formed.backup();
            try (KvClient client = KvClient.connect(LocalCluster.clientConfig(cluster.seeds())))
            {
                client.put(bytes("before"), bytes("v0")); // this thread's sessions with the primary and the backup
                final long e1 = client.clusterMap().epoch();
                final long fence = client.clusterMap().fenceEpoch();
                scrapes = cluster.awaitScrapes("the client's sessions counted, its heartbeats reporting " + e1,
                    Duration.ofSeconds(10), s -> s.containsKey(primary) && s.get(primary).value(OLDEST) == e1 &&
                    s.get(primary).value(EPOCH) == e1);
                final double primarySessions = scrapes.get(primary).value(SESSIONS);
                final double backupSessions = scrapes.get(backup).value(SESSIONS);

                // 1. an idle client follows a placement-only change
                cluster.kill(spare);
                final long e2 = awaitEpochAbove(cluster, primary, backup, e1, "the spare gone from the map");
                final long t0 = System.nanoTime();
                awaitClientEpoch(client, e2, Duration.ofSeconds(5));
                final long followedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
                assertEquals(fence, client.clusterMap().fenceEpoch(), "a change that fences nobody");
                assertTrue(client.mapAreaReads()[0] >= 1 && client.mapAreaReads()[1] == 0,
                    "followed by reading a map area: " + java.util.Arrays.toString(client.mapAreaReads()));
                scrapes = cluster.scrapeAll();
                assertEquals(primarySessions, scrapes.get(primary).value(SESSIONS), "no session opened or lost");
                assertEquals(backupSessions, scrapes.get(backup).value(SESSIONS), "no session opened or lost");
                assertEquals(0.0, scrapes.get(primary).value(FENCED));
                assertEquals(0.0, scrapes.get(backup).value(FENCED));

                // 2. a write held under the router of e2 while the map moves on to e3
                final CountDownLatch held = new CountDownLatch(1);
                final CountDownLatch release = new CountDownLatch(1);
                final AtomicBoolean hold = new AtomicBoolean(true);
                ChainFaults.afterFirstBackup(() ->
                {
                    if (hold.compareAndSet(true, false))
                    {
                        held.countDown();
                        try
                        {
                            release.await(60, TimeUnit.SECONDS);
                        }
                        catch (final InterruptedException e)
                        {
                            Thread.currentThread().interrupt();
                        }
                    }
                });
                final AtomicReference<Throwable> failed = new AtomicReference<>();
                final Thread writer = Thread.ofPlatform().name("held-writer").start(() ->
                {
                    try
                    {
                        client.put(bytes("held"), bytes("v1"));
                    }
                    catch (final Throwable t)
                    {
                        failed.set(t);
                    }
                });
                assertTrue(held.await(10, TimeUnit.SECONDS), "the write reached its hook");
                cluster.restart(spare);
                final long e3 = awaitEpochAbove(cluster, primary, backup, e2, "the spare back in the map");
                awaitClientEpoch(client, e3, Duration.ofSeconds(5));
                Thread.sleep(1_500); // three heartbeat intervals under the new router
                scrapes = cluster.scrapeAll();
                assertEquals((double)e2, scrapes.get(primary).value(OLDEST),
                    "the held write entered under epoch " + e2 + ": the client still reports it (its map is " + e3 + ")");
                release.countDown();
                writer.join(30_000);
                assertNull(failed.get(), "the held write finished");
                cluster.awaitScrapes("the client reporting " + e3 + " once the write finished", Duration.ofSeconds(10),
                    s -> s.containsKey(primary) && s.get(primary).value(OLDEST) == e3);
                assertArrayEquals(bytes("v1"), client.get(bytes("held")));
                assertArrayEquals(bytes("v0"), client.get(bytes("before")));
                scrapes = cluster.scrapeAll();
                assertEquals(0.0, scrapes.get(primary).value(FENCED), "nothing was fenced");
                assertEquals(0.0, scrapes.get(backup).value(FENCED), "nothing was fenced");
                System.out.println("[map follow] idle client followed epoch " + e1 + " -> " + e2 + " in " + followedMs +
                    " ms after the nodes applied it; map areas read " +
                    java.util.Arrays.toString(client.mapAreaReads()) + "; held write reported " + e2 + " under " + e3);
            }
        }
    }

    private static void awaitClientEpoch(final KvClient client, final long epoch, final Duration within)
        throws InterruptedException
    {
        final long deadline = System.nanoTime() + within.toNanos();
        while (client.clusterMap().epoch() < epoch && System.nanoTime() < deadline)
        {
            Thread.sleep(10);
        }
        assertEquals(epoch, client.clusterMap().epoch(), "the idle client's router within " + within);
    }

    private static byte[] bytes(final String s)
    {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
