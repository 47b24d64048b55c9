package io.rdmakv.systemtests.replication;

import io.rdmakv.client.KvClient;
import io.rdmakv.client.KvTimeoutException;
import io.rdmakv.client.internal.chain.ChainFaults;
import io.rdmakv.common.hash.KeyHash;
import io.rdmakv.common.layout.BucketDescriptor;
import io.rdmakv.common.layout.MovedHeader;
import io.rdmakv.common.layout.SlotWord;
import io.rdmakv.server.KvServer;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.server.control.ServerCounter;
import io.rdmakv.server.replication.PartitionFreezer;
import io.rdmakv.systemtests.Await;
import io.rdmakv.systemtests.LocalCluster;
import io.rdmakv.systemtests.peer.RegionView;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The partition freezer on a group's primary (docs/growth.md §7, "Freezing A, in chain order") and the local marks,
 * run through the node's test hook ({@code KvServer#partitionMoves}) on one replica group under a static map with a
 * segment table: partition {@link #FROZEN} has a segment of {@link #FROZEN_GROUPS} groups (more than one chunk of
 * the freezer's), the others smaller ones. Checks what a move relies on: after the freeze every slot of the segment
 * carries MOVING on every replica, the replicas agree word for word, the frozen slots hold every acknowledged write;
 * writes of the partition wait (inserts too, never "table full") while other partitions' go on, and finish once
 * MOVING is cleared; a write caught between its first backup and the primary is finished while its writer's session
 * lives and undone once it is gone; a MOVED mark turns reads of the partition away.
 */
class PartitionFreezerTest
{
    private static final int FROZEN = 7;
    /**
     * Whether the nodes run emulated (the Soft-RoCE VM under TCG, whose operation timeout is above the 10 s default):
     * there a freeze of a 1,200-group segment under load took 1 to 16 s a case, so the frozen segment is one chunk
     * and a part (still more than one chunk) and the quiet case writes fewer keys.
     */
    private static final boolean EMULATED = LocalCluster.OP_TIMEOUT.toMillis() > 10_000;
    private static final long FROZEN_GROUPS = PartitionFreezer.CHUNK_GROUPS * (EMULATED ? 1L : 2L) + 176;
    private static final int QUIET_KEYS = EMULATED ? 600 : 1500;
    private static final long OTHER_GROUPS = 480;
    private static final long[] SEGMENTS = segments();

    @TempDir
    Path dir;

    private ReplicatedPair group;

    @AfterEach
    void stop()
    {
        ChainFaults.afterFirstBackup(null);
        PartitionFreezer.beforeEachDecision(null);
        LocalCluster.closeAll(group);
    }

    /** {@link #FROZEN} first, at group 0; every other partition after it, {@link #OTHER_GROUPS} each. */
    private static long[] segments()
    {
        final long[] segments = new long[ReplicatedPair.PARTITIONS];
        long base = FROZEN_GROUPS;
        for (int p = 0; p < segments.length; p++)
        {
            if (p == FROZEN)
            {
                segments[p] = KeyHash.segment(0, FROZEN_GROUPS);
            }
            else
            {
                segments[p] = KeyHash.segment(base, OTHER_GROUPS);
                base += OTHER_GROUPS;
            }
        }
        return segments;
    }

    private ReplicatedPair start(final int nodes)
    {
        return ReplicatedPair.start(dir, nodes, ServerConfig.local(LocalCluster.MEMORY), SEGMENTS);
    }

    /**
     * The writers' operation timeout: they wait out two freezes of the segment and the clears. 20 s, or the test
     * clients' own when longer (the Soft-RoCE VM's 60 s: under TCG a freeze of the 16,800 slots over rxe took 5.4 s
     * with one backup and 7.8 s with two, and 20 s was too short).
     */
    private static Duration writerTimeout()
    {
        final Duration floor = Duration.ofSeconds(20);
        return LocalCluster.OP_TIMEOUT.compareTo(floor) > 0 ? LocalCluster.OP_TIMEOUT : floor;
    }

    /** {@code count} keys named {@code prefix-i} whose partition {@code frozen} is or is not {@link #FROZEN}. */
    private static List<byte[]> keys(final String prefix, final int count, final boolean frozen)
    {
        final List<byte[]> keys = new ArrayList<>();
        for (int i = 0; keys.size() < count; i++)
        {
            final byte[] key = bytes(prefix + "-" + i);
            if ((KeyHash.partition(KeyHash.hash(key), ReplicatedPair.PARTITIONS) == FROZEN) == frozen)
            {
                keys.add(key);
            }
        }
        return keys;
    }

    @ParameterizedTest(name = "{0} replicas")
    @ValueSource(ints = {2, 3})
    void aFreezeUnderLoadFreezesEveryReplicaAndWritesWaitUntilMovingIsCleared(final int replicas) throws Exception
    {
        group = start(replicas);
        final KvServer primary = group.nodes[0];
        final List<byte[]> frozenKeys = keys("frozen", 24, true);
        final List<byte[]> otherKeys = keys("other", 8, false);
        try (KvClient client = KvClient.connect(LocalCluster.clientConfig(group.address(0))
            .withOpTimeout(writerTimeout())); Ledger frozenWriters = new Ledger(client, frozenKeys, 3);
            Ledger otherWriters = new Ledger(client, otherKeys, 1))
        {
            Await.until("writes of both partitions", Duration.ofSeconds(10),
                () -> frozenWriters.acknowledged() > 100 && otherWriters.acknowledged() > 20);

            final PartitionFreezer.Frozen frozen = primary.partitionMoves().freeze(SEGMENTS[FROZEN]);

            System.out.println("frozen under load, " + replicas + " replicas: " + frozen);
            assertEquals(FROZEN_GROUPS * BucketDescriptor.SLOTS_PER_GROUP, frozen.slots());
            assertEquals(replicas - 1, frozen.backups());
            final long[][] words = segmentWords();
            for (int r = 0; r < replicas; r++)
            {
                for (int i = 0; i < words[r].length; i++)
                {
                    assertTrue(SlotWord.isMoving(words[r][i]), "replica " + r + "'s slot " + i + " is frozen: " +
                        SlotWord.toString(words[r][i]));
                }
                assertArrayEquals(words[0], words[r], "replica " + r + " holds the primary's frozen words");
            }
            // every write acknowledged by now (a write the freezer finished included) is in the frozen slots
            final Map<String, Long> held = frozenVersions(words[0]);
            for (int k = 0; k < frozenKeys.size(); k++)
            {
                final long acked = frozenWriters.acked.get(k);
                final Long version = held.get(string(frozenKeys.get(k)));
                if (acked == 0)
                {
                    continue;
                }
                assertTrue(version != null && version >= acked && version <= frozenWriters.attempted.get(k),
                    "key " + k + " is frozen at v" + version + ", acknowledged v" + acked + ", attempted v" +
                        frozenWriters.attempted.get(k));
            }

            // an insert into the frozen partition waits (every empty slot is the bare bit), never "table full"
            final byte[] newKey = keys("inserted", 1, true).getFirst();
            final CompletableFuture<Void> insert = CompletableFuture.runAsync(() -> client.put(newKey, bytes("new")),
                task -> Thread.ofPlatform().start(task));
            final long frozenAcked = frozenWriters.acknowledged();
            final long otherAcked = otherWriters.acknowledged();
            Thread.sleep(300);
            for (int k = 0; k < frozenKeys.size(); k++)
            {
                final Long version = held.get(string(frozenKeys.get(k)));
                assertTrue(frozenWriters.acked.get(k) <= (version == null ? 0 : version), "key " + k + ": no write " +
                    "past its frozen v" + version + " is acknowledged (acknowledged v" + frozenWriters.acked.get(k) + ")");
            }
            // only a write the freezer finished may still be acknowledged (its writer resumed late)
            assertTrue(frozenWriters.acknowledged() - frozenAcked <= frozen.finished(), "writes of the frozen " +
                "partition wait: " + (frozenWriters.acknowledged() - frozenAcked) + " acknowledged meanwhile");
            assertTrue(otherWriters.acknowledged() > otherAcked, "writes of other partitions go on");
            assertFalse(insert.isDone(), "the insert waits");
            assertArrayEquals(words[0], segmentWords()[0], "nothing changed in the frozen segment");
            assertEquals(List.of(), frozenWriters.problems);

            final PartitionFreezer.Frozen again = primary.partitionMoves().freeze(SEGMENTS[FROZEN]);
            assertEquals(0, again.finished() + again.undone() + again.casRetries(), "a second freeze changes nothing");
            assertArrayEquals(words[0], segmentWords()[0]);

            for (final KvServer node : inClearingOrder())
            {
                assertTrue(node.partitionMoves().clearMoving(SEGMENTS[FROZEN]) > 0);
                assertEquals(0, node.partitionMoves().clearMoving(SEGMENTS[FROZEN]), "clearing is idempotent");
                Thread.sleep(50); // the waiting writers win the replicas already open meanwhile
            }
            insert.get(10, TimeUnit.SECONDS);
            Await.until("writes of the partition go on", Duration.ofSeconds(10),
                () -> frozenWriters.acknowledged() > frozenAcked + 20);
            frozenWriters.verify(client);
            otherWriters.verify(client);
            assertEquals("new", string(client.get(newKey)));
        }
        group.assertReplicasEqual();
    }

    /**
     * A quiet freeze of a segment holding many keys, so that slots hold words of their own: every slot is CASed once
     * on each backup, in one doorbell per chain of {@link PartitionFreezer#CHAIN} and one READ per chunk, and no CAS is
     * tried again (with several chains in flight, a result taken from another slot's CAS would look lost and be
     * retried); every replica then holds the words it held, frozen.
     */
    @Test
    void aQuietFreezeCasesEverySlotOnceOnEachBackupInAsManyDoorbellsAsItsChainsNeed()
    {
        group = start(3);
        final List<byte[]> keys = keys("quiet", QUIET_KEYS, true);
        try (KvClient client = group.client())
        {
            for (final byte[] key : keys)
            {
                client.put(key, key);
            }
        }
        final long[][] before = segmentWords();
        assertEquals(keys.size(), Arrays.stream(before[0]).filter(SlotWord::namesBlock).count());

        final PartitionFreezer.Frozen frozen = group.nodes[0].partitionMoves().freeze(SEGMENTS[FROZEN]);

        assertEquals(0, frozen.casRetries(), "no CAS tried again");
        assertEquals(0, frozen.finished() + frozen.undone());
        long perBackup = 0;
        for (long g = 0; g < FROZEN_GROUPS; g += PartitionFreezer.CHUNK_GROUPS)
        {
            final long slots = Math.min(PartitionFreezer.CHUNK_GROUPS, FROZEN_GROUPS - g) *
                BucketDescriptor.SLOTS_PER_GROUP;
            perBackup += 1 + (slots + PartitionFreezer.CHAIN - 1) / PartitionFreezer.CHAIN;
        }
        assertEquals(2 * perBackup, frozen.rings(), "a READ per chunk and a doorbell per chain, on each backup");
        final long[][] after = segmentWords();
        for (int r = 0; r < after.length; r++)
        {
            for (int i = 0; i < after[r].length; i++)
            {
                assertEquals(before[0][i] | SlotWord.MOVING, after[r][i], "replica " + r + "'s slot " + i);
            }
        }
        clearMoving();
        group.assertReplicasEqual();
    }

    @Test
    void aWriterStuckAfterItsFirstBackupIsFinishedWhileItsSessionLives()
    {
        group = start(3);
        final byte[] key = keys("stuck", 1, true).getFirst();
        try (KvClient stuck = group.client(); KvClient other = group.client())
        {
            other.put(key, bytes("v1"));
            ChainFaults.afterFirstBackup(() ->
            {
                if (Thread.currentThread().getName().equals("stuck-writer"))
                {
                    throw new IllegalStateException("writer stopped between its first backup and its primary");
                }
            });
            final AtomicBoolean stopped = new AtomicBoolean();
            join(Thread.ofPlatform().name("stuck-writer").start(() ->
                stopped.set(assertThrows(IllegalStateException.class, () -> stuck.put(key, bytes("v2"))) != null)));
            assertTrue(stopped.get());
            ChainFaults.afterFirstBackup(null);
            final long[] before = slotOf(key);
            assertNotEquals(before[0], before[1], "the first backup is ahead of the primary");
            assertEquals(before[0], before[2], "the second backup was never reached");

            final PartitionFreezer.Frozen frozen = group.nodes[0].partitionMoves().freeze(SEGMENTS[FROZEN]);

            assertEquals(1, frozen.finished(), "the writer's session lives: its write is finished");
            assertEquals(0, frozen.undone());
            final long[] after = slotOf(key);
            for (int r = 0; r < 3; r++)
            {
                assertEquals(before[1] | SlotWord.MOVING, after[r], "replica " + r + " holds the finished write");
            }
            assertEquals("v2", string(other.get(key)), "reads read through the frozen word");
            clearMoving();
            other.put(key, bytes("v3"));
            assertEquals("v3", string(other.get(key)));
        }
        group.assertReplicasEqual();
    }

    /**
     * A live writer paused between its first backup and the primary while the freeze finishes its write: once it
     * resumes, it meets its own word with MOVING further down the chain and is acknowledged.
     */
    @Test
    void aWriterPausedAfterItsFirstBackupIsFinishedAndAcknowledged() throws Exception
    {
        group = start(3);
        final byte[] key = keys("paused", 1, true).getFirst();
        final CountDownLatch paused = new CountDownLatch(1);
        final CountDownLatch resume = new CountDownLatch(1);
        try (KvClient writer = group.client(); KvClient other = group.client())
        {
            other.put(key, bytes("v1"));
            ChainFaults.afterFirstBackup(() ->
            {
                if (Thread.currentThread().getName().equals("paused-writer"))
                {
                    paused.countDown();
                    try
                    {
                        resume.await(30, TimeUnit.SECONDS);
                    }
                    catch (final InterruptedException e)
                    {
                        Thread.currentThread().interrupt();
                    }
                }
            });
            final CompletableFuture<Void> put = new CompletableFuture<>();
            Thread.ofPlatform().name("paused-writer").start(() ->
            {
                try
                {
                    writer.put(key, bytes("v2"));
                    put.complete(null);
                }
                catch (final RuntimeException e)
                {
                    put.completeExceptionally(e);
                }
            });
            assertTrue(paused.await(10, TimeUnit.SECONDS), "the writer took the first backup");
            final long[] before = slotOf(key);
            assertNotEquals(before[0], before[1], "the first backup is ahead of the primary");

            final PartitionFreezer.Frozen frozen = group.nodes[0].partitionMoves().freeze(SEGMENTS[FROZEN]);

            assertEquals(1, frozen.finished());
            resume.countDown();
            put.get(10, TimeUnit.SECONDS); // acknowledged: the freezer put its word on every replica
            final long[] after = slotOf(key);
            for (int r = 0; r < 3; r++)
            {
                assertEquals(before[1] | SlotWord.MOVING, after[r], "replica " + r + " holds the paused write");
            }
            assertEquals("v2", string(other.get(key)));
        }
        finally
        {
            resume.countDown();
        }
        clearMoving();
        group.assertReplicasEqual();
    }

    @Test
    void aWriterGoneAfterItsFirstBackupIsUndone()
    {
        group = start(3);
        final KvServer primary = group.nodes[0];
        final byte[] key = keys("gone", 1, true).getFirst();
        try (KvClient other = group.client())
        {
            other.put(key, bytes("v1"));
            final int sessionsBefore = primary.sessionCount();
            final KvClient gone = group.client();
            ChainFaults.afterFirstBackup(() ->
            {
                throw new IllegalStateException("writer died between its first backup and its primary");
            });
            assertThrows(IllegalStateException.class, () -> gone.put(key, bytes("v2")));
            ChainFaults.afterFirstBackup(null);
            final long[] before = slotOf(key);
            assertNotEquals(before[0], before[1], "the first backup is ahead of the primary");
            // the writer goes after the first backup is frozen and before the slot is decided
            PartitionFreezer.beforeEachDecision(() ->
            {
                gone.close();
                Await.until("the gone writer's session ended on the primary", Duration.ofSeconds(10),
                    () -> primary.sessionCount() <= sessionsBefore);
            });

            final PartitionFreezer.Frozen frozen = primary.partitionMoves().freeze(SEGMENTS[FROZEN]);

            assertEquals(1, frozen.undone(), "the writer is gone: its write is undone");
            assertEquals(0, frozen.finished());
            final long[] after = slotOf(key);
            for (int r = 0; r < 3; r++)
            {
                assertEquals(before[0] | SlotWord.MOVING, after[r], "replica " + r + " holds the acknowledged word");
            }
            assertEquals("v1", string(other.get(key)));
            clearMoving();
            other.put(key, bytes("v3"));
            assertEquals("v3", string(other.get(key)));
        }
        group.assertReplicasEqual();
    }

    @Test
    void aMovedMarkTurnsReadsOfThePartitionAwayAndZeroingEmptiesIt()
    {
        group = start(2);
        final byte[] movedKey = keys("moved", 1, true).getFirst();
        final byte[] otherKey = keys("stays", 1, false).getFirst();
        try (KvClient client = KvClient.connect(LocalCluster.clientConfig(group.address(0))
            .withOpTimeout(Duration.ofSeconds(1))))
        {
            client.put(movedKey, bytes("v1"));
            client.put(otherKey, bytes("w1"));
            assertEquals("v1", string(client.get(movedKey))); // cached: the cached path reads no header
            // as at SWITCH: frozen first (no frozen word is cached, so every GET reads the headers), then marked
            group.nodes[0].partitionMoves().freeze(SEGMENTS[FROZEN]);
            for (final KvServer node : group.nodes)
            {
                assertEquals(FROZEN_GROUPS, node.partitionMoves().markMoved(SEGMENTS[FROZEN], 9));
            }
            try (RegionView view = new RegionView(group.ports[1]))
            {
                assertEquals(MovedHeader.moved(9), view.longAt(view.geometry().groupRegionOffset(FROZEN_GROUPS - 1) +
                    BucketDescriptor.MOVED_HEADER_OFFSET), "the last group of the segment is marked");
                assertEquals(0, view.longAt(view.geometry().groupRegionOffset(FROZEN_GROUPS) +
                    BucketDescriptor.MOVED_HEADER_OFFSET), "the next segment is not");
            }
            final KvTimeoutException e = assertThrows(KvTimeoutException.class, () -> client.get(movedKey));
            assertTrue(e.getMessage().contains("moved off node 0"), e.getMessage());
            assertEquals("w1", string(client.get(otherKey)), "other partitions are read as before");

            for (final KvServer node : group.nodes)
            {
                assertTrue(node.partitionMoves().zero(SEGMENTS[FROZEN]) >= FROZEN_GROUPS);
                assertEquals(0, node.partitionMoves().zero(SEGMENTS[FROZEN]), "zeroing is idempotent");
            }
            assertNull(client.get(movedKey), "the zeroed segment holds nothing, and no mark");
            assertEquals("w1", string(client.get(otherKey)));
        }
    }

    /**
     * The primary, then the backups in chain order: the order in which writers waiting on the freeze read the primary
     * open and win the first backup while a later backup is still frozen (replicas lift a freeze each as it applies a
     * map, in no order; such a writer waits at the later frozen replica: {@code FrozenReplica}).
     */
    private List<KvServer> inClearingOrder()
    {
        return List.of(group.nodes);
    }

    private void clearMoving()
    {
        for (final KvServer node : inClearingOrder())
        {
            node.partitionMoves().clearMoving(SEGMENTS[FROZEN]);
        }
    }

    /** The key's slot word on each replica (primary first), found on the primary by its block. */
    private long[] slotOf(final byte[] key)
    {
        final long[] words = new long[group.ports.length];
        final long slot;
        try (RegionView primary = new RegionView(group.ports[0]))
        {
            slot = primary.find(key).slotOffset();
        }
        for (int r = 0; r < words.length; r++)
        {
            try (RegionView view = new RegionView(group.ports[r]))
            {
                words[r] = view.longAt(slot);
            }
        }
        return words;
    }

    /** Every slot word of the frozen segment, per replica (primary first), READ now. */
    private long[][] segmentWords()
    {
        final long[][] words = new long[group.ports.length][];
        for (int r = 0; r < words.length; r++)
        {
            try (RegionView view = new RegionView(group.ports[r]))
            {
                final MemorySegment bytes = MemorySegment.ofArray(view.bytes(view.geometry().groupRegionOffset(0),
                    Math.toIntExact(FROZEN_GROUPS * BucketDescriptor.GROUP_LENGTH)));
                words[r] = new long[Math.toIntExact(FROZEN_GROUPS * BucketDescriptor.SLOTS_PER_GROUP)];
                for (int i = 0; i < words[r].length; i++)
                {
                    words[r][i] = bytes.get(ValueLayout.JAVA_LONG_UNALIGNED, (long)(i / BucketDescriptor.SLOTS_PER_GROUP) *
                        BucketDescriptor.GROUP_LENGTH + BucketDescriptor.slotOffsetInGroup(i % BucketDescriptor.SLOTS_PER_GROUP));
                }
            }
        }
        return words;
    }

    /** Key → version of the value each frozen word names, read from the primary. */
    private Map<String, Long> frozenVersions(final long[] words)
    {
        final Map<String, Long> versions = new HashMap<>();
        try (RegionView primary = new RegionView(group.ports[0]))
        {
            for (int i = 0; i < words.length; i++)
            {
                if (!SlotWord.namesBlock(words[i]))
                {
                    continue;
                }
                final RegionView.Slot slot = new RegionView.Slot(primary.geometry().slotRegionOffset(
                    i / BucketDescriptor.SLOTS_PER_GROUP, i % BucketDescriptor.SLOTS_PER_GROUP), words[i],
                    primary.geometry().dataOffset() + SlotWord.blockOffset(words[i]), SlotWord.blockLength(words[i]));
                final byte[] value = primary.bytes(primary.valueOffset(slot), primary.valueLength(slot));
                versions.put(string(primary.keyOf(slot)), Ledger.versionOf(value));
            }
        }
        return versions;
    }

    /**
     * Threads writing new versions of their keys through one client, keeping per key the newest version
     * acknowledged and the newest attempted.
     */
    private static final class Ledger implements AutoCloseable
    {
        final List<byte[]> keys;
        final AtomicLongArray acked;
        final AtomicLongArray attempted;
        final AtomicLong acknowledged = new AtomicLong();
        final AtomicBoolean running = new AtomicBoolean(true);
        final List<Throwable> problems = new CopyOnWriteArrayList<>();
        final List<Thread> threads = new ArrayList<>();

        Ledger(final KvClient client, final List<byte[]> keys, final int writers)
        {
            this.keys = keys;
            acked = new AtomicLongArray(keys.size());
            attempted = new AtomicLongArray(keys.size());
            for (int t = 0; t < writers; t++)
            {
                final int first = t;
                threads.add(Thread.ofPlatform().name("ledger-writer-" + t).start(() -> write(client, first, writers)));
            }
        }

        private void write(final KvClient client, final int first, final int stride)
        {
            for (long version = 1; running.get(); version++)
            {
                for (int k = first; k < keys.size() && running.get(); k += stride)
                {
                    attempted.set(k, version);
                    try
                    {
                        client.put(keys.get(k), value(version));
                        acked.set(k, version);
                        acknowledged.incrementAndGet();
                    }
                    catch (final RuntimeException e)
                    {
                        problems.add(e);
                    }
                }
            }
        }

        long acknowledged()
        {
            return acknowledged.get();
        }

        static byte[] value(final long version)
        {
            return ("v" + version + " " + "x".repeat(60)).getBytes(StandardCharsets.UTF_8);
        }

        static long versionOf(final byte[] value)
        {
            final String s = new String(value, StandardCharsets.UTF_8);
            return Long.parseLong(s.substring(1, s.indexOf(' ')));
        }

        /** Stops the writers; every acknowledged write is read back (or a later attempted one), nothing failed. */
        void verify(final KvClient client)
        {
            close();
            assertEquals(List.of(), problems, "no write failed");
            for (int k = 0; k < keys.size(); k++)
            {
                final byte[] value = client.get(keys.get(k));
                final long version = value == null ? 0 : versionOf(value);
                assertTrue(version >= acked.get(k) && version <= attempted.get(k), "key " + k + " holds v" + version +
                    ", acknowledged v" + acked.get(k) + ", attempted v" + attempted.get(k));
            }
        }

        @Override
        public void close()
        {
            running.set(false);
            for (final Thread thread : threads)
            {
                join(thread);
            }
        }
    }

    private static void join(final Thread thread)
    {
        try
        {
            // a writer ends after the operation it is in: up to its timeout (60 s in the Soft-RoCE VM, where a join of
            // 30 s ran out on a loaded host with the writers waiting in their last writes)
            assertTrue(thread.join(writerTimeout().plusSeconds(15)), thread.getName() + " ended");
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
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
