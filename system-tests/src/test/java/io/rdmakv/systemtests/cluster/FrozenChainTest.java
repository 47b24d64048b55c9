package io.rdmakv.systemtests.cluster;

import io.rdmakv.client.KvClient;
import io.rdmakv.client.KvTimeoutException;
import io.rdmakv.client.internal.chain.ChainFaults;
import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.ClusterNode;
import io.rdmakv.common.cluster.ReplicaGroup;
import io.rdmakv.common.layout.SlotWord;
import io.rdmakv.server.KvServer;
import io.rdmakv.server.cluster.NodeRole;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.systemtests.LocalCluster;
import io.rdmakv.systemtests.peer.RegionView;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A replica group whose first backup holds a key's slot frozen for a move ({@link SlotWord#MOVING}), as a node
 * freezing the key's partition leaves it midway (docs/growth.md §7: first backup first): writes of the key wait and
 * change nothing on either replica, reads go on, and the writes finish once the slot opens; a write still frozen at
 * its operation timeout fails saying so. Two real nodes, handed their map by hand (as membership would); the
 * freeze is an RDMA CAS on the backup's index, as the freezer's.
 */
class FrozenChainTest
{
    private static final int PRIMARY = 0;
    private static final int BACKUP = 1;
    private static final int PARTITIONS = 64;
    private static final byte[] KEY = bytes("frozen-key");

    private KvServer primary;
    private KvServer backup;
    private NodeRole primaryRole;
    private NodeRole backupRole;

    @BeforeEach
    void start()
    {
        primary = startNode(PRIMARY);
        backup = startNode(BACKUP);
        primaryRole = new NodeRole(primary, (p, epoch) -> 0, (group, epoch, finalPass) -> { });
        backupRole = new NodeRole(backup, (p, epoch) -> 0, (group, epoch, finalPass) -> { });
        final ClusterMap map = new ClusterMap(2, PARTITIONS, List.of(new ClusterNode(PRIMARY, "127.0.0.1",
            primary.port()), new ClusterNode(BACKUP, "127.0.0.1", backup.port())), 2,
            List.of(new ReplicaGroup(0, new int[] {PRIMARY, BACKUP}, null, false)), new int[PARTITIONS]);
        primaryRole.onMap(map);
        backupRole.onMap(map);
    }

    @AfterEach
    void stop()
    {
        ChainFaults.afterFirstBackup(null);
        LocalCluster.closeAll(primaryRole, backupRole, primary, backup);
    }

    private static KvServer startNode(final int id)
    {
        return LocalCluster.startNode(ServerConfig.local(LocalCluster.MEMORY).toBuilder().nodeId(id)
            .zookeeper(new ServerConfig.ZooKeeper("127.0.0.1:2181", "frozen-chain-test", 2, 4000)).build());
    }

    private final PrometheusRegistry registry = new PrometheusRegistry();

    private KvClient client(final Duration opTimeout)
    {
        return KvClient.connect(LocalCluster.clientConfig(LocalCluster.address(primary)).withOpTimeout(opTimeout)
            .withMetrics(registry));
    }

    /** How many runs of {@code op} found the key's partition frozen ({@code rdmakv_client_operations_total}). */
    private double frozenRuns(final String op)
    {
        for (final MetricSnapshot m : registry.scrape())
        {
            if (m.getMetadata().getPrometheusName().equals("rdmakv_client_operations"))
            {
                for (final CounterSnapshot.CounterDataPointSnapshot point : ((CounterSnapshot)m).getDataPoints())
                {
                    if (op.equals(point.getLabels().get("op")) && "frozen".equals(point.getLabels().get("result")))
                    {
                        return point.getValue();
                    }
                }
            }
        }
        return 0;
    }

    /** The count and sum of {@code rdmakv_client_frozen_wait_seconds}. */
    private double[] frozenWaits()
    {
        for (final MetricSnapshot m : registry.scrape())
        {
            if (m.getMetadata().getPrometheusName().equals("rdmakv_client_frozen_wait_seconds"))
            {
                final HistogramSnapshot.HistogramDataPointSnapshot point =
                    ((HistogramSnapshot)m).getDataPoints().getFirst();
                return new double[] {point.getCount(), point.getSum()};
            }
        }
        throw new AssertionError("no rdmakv_client_frozen_wait_seconds");
    }

    @Test
    void writesWaitWhileTheFirstBackupIsFrozenAndFinishOnceItOpens() throws Exception
    {
        try (KvClient client = client(Duration.ofSeconds(20)); RegionView atBackup = new RegionView(backup);
            RegionView atPrimary = new RegionView(primary))
        {
            client.put(KEY, bytes("v1"));
            final RegionView.Slot before = atBackup.find(KEY);
            assertEquals(before.word(), atPrimary.find(KEY).word(), "the replicas agree");
            atBackup.swapSlot(before, before.word() | SlotWord.MOVING);

            // a thread each (the common pool may have one thread on two cores, and would run them one after another)
            final Executor ownThread = task -> Thread.ofPlatform().start(task);
            final CompletableFuture<Void> put =
                CompletableFuture.runAsync(() -> client.put(KEY, bytes("v2")), ownThread);
            final CompletableFuture<Boolean> delete =
                CompletableFuture.supplyAsync(() -> client.delete(KEY), ownThread);
            // once both have met the freeze (each run that finds it counts under result "frozen"), it lasts 300 ms more
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while ((frozenRuns("put") == 0 || frozenRuns("delete") == 0) && System.nanoTime() < deadline)
            {
                Thread.sleep(5);
            }
            Thread.sleep(300);
            assertFalse(put.isDone(), "the PUT waits on the frozen slot");
            assertFalse(delete.isDone(), "the DELETE waits on the frozen slot");
            assertEquals(before.word(), atPrimary.find(KEY).word(), "nothing changed on the primary");
            assertEquals(before.word() | SlotWord.MOVING, atBackup.find(KEY).word(), "nor on the frozen backup");
            assertEquals("v1", string(client.get(KEY)), "reads go on");

            atBackup.swapSlot(new RegionView.Slot(before.slotOffset(), before.word() | SlotWord.MOVING,
                before.blockOffset(), before.blockLength()), before.word());
            put.get(10, TimeUnit.SECONDS);
            // v1 until the slot opened, then v1 or v2 whichever went first: the DELETE always found the key
            assertTrue(delete.get(10, TimeUnit.SECONDS), "the DELETE found the key, before the PUT or after it");
            final double[] waits = frozenWaits();
            assertEquals(2.0, waits[0], "each write that waited counts once");
            assertTrue(waits[1] >= 2 * 0.3, "each waited at least the 300 ms the slot stayed frozen: " + waits[1]);
            final byte[] now = client.get(KEY);
            if (now != null)
            {
                assertEquals("v2", string(now), "the DELETE went first, then the PUT");
                assertEquals(atPrimary.find(KEY).word(), atBackup.find(KEY).word(), "the replicas agree again");
            }
        }
    }

    /**
     * The replicas of a group lift a freeze each when it applies the map that opens (or abandons) the move, in no
     * order: a write whose first backup took its word may find the word it replaces still frozen on the primary. It
     * is decided, so it must land there: it waits for the primary to lift the freeze and CASes again, and is
     * acknowledged only then (ignoring the failed CAS acknowledged a write the primary, which readers read, never got).
     */
    @Test
    void aWriteTheFirstBackupTookWaitsForThePrimaryToLiftItsFreezeAndLandsThere() throws Exception
    {
        try (KvClient client = client(Duration.ofSeconds(20)); RegionView atBackup = new RegionView(backup);
            RegionView atPrimary = new RegionView(primary))
        {
            client.put(KEY, bytes("v1"));
            final RegionView.Slot before = atPrimary.find(KEY);
            final RegionView.Slot frozen = new RegionView.Slot(before.slotOffset(), before.word() | SlotWord.MOVING,
                before.blockOffset(), before.blockLength());
            final CompletableFuture<Long> lifted = new CompletableFuture<>();
            final AtomicBoolean froze = new AtomicBoolean();
            ChainFaults.afterFirstBackup(() ->
            {
                // the PUT read the primary open and won the first backup; the primary is frozen now, and lifts 300 ms on
                ChainFaults.afterFirstBackup(null);
                atPrimary.swapSlot(before, frozen.word());
                froze.set(true);
                Thread.ofPlatform().start(() ->
                {
                    try
                    {
                        Thread.sleep(300);
                        // the time the lift begins: the writer may see it take effect before this call returns
                        final long lifting = System.nanoTime();
                        atPrimary.swapSlot(frozen, before.word());
                        lifted.complete(lifting);
                    }
                    catch (final InterruptedException | RuntimeException e)
                    {
                        lifted.completeExceptionally(e);
                    }
                });
            });

            client.put(KEY, bytes("v2"));
            final long acknowledged = System.nanoTime();

            assertTrue(froze.get(), "the write passed its first backup's CAS through the hook, which froze the primary");
            // Wait for the lifting thread to finish: the writer may see the lift take effect and return before that
            // thread has seen its own CAS complete (checking isDone() here failed 1 run in 4 to 12 so), and atPrimary
            // is its until then (a RegionView is one session, for one thread at a time).
            final long lifting = lifted.get(10, TimeUnit.SECONDS);
            assertTrue(acknowledged - lifting >= 0, "the PUT was acknowledged only after the primary began to lift " +
                "its freeze, not " + (lifting - acknowledged) / 1000 + " us before");
            assertEquals(atBackup.find(KEY).word(), atPrimary.find(KEY).word(), "the write landed on the primary too");
            assertEquals("v2", string(client.get(KEY)), "and readers, who read the primary, see it");
        }
    }

    @Test
    void aWriteStillFrozenAtItsTimeoutFailsSayingSoAndChangesNothing()
    {
        try (KvClient client = client(Duration.ofSeconds(1)); RegionView atBackup = new RegionView(backup);
            RegionView atPrimary = new RegionView(primary))
        {
            client.put(KEY, bytes("v1"));
            final RegionView.Slot before = atBackup.find(KEY);
            atBackup.swapSlot(before, before.word() | SlotWord.MOVING);
            final KvTimeoutException e = assertThrows(KvTimeoutException.class, () -> client.put(KEY, bytes("v2")));
            assertTrue(e.getMessage().contains("partition to open after a move"), e.getMessage());
            assertEquals(before.word(), atPrimary.find(KEY).word());
            assertEquals(before.word() | SlotWord.MOVING, atBackup.find(KEY).word());
            assertEquals("v1", string(client.get(KEY)));
            assertNull(client.get(bytes("other-key")));
        }
    }

    private static byte[] bytes(final String s)
    {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String string(final byte[] b)
    {
        return new String(b, StandardCharsets.UTF_8);
    }
}
