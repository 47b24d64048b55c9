package io.rdmakv.systemtests.replication;

import io.rdmakv.client.KvClient;
import io.rdmakv.client.Versioned;
import io.rdmakv.client.internal.chain.ChainFaults;
import io.rdmakv.common.layout.SlotWord;
import io.rdmakv.server.KvServer;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.server.control.ChainSweeps;
import io.rdmakv.server.control.ServerCounter;
import io.rdmakv.systemtests.Await;
import io.rdmakv.systemtests.LocalCluster;
import io.rdmakv.systemtests.peer.RegionView;
import io.rdmakv.testsupport.concurrent.Racers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Replicated writes on the one-sided path (static replicated map, no ZooKeeper): every write reaches every
 * replica's index and data area at the same places; racing writers leave the replicas equal and lose no
 * successful compare-and-set; a writer stopped between its first backup's CAS and its primary's is finished
 * by the primary when it may still finish itself, and undone when it is gone: by the next writer of its key, or,
 * when there is none, by the primary's sweep of its backups before it reclaims the gone writer's space.
 */
class ChainReplicationTest
{
    @TempDir
    Path dir;

    private ReplicatedPair group;
    private final CountDownLatch sweepStarted = new CountDownLatch(1);
    private final CountDownLatch sweepReleased = new CountDownLatch(1);

    @AfterEach
    void stop()
    {
        ChainFaults.afterFirstBackup(null);
        ChainSweeps.beforeEachSweep(null);
        sweepReleased.countDown();
        LocalCluster.closeAll(group);
        for (final KvServer node : group.nodes)
        {
            // a clean shutdown: the nodes' grant checks closed their sessions before the protection domain
            assertEquals(0, node.closeFailures(), "what node " + node.nodeId() + "'s close could not release");
        }
    }

    /** Holds every sweep of a primary's backups until {@link #sweepReleased} (the primary's space stays held). */
    private void holdSweeps()
    {
        ChainSweeps.beforeEachSweep(() ->
        {
            sweepStarted.countDown();
            try
            {
                sweepReleased.await(60, TimeUnit.SECONDS);
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
            }
        });
    }

    private static byte[] key(final int i)
    {
        return LocalCluster.bytes("replicated-" + i);
    }

    private static byte[] value(final int i, final int version, final int length)
    {
        final byte[] v = new byte[length];
        for (int b = 0; b < length; b++)
        {
            v[b] = (byte)(i * 31 + version * 7 + b);
        }
        return v;
    }

    /**
     * An insert (a PUT of an absent key) whose backup is gone must fail, as an update does: the chain's failure is
     * the backup lane's, and the insert once reported the primary lane's instead (0: success), acknowledging a write
     * no backup took (the map-change history test saw such PUTs acknowledged and never readable).
     */
    @Test
    void aWriteWhoseBackupIsGoneIsNeverAcknowledged() throws Exception
    {
        group = ReplicatedPair.start(dir, 2);
        try (KvClient client = KvClient.connect(LocalCluster.clientConfig(group.address(0))
            .withOpTimeout(Duration.ofSeconds(2))))
        {
            client.put(key(0), value(0, 1, 100)); // sessions open with both nodes
            group.nodes[1].close();
            assertThrows(io.rdmakv.client.KvException.class, () -> client.put(key(1), value(1, 1, 100)),
                "an insert with its backup gone");
            assertThrows(io.rdmakv.client.KvException.class, () -> client.put(key(0), value(0, 2, 100)),
                "an update with its backup gone");
            assertNull(client.get(key(1)), "the failed insert is nowhere");
        }
    }

    @Test
    void everyWriteReachesEveryReplicaAtTheSamePlace()
    {
        group = ReplicatedPair.start(dir, 3);
        try (KvClient client = group.client())
        {
            assertEquals(3, client.clusterMap().replicationFactor());
            final Map<Integer, byte[]> expected = new HashMap<>();
            for (int i = 0; i < 400; i++)
            {
                final byte[] v = value(i, 1, 10 + i * 37 % 3000);
                client.put(key(i), v);
                expected.put(i, v);
            }
            for (int i = 0; i < 400; i += 3)
            {
                final byte[] v = value(i, 2, 20 + i % 700);
                client.put(key(i), v);
                expected.put(i, v);
            }
            for (int i = 1; i < 400; i += 5)
            {
                assertTrue(client.delete(key(i)));
                expected.remove(i);
            }
            for (int i = 2; i < 400; i += 7)
            {
                final Versioned seen = client.getVersioned(key(i));
                if (seen != null)
                {
                    final byte[] v = value(i, 3, 33);
                    assertTrue(client.putIfVersion(key(i), v, seen.version()));
                    assertFalse(client.putIfVersion(key(i), value(i, 4, 33), seen.version()), "a stale version");
                    expected.put(i, v);
                }
            }
            assertTrue(client.putIfVersion(key(1000), value(1000, 1, 8), KvClient.ABSENT));
            assertFalse(client.putIfVersion(key(1000), value(1000, 2, 8), KvClient.ABSENT), "insert-if-absent twice");
            expected.put(1000, value(1000, 1, 8));
            for (int i = 0; i < 1001; i++)
            {
                assertArrayEquals(expected.get(i), client.get(key(i)), "key " + i);
            }
            final long puts = client.stats().puts();
            assertTrue(puts > 0);
        }
        group.assertReplicasEqual();
    }

    @Test
    void racingWritersLeaveReplicasEqualAndLoseNoIncrement() throws Exception
    {
        group = ReplicatedPair.start(dir, 2);
        final int threads = 6;
        final int increments = 60;
        final Set<String> written = ConcurrentHashMap.newKeySet();
        final AtomicLong conflicts = new AtomicLong();
        try (KvClient client = group.client())
        {
            final byte[] counter = LocalCluster.bytes("counter");
            client.put(counter, ByteBuffer.allocate(8).putLong(0).array());
            final java.util.List<Throwable> failures = Racers.run("chain-racer", threads, t ->
            {
                for (int n = 0; n < increments; )
                {
                    final Versioned seen = client.getVersioned(counter);
                    final long next = ByteBuffer.wrap(seen.value()).getLong() + 1;
                    if (client.putIfVersion(counter, ByteBuffer.allocate(8).putLong(next).array(), seen.version()))
                    {
                        n++;
                    }
                    else
                    {
                        conflicts.incrementAndGet();
                    }
                    final int k = (n + t) % 8;
                    final String v = "t" + t + "-n" + n;
                    written.add(k + "=" + v);
                    if ((n + t) % 5 == 0)
                    {
                        client.delete(key(k));
                    }
                    else
                    {
                        client.put(key(k), LocalCluster.bytes(v));
                    }
                }
            }, java.time.Duration.ofSeconds(120));
            assertEquals(java.util.List.of(), failures);
            assertEquals((long)threads * increments, ByteBuffer.wrap(client.get(counter)).getLong(),
                "every successful compare-and-set counted once (" + conflicts.get() + " conflicts)");
            for (int k = 0; k < 8; k++)
            {
                final byte[] v = client.get(key(k));
                assertTrue(v == null || written.contains(k + "=" + new String(v)), "key " + k + " holds a written value");
            }
        }
        group.assertReplicasEqual();
    }

    @Test
    void aWriterStuckAfterItsBackupIsFinishedByThePrimaryWhileItsSessionLives()
    {
        group = ReplicatedPair.start(dir, 2);
        try (KvClient stuck = group.client(); KvClient other = group.client())
        {
            other.put(key(1), value(1, 1, 100));
            ChainFaults.afterFirstBackup(() ->
            {
                if (Thread.currentThread().getName().equals("stuck-writer"))
                {
                    throw new IllegalStateException("writer stopped between its backup and its primary");
                }
            });
            final Thread writer = Thread.ofPlatform().name("stuck-writer").unstarted(() ->
                assertThrows(IllegalStateException.class, () -> stuck.put(key(1), value(1, 2, 100))));
            writer.start();
            join(writer);
            assertArrayEquals(value(1, 1, 100), other.get(key(1)), "readers read the primary: not yet there");
            other.put(key(1), value(1, 3, 100));
            assertArrayEquals(value(1, 3, 100), other.get(key(1)));
            assertEquals(1, group.nodes[0].counters().get(ServerCounter.CHAIN_HELPED), "the primary finished it");
        }
        group.assertReplicasEqual();
    }

    @Test
    void aWriterGoneAfterItsBackupIsUndone()
    {
        group = ReplicatedPair.start(dir, 2);
        try (KvClient other = group.client())
        {
            other.put(key(2), value(2, 1, 100));
            other.put(key(3), value(3, 1, 100));
            holdSweeps();
            try (KvClient gone = group.client())
            {
                ChainFaults.afterFirstBackup(() ->
                {
                    throw new IllegalStateException("writer died between its backup and its primary");
                });
                assertThrows(IllegalStateException.class, () -> gone.put(key(2), value(2, 2, 100)));
                assertThrows(IllegalStateException.class, () -> gone.putIfVersion(key(4), value(4, 1, 10),
                    KvClient.ABSENT));
                ChainFaults.afterFirstBackup(null);
            }
            // the gone writer's session ended (BYE): its grants are reclaimed, so the primary refuses to finish
            assertArrayEquals(value(2, 1, 100), other.get(key(2)));
            assertNull(other.get(key(4)));
            other.put(key(2), value(2, 3, 100));
            assertTrue(other.putIfVersion(key(4), value(4, 2, 10), KvClient.ABSENT));
            assertArrayEquals(value(2, 3, 100), other.get(key(2)));
            assertArrayEquals(value(4, 2, 10), other.get(key(4)));
            assertArrayEquals(value(3, 1, 100), other.get(key(3)));
            assertEquals(2, group.nodes[0].counters().get(ServerCounter.CHAIN_HELPS_REFUSED),
                "the primary refused to finish both writes of the gone writer");
            // the primary's sweep was held meanwhile; let go, it finds the backups already put back
            sweepReleased.countDown();
            final KvServer primary = group.nodes[0];
            Await.until("the primary swept its backups", Duration.ofSeconds(30),
                () -> primary.counters().get(ServerCounter.CHAIN_SWEEPS) > 0);
            assertEquals(0, primary.counters().get(ServerCounter.CHAIN_SWEEP_ROLLBACKS), "nothing left to put back");
        }
        group.assertReplicasEqual();
    }

    @Test
    void aGoneWritersWordIsPutBackOnTheBackupsBeforeItsSpaceIsReclaimedAndReused() throws Exception
    {
        // small nodes and chunks: the gone writer's space is granted again after a few hundred writes
        group = ReplicatedPair.start(dir, 3, ServerConfig.local(4L << 20).withChunkSize(256 << 10));
        final KvServer primary = group.nodes[0];
        final byte[] k = key(5);
        try (KvClient other = group.client())
        {
            other.put(k, value(5, 1, 300));
            holdSweeps();
            final long reclaimedBefore = primary.counters().get(ServerCounter.RECLAIMED_BYTES);
            try (KvClient gone = group.client())
            {
                ChainFaults.afterFirstBackup(() ->
                {
                    throw new IllegalStateException("writer died between its first backup and its primary");
                });
                assertThrows(IllegalStateException.class, () -> gone.put(k, value(5, 2, 300)));
                ChainFaults.afterFirstBackup(null);
            }
            // its session ended (BYE): the primary drained it and now sweeps before it reclaims anything
            assertTrue(sweepStarted.await(30, TimeUnit.SECONDS), "the primary sweeps its backups");
            final long slot;
            final long acknowledged;
            final long dead;
            try (RegionView p = new RegionView(group.ports[0]); RegionView b1 = new RegionView(group.ports[1]);
                RegionView b2 = new RegionView(group.ports[2]))
            {
                slot = p.find(k).slotOffset();
                acknowledged = p.longAt(slot);
                dead = b1.longAt(slot);
                assertNotEquals(acknowledged, dead, "backup 1 names the gone writer's block");
                assertEquals(acknowledged, b2.longAt(slot), "backup 2 was never reached");
            }
            assertEquals(reclaimedBefore, primary.counters().get(ServerCounter.RECLAIMED_BYTES),
                "the gone writer's space stays held while the backups are not swept");
            assertArrayEquals(value(5, 1, 300), other.get(k), "readers read the primary");

            sweepReleased.countDown();
            Await.until("the sweep, then the reclaim", Duration.ofSeconds(30),
                () -> primary.counters().get(ServerCounter.RECLAIMED_BYTES) > reclaimedBefore);
            assertEquals(1, primary.counters().get(ServerCounter.CHAIN_SWEEPS));
            assertEquals(1, primary.counters().get(ServerCounter.CHAIN_SWEEP_ROLLBACKS), "backup 1's slot put back");
            assertEquals(0, primary.counters().get(ServerCounter.CHAIN_HELPS_REFUSED), "no client had to");
            assertBackupsHold(slot, acknowledged);
            assertArrayEquals(value(5, 1, 300), other.get(k));

            // reuse: other keys' blocks land where the gone writer's block was, on every replica
            final long deadAt = primary.geometry().dataOffset() + SlotWord.blockOffset(dead);
            final int deadLength = SlotWord.blockLength(dead);
            try (RegionView p = new RegionView(group.ports[0]))
            {
                final byte[] before = p.bytes(deadAt, deadLength);
                boolean reused = false;
                for (int i = 0; i < 20_000 && !reused; i++)
                {
                    other.put(key(100 + i % 40), value(i, 3, 700));
                    reused = i % 50 == 49 && !Arrays.equals(before, p.bytes(deadAt, deadLength));
                }
                assertTrue(reused, "the gone writer's space was granted and written again");
            }
            assertBackupsHold(slot, acknowledged);
            assertArrayEquals(value(5, 1, 300), other.get(k), "the acknowledged value survives the reuse");
        }
        group.assertReplicasEqual();
    }

    /**
     * A zombie writer: paused after its first backup's CAS while its session on the primary ends (fenced there), its
     * sessions with the backups alive (its janitor heartbeats them). The primary sweeps backup 1 back and reclaims
     * the writer's space; when the writer resumes, its CAS on backup 2 must not land, or backup 2 would name a block
     * in space the primary reuses (and be ahead of backup 1: a failover promoting it serves a reused block). The
     * backups fence the writer at the primary's request before the sweep reads them (FENCE_WRITERS).
     */
    @Test
    void aZombieWriterCannotCasABackupAfterThePrimarySweptIt() throws Exception
    {
        group = ReplicatedPair.start(dir, 3);
        final KvServer primary = group.nodes[0];
        final byte[] k = key(6);
        final CountDownLatch stalled = new CountDownLatch(1);
        final CountDownLatch resume = new CountDownLatch(1);
        try (KvClient other = group.client();
            KvClient zombie = KvClient.connect(LocalCluster.clientConfig(group.address(0))
                .withOpTimeout(Duration.ofSeconds(2))))
        {
            other.put(k, value(6, 1, 300));
            final long version = zombie.getVersioned(k).version();
            ChainFaults.afterFirstBackup(() ->
            {
                stalled.countDown();
                try
                {
                    resume.await(60, TimeUnit.SECONDS);
                }
                catch (final InterruptedException e)
                {
                    Thread.currentThread().interrupt();
                }
            });
            final AtomicLong outcome = new AtomicLong(-1);
            final Thread writer = Thread.ofPlatform().name("zombie").start(() ->
            {
                try
                {
                    outcome.set(zombie.putIfVersion(k, value(6, 2, 300), version) ? 1 : 0);
                }
                catch (final RuntimeException e)
                {
                    outcome.set(2);
                }
            });
            assertTrue(stalled.await(30, TimeUnit.SECONDS), "the writer took backup 1 and stalled");
            final long slot;
            final long acknowledged;
            try (RegionView p = new RegionView(group.ports[0]); RegionView b1 = new RegionView(group.ports[1]))
            {
                slot = p.find(k).slotOffset();
                acknowledged = p.longAt(slot);
                assertNotEquals(acknowledged, b1.longAt(slot), "backup 1 names the stalled writer's block");
            }

            final long sweepsBefore = primary.counters().get(ServerCounter.CHAIN_SWEEPS);
            final long reclaimedBefore = primary.counters().get(ServerCounter.RECLAIMED_BYTES);
            assertTrue(primary.selfFence("test: the writer's session on the primary ends") >= 2);
            Await.until("the primary swept its backups and reclaimed the writer's space", Duration.ofSeconds(30),
                () -> primary.counters().get(ServerCounter.CHAIN_SWEEPS) > sweepsBefore &&
                    primary.counters().get(ServerCounter.RECLAIMED_BYTES) > reclaimedBefore);
            assertEquals(1, primary.counters().get(ServerCounter.CHAIN_SWEEP_ROLLBACKS), "backup 1 put back");

            ChainFaults.afterFirstBackup(null);
            resume.countDown();
            join(writer);
            assertEquals(2, outcome.get(), "the writer's compare-and-set failed (its effect unknown to it)");
            assertBackupsHold(slot, acknowledged);
            assertArrayEquals(value(6, 1, 300), other.get(k), "the acknowledged value");
            for (int b = 1; b <= 2; b++)
            {
                assertTrue(group.nodes[b].counters().get(ServerCounter.SESSIONS_FENCED_FOR_PRIMARY) >= 1,
                    "backup " + b + " fenced the writer at the primary's request");
            }
        }
        finally
        {
            resume.countDown();
        }
        group.assertReplicasEqual();
    }

    /** Every backup's {@code slot} holds {@code word}, whose block is byte for byte the primary's. */
    private void assertBackupsHold(final long slot, final long word)
    {
        try (RegionView p = new RegionView(group.ports[0]))
        {
            final long at = p.geometry().dataOffset() + SlotWord.blockOffset(word);
            for (int i = 1; i < group.ports.length; i++)
            {
                try (RegionView b = new RegionView(group.ports[i]))
                {
                    assertEquals(word, b.longAt(slot), "backup " + i + " holds the primary's word");
                    assertArrayEquals(p.bytes(at, SlotWord.blockLength(word)), b.bytes(at, SlotWord.blockLength(word)),
                        "backup " + i + " holds the primary's block");
                }
            }
        }
    }

    @Test
    void roundTripsOfAReplicatedWriteAreCountedOnce()
    {
        group = ReplicatedPair.start(dir, 2);
        try (KvClient client = group.client())
        {
            client.put(key(7), value(7, 1, 50));
            final io.rdmakv.client.ClientStats before = client.stats();
            client.put(key(7), value(7, 2, 50));
            final io.rdmakv.client.ClientStats after = client.stats();
            // the primary's WRITE (with the slot's READ when the entry is older), the first backup's WRITE +
            // CAS, the primary's CAS: three, against two without replication
            assertEquals(3, after.putRoundTrips() - before.putRoundTrips(), "round trips of the PUT");
            assertEquals(3, after.roundTrips() - before.roundTrips(), "the same three in the client's total");
            final io.rdmakv.client.ClientStats beforeDelete = client.stats();
            assertTrue(client.delete(key(7)));
            final io.rdmakv.client.ClientStats afterDelete = client.stats();
            assertEquals(afterDelete.roundTrips() - beforeDelete.roundTrips(),
                afterDelete.deleteRoundTrips() - beforeDelete.deleteRoundTrips(), "a DELETE's chain counted once");
        }
    }

    @Test
    void kvctlClusterShowsTheGroup()
    {
        group = ReplicatedPair.start(dir, 2);
        final java.io.StringWriter out = new java.io.StringWriter();
        final java.io.StringWriter err = new java.io.StringWriter();
        final List<String> args = new ArrayList<>(List.of("--hosts", group.address(0)));
        args.addAll(LocalCluster.kvctlArgs());
        args.add("cluster");
        final int code = io.rdmakv.kvctl.KvCtl.run(new java.io.PrintWriter(out), new java.io.PrintWriter(err),
            Map.of(), args.toArray(String[]::new));
        assertEquals(0, code, err.toString());
        final String text = out.toString();
        assertTrue(text.startsWith("epoch 1, 64 partitions, 2 node(s), 2 replicas per group\n"), text);
        assertTrue(text.contains("node 0  " + group.address(0) + "  primary of group 0\n"), text);
        assertTrue(text.contains("node 1  " + group.address(1) + "  backup in group 0\n"), text);
        assertTrue(text.contains("group 0  64 partitions  in sync: members [0, 1]\n"), text);
    }

    private static void join(final Thread thread)
    {
        try
        {
            thread.join(60_000);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
