package io.rdmakv.systemtests.replication;

import io.rdmakv.client.KvClient;
import io.rdmakv.common.hash.KeyHash;
import io.rdmakv.common.layout.BucketDescriptor;
import io.rdmakv.common.layout.KvBlock;
import io.rdmakv.common.layout.KvBlockDescriptor;
import io.rdmakv.common.layout.RegionGeometry;
import io.rdmakv.common.layout.SlotWord;
import io.rdmakv.common.layout.VersionSalt;
import io.rdmakv.common.protocol.CodedRefusalMessage;
import io.rdmakv.common.protocol.ControlMessage;
import io.rdmakv.common.protocol.GrantMessage;
import io.rdmakv.common.protocol.wire.MessageType;
import io.rdmakv.common.protocol.wire.ReasonCode;
import io.rdmakv.common.protocol.wire.RemoteRegion;
import io.rdmakv.server.KvServer;
import io.rdmakv.server.config.MemoryWindowMode;
import io.rdmakv.server.control.ServerCounter;
import io.rdmakv.server.replication.PartitionCopier;
import io.rdmakv.server.replication.PartitionCopy;
import io.rdmakv.server.replication.PartitionMove;
import io.rdmakv.systemtests.peer.RawSession;
import io.rdmakv.systemtests.peer.RegionView;
import io.rdmakv.verbs.WcStatus;
import org.agrona.concurrent.NanoClock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link PartitionCopier} on B's primary (node 2) copying partitions of group A (nodes 0, 1) into private target
 * segments of group B (nodes 2, 3), started through {@code KvServer#startPartitionCopy} (docs/growth.md §7). The
 * freeze of the source segment, the freezer's business, is done here by hand: every slot CASed to carry MOVING,
 * A's backup first, then its primary, with no writer running. Each case moves its own partition into its own
 * target segment, so the cases share one cluster.
 */
class PartitionCopierTest
{
    private static final ValueLayout.OfLong LE = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final int SEGMENT = TwoGroups.SEGMENT_GROUPS;
    /** Where target segments start in B's index: after B's own partitions' segments. */
    private static final int FREE_BASE = TwoGroups.PARTITIONS / 2 * SEGMENT;

    @TempDir
    static Path dir;
    private static TwoGroups cluster;
    private static KvClient client;

    @BeforeAll
    static void start()
    {
        cluster = TwoGroups.start(dir);
        client = cluster.client();
    }

    @AfterAll
    static void stop()
    {
        if (client != null)
        {
            client.close();
        }
        if (cluster != null)
        {
            cluster.close();
        }
    }

    @Test
    void bulkPassesConvergeUnderWritersAndTheFinalPassCopiesTheFrozenSegmentToBothReplicas() throws Exception
    {
        final int p = 0;
        final List<byte[]> keys = keysOf(p, 300);
        final List<byte[]> others = keysOf(5, 100); // a partition of A no case moves or freezes
        putAll(keys, "v0");
        putAll(others, "o0");
        final AtomicBoolean writing = new AtomicBoolean(true);
        final AtomicLong written = new AtomicLong();
        final List<Thread> writers = new ArrayList<>();
        for (int w = 0; w < 2; w++)
        {
            final int id = w;
            writers.add(Thread.ofPlatform().start(() ->
            {
                try (KvClient c = cluster.client())
                {
                    for (int i = 0; writing.get(); i++)
                    {
                        c.put(keys.get((i * 7 + id) % keys.size()), value("w" + id + "-" + i));
                        written.incrementAndGet();
                    }
                }
            }));
        }
        try (PartitionCopy copy = cluster.nodes[2].startPartitionCopy(move(p, FREE_BASE, SEGMENT, null)))
        {
            final PartitionCopier.Result bulk = copy.bulk().get(20, TimeUnit.SECONDS);
            writing.set(false);
            for (final Thread t : writers)
            {
                t.join(10_000);
            }
            assertEquals(PartitionCopier.Outcome.BULK, bulk.outcome(), bulk.reason());
            assertTrue(written.get() > 0, "the writers wrote while the bulk passes ran");
            assertTrue(bulk.report().passes() <= 8 && bulk.report().keysCopied() >= keys.size(),
                "bulk passes: " + bulk.report());
            freeze(p);
            final PartitionCopier.Result last = copy.freezeBegun().get(20, TimeUnit.SECONDS);
            assertEquals(PartitionCopier.Outcome.FINAL, last.outcome(), last.reason());
            assertTargetHoldsSource(p, FREE_BASE, SEGMENT);
            // at OPEN: the grants are handed over to nobody, the copied blocks stay granted, the rest goes back
            final long free = copy.dataAreaFreeBytes();
            final long held = copy.moverBytes();
            final long back = copy.handOver().get(10, TimeUnit.SECONDS);
            assertEquals(0, copy.moverBytes(), "the copy holds no mover grant after the handover");
            final long copied = blocks(2, FREE_BASE, SEGMENT).values().stream().mapToLong(b -> b.length).sum();
            assertEquals(held - copied, back, "everything but the blocks X_B names is given back");
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (copy.dataAreaFreeBytes() != free + back && System.nanoTime() < deadline)
            {
                Thread.sleep(20); // the rest waits out the quarantine first
            }
            assertEquals(free + back, copy.dataAreaFreeBytes(), "the rest of the grants is free after the quarantine");
            assertTargetHoldsSource(p, FREE_BASE, SEGMENT);
        }
    }

    /**
     * The default config (memory windows on wherever the device can): B's backup takes the copied blocks only
     * through windows it binds over the copy's mover grants, checked with B's primary under its node grant; about one
     * bind per grant and pass, not one per block, and none left bound once a pass is over. The keys the writers leave
     * alone fill more than one grant (1 MiB each), so the first pass binds grant after grant. Its own cluster.
     */
    @Test
    void withMemoryWindowsOnTheCopyReachesBsBackupThroughWindowsOverItsMoverGrants(@TempDir final Path windowed)
        throws Exception
    {
        try (TwoGroups on = TwoGroups.start(windowed, MemoryWindowMode.AUTO); KvClient own = on.client())
        {
            for (int id = 0; id < on.nodes.length; id++)
            {
                assertTrue(on.nodes[id].memoryWindows(), "memory windows on node " + id);
            }
            final int p = 4;
            final List<byte[]> keys = keysOf(p, 300);
            final int rewritten = 100; // the writers' keys; the other 200 keep blocks of over 6 KiB
            for (int i = 0; i < keys.size(); i++)
            {
                own.put(keys.get(i), value("v0-" + i + "-" + "y".repeat(6000)));
            }
            final KvServer backup = on.nodes[3];
            final long bindsBefore = backup.counters().get(ServerCounter.REPLICA_WINDOWS_BOUND);
            final long windowsBefore = backup.counters().get(ServerCounter.MEMORY_WINDOWS_BOUND);
            final AtomicBoolean writing = new AtomicBoolean(true);
            final AtomicLong written = new AtomicLong();
            final List<Thread> writers = new ArrayList<>();
            for (int w = 0; w < 2; w++)
            {
                final int id = w;
                writers.add(Thread.ofPlatform().start(() ->
                {
                    try (KvClient c = on.client())
                    {
                        for (int i = 0; writing.get(); i++)
                        {
                            c.put(keys.get((i * 7 + id) % rewritten), value("w" + id + "-" + i));
                            written.incrementAndGet();
                        }
                    }
                }));
            }
            try (PartitionCopy copy = on.nodes[2].startPartitionCopy(move(on, p, FREE_BASE, SEGMENT, null)))
            {
                final PartitionCopier.Result bulk = copy.bulk().get(20, TimeUnit.SECONDS);
                writing.set(false);
                for (final Thread t : writers)
                {
                    t.join(10_000);
                }
                assertEquals(PartitionCopier.Outcome.BULK, bulk.outcome(), bulk.reason());
                assertTrue(written.get() > 0, "the writers wrote while the bulk passes ran");
                freeze(on, p);
                final PartitionCopier.Result last = copy.freezeBegun().get(20, TimeUnit.SECONDS);
                assertEquals(PartitionCopier.Outcome.FINAL, last.outcome(), last.reason());
                assertTargetHoldsSource(on, p, FREE_BASE, SEGMENT);

                // the writers' keys are A's (nodes 0, 1): every bind on node 3 is the copier's
                final long binds = backup.counters().get(ServerCounter.REPLICA_WINDOWS_BOUND) - bindsBefore;
                final long chunk;
                try (RegionView view = new RegionView(on.ports[2]))
                {
                    chunk = view.geometry().chunkSize();
                }
                assertTrue(chunk < 200L * 6000, "the untouched keys need more than one grant of " + chunk + " bytes");
                assertTrue(binds >= 2, "B's backup bound a window over each grant the first pass wrote into");
                assertTrue(binds * 8 < last.report().keysCopied(),
                    binds + " binds: about one per grant and pass, not one per block (" + last.report() + ")");
                if (last.report().chunksRedone() == 0)
                {
                    // (a redo WRITEs blocks again into the grant they were copied into, which it may bind again)
                    final long grants = 1 + 2 * last.report().bytesCopied() / chunk; // chunk-sized, blocks < chunk / 2
                    assertTrue(binds <= last.report().passes() * grants,
                        binds + " binds: at most one per grant and pass without redos (" + last.report() + ")");
                }
                // each pass ended its session with the backup, whose departure deallocated the window bound on it
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (backup.counters().get(ServerCounter.MEMORY_WINDOWS_BOUND) != windowsBefore &&
                    System.nanoTime() < deadline)
                {
                    Thread.sleep(20);
                }
                assertEquals(windowsBefore, backup.counters().get(ServerCounter.MEMORY_WINDOWS_BOUND),
                    "no window of the copy is left bound on B's backup once its passes are over");
                assertAClientGetsNoWindowOverTheCopy(on, FREE_BASE, SEGMENT);
            }
        }
    }

    /**
     * A session of a client's on B's backup can bind no window over a copied block's mover grant under the node's
     * grant (session id 0: it knows neither the writer id nor the secret), nor WRITE the block with the data area's
     * rkey; the block is untouched.
     */
    private static void assertAClientGetsNoWindowOverTheCopy(final TwoGroups on, final int base, final int groups)
    {
        try (RegionView view = new RegionView(on.ports[3]); RawSession hostile = new RawSession(on.ports[3]))
        {
            final long[] words = words(view, base, groups);
            final long word = Arrays.stream(words).filter(SlotWord::namesBlock).findFirst().orElseThrow();
            final long offset = SlotWord.blockOffset(word);
            final int length = SlotWord.blockLength(word);
            final byte[] before = view.bytes(view.geometry().dataOffset() + offset, length);
            assertEquals(WcStatus.SUCCESS, hostile.send(GrantMessage.bind(1, GrantMessage.NODE_SESSION_ID, offset,
                length, GrantMessage.newSecret())));
            final ControlMessage reply = hostile.receive(Duration.ofSeconds(10));
            assertNotNull(reply, "B's backup answers the BIND_WINDOW");
            assertEquals(ReasonCode.GRANT_UNKNOWN, CodedRefusalMessage.expect(MessageType.ERROR, reply).reason(),
                String.valueOf(reply));
            final RemoteRegion data = hostile.hello().dataRegion();
            assertNotEquals(WcStatus.SUCCESS, hostile.write(data.addressOf(offset), data.rkey(), 64),
                "the data area's rkey grants no WRITE");
            assertArrayEquals(before, view.bytes(view.geometry().dataOffset() + offset, length),
                "the copied block is untouched");
        }
    }

    @Test
    void aChangedARemovedAndANewKeyAreCarriedIntoATargetOfAnotherSize() throws Exception
    {
        final int p = 1;
        final int base = FREE_BASE + SEGMENT;
        final int groups = SEGMENT / 2 + 3; // re-placed by hash
        final List<byte[]> keys = keysOf(p, 200);
        putAll(keys, "first");
        try (PartitionCopy copy = cluster.nodes[2].startPartitionCopy(move(p, base, groups, null)))
        {
            final PartitionCopier.Result bulk = copy.bulk().get(20, TimeUnit.SECONDS);
            assertEquals(PartitionCopier.Outcome.BULK, bulk.outcome(), bulk.reason());
            final Map<String, byte[]> before = blocks(2, base, groups);
            final byte[] changed = keys.get(0);
            final byte[] removed = keys.get(1);
            final byte[] added = keysOf(p, 201).get(200);
            client.put(changed, value("changed"));
            assertTrue(client.delete(removed));
            client.put(added, value("added"));
            freeze(p);
            final long free = copy.dataAreaFreeBytes();
            final PartitionCopier.Result last = copy.freezeBegun().get(20, TimeUnit.SECONDS);
            assertEquals(PartitionCopier.Outcome.FINAL, last.outcome(), last.reason());
            // the two new blocks came from the mover grant already held; the replaced and the removed block went
            // back to B's allocator at once, without a grace period
            assertEquals(free + before.get(text(changed)).length + before.get(text(removed)).length,
                copy.dataAreaFreeBytes(), "B's allocator got the replaced and the removed block back");
            assertTrue(last.report().keysRemoved() >= 1, "the removed key left the target: " + last.report());
            final Map<String, byte[]> onB = assertTargetHoldsSource(p, base, groups);
            assertArrayEquals(value("changed"), valueOf(onB.get(new String(changed, StandardCharsets.UTF_8))));
            assertNull(onB.get(new String(removed, StandardCharsets.UTF_8)), "the removed key is not on B");
            assertArrayEquals(value("added"), valueOf(onB.get(new String(added, StandardCharsets.UTF_8))));
        }
    }

    /**
     * Index growth's move (docs/growth.md §11): a segment filled to 78% (2,796 of 3,584 slots) copied into a target of
     * twice its groups, bulk then frozen delta: B holds every key of A's segment, each in a candidate group of the
     * target segment (where a client looks for it). Its own cluster.
     */
    @Test
    void aSegmentPastThreeQuartersIsCarriedWholeIntoATargetTwiceItsSize(@TempDir final Path own) throws Exception
    {
        try (TwoGroups on = TwoGroups.start(own); KvClient c = on.client())
        {
            final int p = 0;
            final int groups = 2 * SEGMENT;
            final List<byte[]> keys = keysOf(p, (int)Math.ceil(0.78 * SEGMENT * BucketDescriptor.SLOTS_PER_GROUP));
            putAll(c, keys, "grown");
            try (PartitionCopy copy = on.nodes[2].startPartitionCopy(move(on, p, FREE_BASE, groups, null)))
            {
                final PartitionCopier.Result bulk = copy.bulk().get(60, TimeUnit.SECONDS);
                assertEquals(PartitionCopier.Outcome.BULK, bulk.outcome(), bulk.reason());
                freeze(on, p);
                final PartitionCopier.Result last = copy.freezeBegun().get(60, TimeUnit.SECONDS);
                assertEquals(PartitionCopier.Outcome.FINAL, last.outcome(), last.reason());
                final Map<String, byte[]> onB = assertTargetHoldsSource(on, p, FREE_BASE, groups);
                assertEquals(keys.size(), onB.size(), "every key on B: " + last.report());
                try (RegionView view = new RegionView(on.ports[2]))
                {
                    final Map<String, RegionView.Slot> slots = new HashMap<>();
                    for (final RegionView.Slot slot : view.usedSlots())
                    {
                        slots.put(new String(view.keyOf(slot), StandardCharsets.UTF_8), slot);
                    }
                    for (final byte[] key : keys)
                    {
                        final RegionView.Slot slot = slots.get(new String(key, StandardCharsets.UTF_8));
                        assertTrue(slot != null, new String(key, StandardCharsets.UTF_8) + " found on B");
                        final long group = (slot.slotOffset() - view.geometry().groupRegionOffset(0)) /
                            BucketDescriptor.GROUP_LENGTH;
                        assertTrue(KeyHash.isCandidateGroup(KeyHash.hash(key), group, FREE_BASE, groups),
                            new String(key, StandardCharsets.UTF_8) + " in group " + group + ", a candidate of the " +
                            "target segment");
                    }
                }
            }
        }
    }

    @Test
    void aChunkSlowerThanHalfTheGracePeriodIsCopiedAgain() throws Exception
    {
        final int p = 2;
        final int base = FREE_BASE + 2 * SEGMENT;
        final List<byte[]> keys = keysOf(p, 200);
        putAll(keys, "still");
        final AtomicInteger calls = new AtomicInteger();
        final AtomicLong skew = new AtomicLong();
        final NanoClock slowFirstChunk = () ->
        {
            if (calls.incrementAndGet() == 2)
            {
                skew.addAndGet(TimeUnit.HOURS.toNanos(1)); // the first chunk's end: far past half a grace period
            }
            return System.nanoTime() + skew.get();
        };
        try (PartitionCopy copy = cluster.nodes[2].startPartitionCopy(move(p, base, SEGMENT, slowFirstChunk)))
        {
            final PartitionCopier.Result bulk = copy.bulk().get(20, TimeUnit.SECONDS);
            assertEquals(PartitionCopier.Outcome.BULK, bulk.outcome(), bulk.reason());
            assertTrue(bulk.report().chunksRedone() >= 1, "the slow chunk was redone: " + bulk.report());
            // nothing changed on A: every key beyond one copy each was copied again by the redo
            assertTrue(bulk.report().keysCopied() >= 2L * keys.size(), "keys copied: " + bulk.report());
            freeze(p);
            final PartitionCopier.Result last = copy.freezeBegun().get(20, TimeUnit.SECONDS);
            assertEquals(PartitionCopier.Outcome.FINAL, last.outcome(), last.reason());
            assertTargetHoldsSource(p, base, SEGMENT);
        }
    }

    @Test
    void anAbortZeroesTheTargetOnEveryReplicaAndGivesBackTheMoverGrants() throws Exception
    {
        final int p = 3;
        final int base = FREE_BASE + 3 * SEGMENT;
        putAll(keysOf(p, 200), "gone");
        try (PartitionCopy copy = cluster.nodes[2].startPartitionCopy(move(p, base, SEGMENT, null)))
        {
            final long freeBefore = copy.dataAreaFreeBytes();
            final PartitionCopier.Result bulk = copy.bulk().get(20, TimeUnit.SECONDS);
            assertEquals(PartitionCopier.Outcome.BULK, bulk.outcome(), bulk.reason());
            assertTrue(copy.moverBytes() > 0, "the copy holds mover grants");
            assertTrue(copy.dataAreaFreeBytes() < freeBefore);
            final PartitionCopier.Result aborted = copy.abort().get(20, TimeUnit.SECONDS);
            assertEquals(PartitionCopier.Outcome.ABORTED, aborted.outcome(), aborted.reason());
            assertEquals(0, copy.moverBytes(), "no mover grant left");
            assertEquals(freeBefore, copy.dataAreaFreeBytes(), "B's allocator has its free bytes back");
            for (final int node : new int[] {2, 3})
            {
                final long[] words = segmentWords(node, base, SEGMENT);
                assertEquals(0, Arrays.stream(words).filter(w -> w != 0).count(), "target zeroed on node " + node);
            }
        }
    }

    @Test
    void aBlockOfAnotherPartitionInTheSourceSegmentIsNotCopied() throws Exception
    {
        final int p = 6;
        final int base = FREE_BASE + 4 * SEGMENT;
        final List<byte[]> keys = keysOf(p, 50);
        putAll(keys, "own");
        final byte[] stranger = keysOf(7, 1).get(0);
        client.put(stranger, value("stranger"));
        plant(stranger, p);
        try (PartitionCopy copy = cluster.nodes[2].startPartitionCopy(move(p, base, SEGMENT, null)))
        {
            final PartitionCopier.Result bulk = copy.bulk().get(20, TimeUnit.SECONDS);
            assertEquals(PartitionCopier.Outcome.BULK, bulk.outcome(), bulk.reason());
            assertTrue(bulk.report().skippedBlocks() >= 1, "the stranger's block was skipped: " + bulk.report());
            final Map<String, byte[]> onB = blocks(2, base, SEGMENT);
            assertFalse(onB.containsKey(new String(stranger, StandardCharsets.UTF_8)), "no key of partition 7 on B");
            assertEquals(keys.size(), onB.size(), "every key of partition " + p + " on B");
            assertEquals(PartitionCopier.Outcome.ABORTED, copy.abort().get(20, TimeUnit.SECONDS).outcome());
        }
    }

    @Test
    void aSourceServingAnOlderEpochThanTheMoveFailsTheCopy() throws Exception
    {
        final int p = 7;
        final int base = FREE_BASE + 5 * SEGMENT;
        final PartitionMove newer = new PartitionMove(cluster.endpoint(0), 0, 2, TwoGroups.PARTITIONS, new int[] {p},
            new long[] {KeyHash.segment((long)p * SEGMENT, SEGMENT)}, new long[] {KeyHash.segment(base, SEGMENT)},
            List.of(cluster.endpoint(3)));
        try (PartitionCopy copy = cluster.nodes[2].startPartitionCopy(newer))
        {
            final PartitionCopier.Result bulk = copy.bulk().get(20, TimeUnit.SECONDS);
            assertEquals(PartitionCopier.Outcome.FAILED, bulk.outcome());
            assertTrue(bulk.reason().contains("serves map epoch 1, the move is of epoch 2"), bulk.reason());
            assertEquals(0, bulk.report().keysCopied());
            assertEquals(PartitionCopier.Outcome.ABORTED, copy.abort().get(20, TimeUnit.SECONDS).outcome());
        }
    }

    // -------------------------------------------------------------------------------------------------------------

    /**
     * Puts a second slot word naming {@code key}'s block (a key of another partition) into an empty slot of its
     * first candidate group inside partition {@code p}'s segment on A, backup first, as damage would: only the
     * partition check can tell it does not belong.
     */
    private static void plant(final byte[] key, final int p)
    {
        final long group = KeyHash.group1(KeyHash.hash(key), (long)p * SEGMENT, SEGMENT);
        final long word;
        final long slotOffset;
        try (RegionView view = new RegionView(cluster.ports[0]))
        {
            word = view.find(key).word();
            final long[] words = words(view, group, 1);
            int s = 0;
            while (words[BucketDescriptor.slotOffsetInGroup(s) / Long.BYTES] != 0)
            {
                s++;
            }
            slotOffset = view.geometry().slotRegionOffset(group, s);
        }
        for (final int node : new int[] {1, 0})
        {
            try (RegionView view = new RegionView(cluster.ports[node]))
            {
                view.swapSlot(new RegionView.Slot(slotOffset, 0, 0, 0), word);
            }
        }
    }

    private static PartitionMove move(final int p, final int targetBase, final int targetGroups, final NanoClock clock)
    {
        return move(cluster, p, targetBase, targetGroups, clock);
    }

    private static PartitionMove move(final TwoGroups on, final int p, final int targetBase, final int targetGroups,
        final NanoClock clock)
    {
        final int[] partitions = {p};
        final long[] source = {KeyHash.segment((long)p * SEGMENT, SEGMENT)};
        final long[] target = {KeyHash.segment(targetBase, targetGroups)};
        final var backups = List.of(on.endpoint(3));
        return clock == null ?
            new PartitionMove(on.endpoint(0), 0, 1, TwoGroups.PARTITIONS, partitions, source, target, backups) :
            new PartitionMove(on.endpoint(0), 0, 1, TwoGroups.PARTITIONS, partitions, source, target, backups, clock);
    }

    /**
     * Asserts B's replicas hold {@code p}'s segment of A's primary in {@code (base, groups)}: equal word for word on
     * both, every word carrying MOVING (the bare bit for empties, headers 0), every key of A's segment there with
     * A's block bytes, and no key of another partition. Returns B's blocks by key.
     */
    private static Map<String, byte[]> assertTargetHoldsSource(final int p, final int base, final int groups)
    {
        return assertTargetHoldsSource(cluster, p, base, groups);
    }

    private static Map<String, byte[]> assertTargetHoldsSource(final TwoGroups on, final int p, final int base,
        final int groups)
    {
        final long segmentA = KeyHash.segment((long)p * SEGMENT, SEGMENT);
        final Map<String, Named> onA = named(on, 0, (long)p * SEGMENT, SEGMENT, VersionSalt.of(p, 0, segmentA));
        final long[] primary = segmentWords(on, 2, base, groups);
        final long[] backup = segmentWords(on, 3, base, groups);
        assertArrayEquals(primary, backup, "B's replicas hold the target segment word for word");
        for (int i = 0; i < primary.length; i++)
        {
            final int offset = i % (BucketDescriptor.GROUP_LENGTH / Long.BYTES) * Long.BYTES;
            if (offset == BucketDescriptor.MOVED_HEADER_OFFSET || offset == BucketDescriptor.INSERT_LOCK_OFFSET)
            {
                assertEquals(0, primary[i], "header word " + i);
            }
            else
            {
                assertTrue(SlotWord.isMoving(primary[i]), "slot word " + i + " carries MOVING");
            }
        }
        final Map<String, Named> namedOnB = named(on, 2, base, groups, VersionSalt.NONE);
        final Map<String, byte[]> onB = new HashMap<>();
        namedOnB.forEach((key, named) -> onB.put(key, named.block()));
        for (final String key : onB.keySet())
        {
            assertEquals(p, KeyHash.partition(KeyHash.hash(key.getBytes(StandardCharsets.UTF_8)), TwoGroups.PARTITIONS),
                "key " + key + " is of the partition moved");
        }
        assertEquals(onA.keySet(), onB.keySet(), "B holds exactly A's keys of the partition");
        for (final Map.Entry<String, Named> e : onA.entrySet())
        {
            final byte[] a = e.getValue().block();
            final byte[] b = onB.get(e.getKey());
            final KvBlock copy = new KvBlock().wrap(MemorySegment.ofArray(b), 0);
            assertEquals(e.getValue().version(), copy.origin(),
                "B's copy of " + e.getKey() + " carries the key's version on A as its origin");
            assertTrue(copy.isChecksumValid(), "and its checksum holds");
            assertArrayEquals(Arrays.copyOfRange(a, KvBlockDescriptor.CHECKSUM_FROM, KvBlockDescriptor.ORIGIN_OFFSET),
                Arrays.copyOfRange(b, KvBlockDescriptor.CHECKSUM_FROM, KvBlockDescriptor.ORIGIN_OFFSET),
                "A's header fields of " + e.getKey());
            assertArrayEquals(Arrays.copyOfRange(a, KvBlockDescriptor.KEY_OFFSET, a.length),
                Arrays.copyOfRange(b, KvBlockDescriptor.KEY_OFFSET, b.length), "A's key and value of " + e.getKey());
        }
        assertEquals(onB.keySet(), blocks(on, 3, base, groups).keySet(), "B's backup holds the same keys");
        return onB;
    }

    /** The blocks named by the slots of {@code (base, groups)} of node {@code node}, by key. */
    private static Map<String, byte[]> blocks(final int node, final long base, final int groups)
    {
        return blocks(cluster, node, base, groups);
    }

    private static Map<String, byte[]> blocks(final TwoGroups on, final int node, final long base, final int groups)
    {
        final Map<String, byte[]> byKey = new HashMap<>();
        named(on, node, base, groups, VersionSalt.NONE).forEach((key, named) -> byKey.put(key, named.block()));
        return byKey;
    }

    /** A block's bytes and the key's version there ({@link KvBlock#version}: its origin, else its salted slot word). */
    private record Named(byte[] block, long version)
    {
    }

    private static Map<String, Named> named(final TwoGroups on, final int node, final long base, final int groups,
        final long salt)
    {
        final Map<String, Named> byKey = new HashMap<>();
        try (RegionView view = new RegionView(on.ports[node]))
        {
            final RegionGeometry g = view.geometry();
            final long[] words = words(view, base, groups);
            for (int i = 0; i < words.length; i++)
            {
                if (!SlotWord.namesBlock(words[i]))
                {
                    continue;
                }
                final RegionView.Slot slot = new RegionView.Slot(g.groupRegionOffset(base) + (long)i * Long.BYTES,
                    words[i], g.dataOffset() + SlotWord.blockOffset(words[i]), SlotWord.blockLength(words[i]));
                final byte[] key = view.keyOf(slot);
                final byte[] block = view.bytes(slot.blockOffset(), slot.blockLength());
                final long version = new KvBlock().wrap(MemorySegment.ofArray(block), 0).version(words[i], salt);
                assertNull(byKey.put(new String(key, StandardCharsets.UTF_8), new Named(block, version)),
                    "one slot per key on node " + node);
            }
        }
        return byKey;
    }

    private static long[] segmentWords(final int node, final long base, final int groups)
    {
        return segmentWords(cluster, node, base, groups);
    }

    private static long[] segmentWords(final TwoGroups on, final int node, final long base, final int groups)
    {
        try (RegionView view = new RegionView(on.ports[node]))
        {
            return words(view, base, groups);
        }
    }

    private static long[] words(final RegionView view, final long base, final int groups)
    {
        final byte[] bytes = view.bytes(view.geometry().groupRegionOffset(base), groups * BucketDescriptor.GROUP_LENGTH);
        final long[] words = new long[bytes.length / Long.BYTES];
        MemorySegment.copy(MemorySegment.ofArray(bytes), LE, 0, words, 0, words.length);
        return words;
    }

    /** Sets MOVING on every slot of {@code p}'s segment on A, its backup first, then its primary (no writer runs). */
    private static void freeze(final int p)
    {
        freeze(cluster, p);
    }

    private static void freeze(final TwoGroups on, final int p)
    {
        for (final int node : new int[] {1, 0})
        {
            try (RegionView view = new RegionView(on.ports[node]))
            {
                final long base = (long)p * SEGMENT;
                final long[] words = words(view, base, SEGMENT);
                for (int i = 0; i < words.length; i++)
                {
                    final int offset = i % (BucketDescriptor.GROUP_LENGTH / Long.BYTES) * Long.BYTES;
                    if (offset != BucketDescriptor.MOVED_HEADER_OFFSET && offset != BucketDescriptor.INSERT_LOCK_OFFSET &&
                        !SlotWord.isMoving(words[i]))
                    {
                        view.swapSlot(new RegionView.Slot(view.geometry().groupRegionOffset(base) + (long)i * Long.BYTES,
                            words[i], 0, 0), words[i] | SlotWord.MOVING);
                    }
                }
            }
        }
    }

    /** The value bytes of a block (its key and header skipped). */
    private static byte[] valueOf(final byte[] block)
    {
        assertNotNull(block, "the key is on B");
        final MemorySegment b = MemorySegment.ofArray(block);
        final int keyLength = Short.toUnsignedInt(b.get(ValueLayout.JAVA_SHORT_UNALIGNED,
            io.rdmakv.common.layout.KvBlockDescriptor.KEY_LENGTH_OFFSET));
        final int valueLength = b.get(ValueLayout.JAVA_INT_UNALIGNED,
            io.rdmakv.common.layout.KvBlockDescriptor.VALUE_LENGTH_OFFSET);
        final long at = io.rdmakv.common.layout.KvBlockDescriptor.valueOffset(keyLength);
        return Arrays.copyOfRange(block, (int)at, (int)at + valueLength);
    }

    private static String text(final byte[] key)
    {
        return new String(key, StandardCharsets.UTF_8);
    }

    private static List<byte[]> keysOf(final int p, final int count)
    {
        final List<byte[]> keys = new ArrayList<>();
        for (int i = 0; keys.size() < count; i++)
        {
            final byte[] key = ("key-" + i).getBytes(StandardCharsets.UTF_8);
            if (KeyHash.partition(KeyHash.hash(key), TwoGroups.PARTITIONS) == p)
            {
                keys.add(key);
            }
        }
        return keys;
    }

    private static void putAll(final List<byte[]> keys, final String prefix)
    {
        putAll(client, keys, prefix);
    }

    private static void putAll(final KvClient into, final List<byte[]> keys, final String prefix)
    {
        for (int i = 0; i < keys.size(); i++)
        {
            into.put(keys.get(i), value(prefix + "-" + i));
        }
    }

    private static byte[] value(final String text)
    {
        return (text + "-" + "x".repeat(40)).getBytes(StandardCharsets.UTF_8);
    }
}
