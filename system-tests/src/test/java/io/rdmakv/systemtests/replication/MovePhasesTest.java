package io.rdmakv.systemtests.replication;

import io.rdmakv.client.KvClient;
import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.MapMoves;
import io.rdmakv.common.cluster.MoveBatch;
import io.rdmakv.common.cluster.MovePhase;
import io.rdmakv.common.cluster.RetiredSegment;
import io.rdmakv.common.hash.KeyHash;
import io.rdmakv.common.layout.BucketDescriptor;
import io.rdmakv.common.layout.KvBlockDescriptor;
import io.rdmakv.common.layout.SlotWord;
import io.rdmakv.common.protocol.StatsOkMessage;
import io.rdmakv.server.cluster.NodeRole;
import io.rdmakv.server.cluster.map.MoveState;
import io.rdmakv.systemtests.LocalCluster;
import io.rdmakv.systemtests.cluster.HotKeyWorkload;
import io.rdmakv.systemtests.peer.RegionView;
import io.rdmakv.testsupport.concurrent.Racers;
import io.rdmakv.testsupport.linearizability.KeyedCheckResult;
import io.rdmakv.testsupport.linearizability.LinearizabilityChecker;
import io.rdmakv.testsupport.linearizability.OpKind;
import io.rdmakv.testsupport.linearizability.Outcome;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A partition moving between two real replica groups while writers and a reader run ({@link TwoGroups}: group 0 is
 * nodes 0 and 1, group 1 nodes 2 and 3), each node following the maps through its {@link NodeRole} with its move role,
 * as under ZooKeeper; the test plays the coordinator: it writes the next phase's map when the report it waits for is
 * in (growth.md §7, §12 rule 2). A move that finishes, and one abandoned in FREEZE: in both nothing acknowledged is
 * lost and no write fails; after the abort the partition is writable on its old group again and the target's copy is
 * gone.
 */
class MovePhasesTest
{
    private static final int PARTITION = 3;
    private static final long SEGMENT_GROUPS = TwoGroups.SEGMENT_GROUPS;
    /** The first free range of group 1's arena. */
    private static final long X_B = KeyHash.segment(TwoGroups.PARTITIONS / 2 * SEGMENT_GROUPS, SEGMENT_GROUPS);
    private static final Duration REPORT_WAIT = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    private TwoGroups groups;
    private final NodeRole[] roles = new NodeRole[4];
    private final Map<Integer, Reported> reports = new ConcurrentHashMap<>();
    private ClusterMap base;

    private record Reported(long epoch, Map<Long, MoveState> batches)
    {
    }

    @BeforeEach
    void start() throws Exception
    {
        groups = TwoGroups.start(dir);
        base = groups.nodes[0].clusterMap();
        for (int i = 0; i < roles.length; i++)
        {
            final int node = i;
            roles[i] = NodeRole.withMoves(groups.nodes[i], (primary, epoch) -> 0, (group, epoch, finalPass) -> { },
                (epoch, batches) -> reports.put(node, new Reported(epoch, Map.copyOf(batches))));
            // the static map through the role first, before any client: a primary's first map rebuilds its allocator
            roles[i].onMap(base);
        }
    }

    @AfterEach
    void stop()
    {
        LocalCluster.closeAll(roles);
        LocalCluster.closeAll(groups);
    }

    private ClusterMap map(final long epoch, final long fence, final boolean switched, final MapMoves moves)
    {
        final int[] partitionGroups = base.partitionGroups();
        final long[] segments = base.segments();
        if (switched)
        {
            partitionGroups[PARTITION] = 1;
            segments[PARTITION] = X_B;
        }
        return new ClusterMap(epoch, fence, base.partitionCount(), base.nodes(), base.replicationFactor(), base.groups(),
            partitionGroups, segments).withMoves(moves);
    }

    private static MapMoves batch(final MovePhase phase, final long phaseEpoch, final RetiredSegment... retired)
    {
        return new MapMoves(List.of(new MoveBatch(2000, 0, 1, phase, phaseEpoch, new int[] {PARTITION},
            new long[] {X_B})), List.of(retired));
    }

    private void applyToAll(final ClusterMap map)
    {
        for (final NodeRole role : roles)
        {
            role.onMap(map);
        }
    }

    private void awaitReport(final int node, final long epoch, final MoveState state) throws InterruptedException
    {
        final long deadline = System.nanoTime() + REPORT_WAIT.toNanos();
        while (System.nanoTime() < deadline)
        {
            final Reported r = reports.get(node);
            if (r != null && r.epoch() >= epoch && r.batches().get(2000L) == state)
            {
                return;
            }
            if (r != null && r.epoch() == epoch && r.batches().get(2000L) == MoveState.FAILED)
            {
                fail("node " + node + " reported failed at epoch " + epoch);
            }
            Thread.sleep(10);
        }
        fail("node " + node + " did not report " + state.json() + " at epoch " + epoch + " (last: " +
            reports.get(node) + ")");
    }

    @Test
    void aMoveUnderWritesFinishesLosesNothingAndFailsNoWrite() throws Exception
    {
        final long fence = base.fenceEpoch();
        final long e = base.epoch();
        try (KvClient client = groups.client();
            PartitionLoad load = new PartitionLoad(client, keysOf(PARTITION, 48), 3))
        {
            load.awaitWrites(200);
            final long[] beforeOpen = new long[1];
            final RetiredSegment retired = move(() -> beforeOpen[0] = load.writes());
            load.awaitWrites(beforeOpen[0] + 300);
            // the source's replicas reclaim the retired segment once every session of theirs is past the switch
            awaitReport(0, e + 4, MoveState.RECLAIMED);
            awaitReport(1, e + 4, MoveState.RECLAIMED);
            assertEquals(0, frozenSlots(0, retired.segment()) + usedSlots(0, retired.segment()) +
                frozenSlots(1, retired.segment()) + usedSlots(1, retired.segment()), "the retired segment zeroed");
            waitUntil(() -> roles[0].reclaims() == 1 && roles[1].reclaims() == 1, "both source replicas reclaimed");
            assertTrue(roles[0].reclaimedBlocks(false) >= 48, "the source primary freed (or deferred, in a live " +
                "writer's latest extent) every block the segment named: " + roles[0].reclaimedBlocks(false));
            assertEquals(0, roles[0].reclaimedBlocks(true), "and refused none");
            applyToAll(map(e + 5, fence, true, MapMoves.NONE));
            final long afterReclaim = load.writes();
            load.awaitWrites(afterReclaim + 200);
            load.stop();
            load.verify(client);
            assertEquals(0, load.failures(), "no write or read failed: " + load.failureSamples());
            assertEquals(0, frozenSlots(2, X_B) + frozenSlots(3, X_B), "the target opened on both replicas");
            assertTrue(usedSlots(2, X_B) >= 48, "group 1's primary holds the partition's keys");
            assertTrue(usedSlots(3, X_B) >= 48, "and its backup");
            waitUntil(() -> roles[2].moves(true) == 1, "the target primary counts the move finished");
            assertTrue(roles[2].moveKeys() >= 48 && roles[2].moveBytes() > 0, "and what it copied");
            assertEquals(1, roles[0].moveFreezes(), "the source primary froze one segment");
            assertTrue(roles[0].moveFreezeNanos() > 0);
            assertEquals(0, roles[0].partitionsMoving(true), "nothing moves any more");
            System.out.printf("move: %d writes, %d reads; longest write %d ms, longest read %d ms%n", load.writes(),
                load.reads(), load.longestWriteMillis(), load.longestReadMillis());
        }
    }

    /**
     * Moves the partition to group 1 through every phase (COPY, FREEZE, SWITCH, OPEN at the base epoch + 1..4), each
     * map written once the report it needs is in; runs {@code beforeOpen} just before the OPEN map. Returns the source
     * segment the move retired.
     */
    private RetiredSegment move(final Runnable beforeOpen) throws InterruptedException
    {
        final long fence = base.fenceEpoch();
        final long e = base.epoch();
        applyToAll(map(e + 1, fence, false, batch(MovePhase.COPY, e + 1)));
        awaitReport(2, e + 1, MoveState.BULK);
        applyToAll(map(e + 2, fence, false, batch(MovePhase.FREEZE, e + 2)));
        awaitReport(2, e + 2, MoveState.FINAL);
        final RetiredSegment retired = new RetiredSegment(0, PARTITION, base.segmentOf(PARTITION), e + 3, 2000);
        applyToAll(map(e + 3, fence, true, batch(MovePhase.SWITCH, e + 3, retired)));
        awaitReport(0, e + 3, MoveState.MARKED);
        beforeOpen.run();
        applyToAll(map(e + 4, fence, true, new MapMoves(List.of(), List.of(retired))));
        return retired;
    }

    @Test
    void aKeysVersionStaysTheSameAcrossAMoveUntilItIsWritten() throws Exception
    {
        final List<byte[]> keys = keysOf(PARTITION, 3);
        final byte[] kept = keys.get(0);
        final byte[] rewritten = keys.get(1);
        final byte[] insertedOnTheTarget = keys.get(2);
        try (KvClient client = groups.client())
        {
            client.put(kept, LocalCluster.bytes("kept"));
            client.put(rewritten, LocalCluster.bytes("before"));
            final long keptVersion = client.getVersioned(kept).version();
            final long oldVersion = client.getVersioned(rewritten).version();
            move(() -> { });
            assertEquals(keptVersion, client.getVersioned(kept).version(),
                "a key nobody wrote keeps its version on the target group");
            assertEquals(keptVersion, origin(2, kept), "its copy carries the source's version as its origin");
            assertEquals(keptVersion, origin(3, kept), "on the target's backup too");
            client.put(rewritten, LocalCluster.bytes("after"));
            assertFalse(client.putIfVersion(rewritten, LocalCluster.bytes("stale"), oldVersion),
                "a version from before a write on the target does not match");
            assertArrayEquals(LocalCluster.bytes("after"), client.get(rewritten));
            assertTrue(client.putIfVersion(kept, LocalCluster.bytes("swapped"), keptVersion),
                "a version read on the source group before the move still swaps the unchanged value");
            assertArrayEquals(LocalCluster.bytes("swapped"), client.get(kept));
            final long swapped = client.getVersioned(kept).version();
            assertNotEquals(keptVersion, swapped, "the swap gave the key a version of its own");
            assertFalse(client.putIfVersion(kept, LocalCluster.bytes("twice"), keptVersion),
                "and the pre-move version is gone with the copied block");
            assertTrue(client.putIfVersion(kept, LocalCluster.bytes("again"), swapped));
            assertTrue(client.putIfVersion(insertedOnTheTarget, LocalCluster.bytes("new"), KvClient.ABSENT));
            assertArrayEquals(LocalCluster.bytes("new"), client.get(insertedOnTheTarget));
        }
        assertEquals(0L, origin(2, kept), "the target's own write carries no origin");
    }

    /** The origin field of {@code key}'s block on node {@code node}. */
    private long origin(final int node, final byte[] key)
    {
        try (RegionView view = new RegionView(groups.ports[node]))
        {
            return view.longAt(view.find(key).blockOffset() + KvBlockDescriptor.ORIGIN_OFFSET);
        }
    }

    @Test
    void aHistoryOfGetsPutsDeletesAndCompareAndSetsAcrossAMoveIsLinearizable() throws Exception
    {
        final HotKeyWorkload load;
        final List<Throwable> failures;
        try (KvClient client = groups.client())
        {
            load = new HotKeyWorkload(client, keysOf(PARTITION, 4));
            final Thread mover = Thread.ofPlatform().name("mover").start(() ->
            {
                try
                {
                    Thread.sleep(1_000);
                    move(() -> { });
                    Thread.sleep(2_000);
                }
                catch (final InterruptedException | AssertionError e)
                {
                    load.note("the move failed: " + e);
                }
                finally
                {
                    load.stop();
                }
            });
            failures = Racers.run("move-lin-", 4, load::run, Duration.ofMinutes(2));
            mover.join();
            load.finalReads(client);
        }
        assertEquals(List.of(), failures);
        assertEquals(List.of(), load.timeline(), "the move went through all its phases");
        waitUntil(() -> roles[2].moves(true) == 1, "the target primary counts the move finished");
        final long casSucceeded = load.history.ops().stream()
            .filter(op -> op.op().kind() == OpKind.COMPARE_AND_SET && op.op().outcome() == Outcome.TRUE).count();
        final KeyedCheckResult<Integer> result = load.history.check(new LinearizabilityChecker());
        System.out.printf("move history: %d operations, %d compare-and-sets succeeded, longest gap %d ms; %s%n",
            load.history.ops().size(), casSucceeded, load.longestGapMs(), result.summary());
        assertTrue(casSucceeded > 0, "the history has compare-and-sets that took effect");
        assertTrue(result.isLinearizable(), result.summary());
    }

    @Test
    void aMoveAbandonedInFreezeLosesNothingAndTheOldGroupTakesWritesAgain() throws Exception
    {
        final long e = base.epoch();
        try (KvClient client = groups.client();
            PartitionLoad load = new PartitionLoad(client, keysOf(PARTITION, 48), 3))
        {
            load.awaitWrites(200);
            applyToAll(map(e + 1, base.fenceEpoch(), false, batch(MovePhase.COPY, e + 1)));
            awaitReport(2, e + 1, MoveState.BULK);
            // what kvctl cluster shows: the target primary's copy so far, the source primary's count of the keys
            waitUntil(() -> client.nodeStats(0).moves().sourceKeys() == 48,
                "the source primary counts the moving partition's 48 keys (STATS: " + client.nodeStats(0).moves() + ")");
            final StatsOkMessage.MoveProgress source = client.nodeStats(0).moves();
            assertEquals(2000, source.sourceBatch(), "the source primary names the batch it gives up");
            assertFalse(source.copying(), "and copies none");
            final StatsOkMessage.MoveProgress copying = client.nodeStats(2).moves();
            assertEquals(2000, copying.copyBatch(), "the target primary names the batch it copies");
            assertTrue(copying.copyKeys() >= 48 && copying.copyBytes() >= 48L * KvBlockDescriptor.HEADER_LENGTH,
                "and every key of it copied: " + copying);
            assertFalse(copying.giving());
            assertEquals(StatsOkMessage.MoveProgress.NONE, client.nodeStats(1).moves(), "backups say nothing of moves");
            assertEquals(StatsOkMessage.MoveProgress.NONE, client.nodeStats(3).moves());
            applyToAll(map(e + 2, base.fenceEpoch(), false, batch(MovePhase.FREEZE, e + 2)));
            awaitReport(2, e + 2, MoveState.FINAL);
            assertTrue(client.nodeStats(2).moves().copyKeys() >= copying.copyKeys(), "the delta adds to the count");
            assertTrue(frozenSlots(0, base.segmentOf(PARTITION)) > 0, "the source froze");
            assertEquals(1, roles[0].partitionsMoving(true), "a source replica counts the moving partition");
            assertTrue(roles[1].movePhaseAgeSeconds() > 0, "a batch's phase has an age");
            assertEquals(1, roles[3].partitionsMoving(false), "and a target replica");
            // the abandoning map fences, as the planner writes it
            applyToAll(map(e + 3, e + 3, false, MapMoves.NONE));
            final long afterAbort = load.writes();
            load.awaitWrites(afterAbort + 300);
            load.stop();
            load.verify(client);
            assertEquals(0, frozenSlots(0, base.segmentOf(PARTITION)) + frozenSlots(1, base.segmentOf(PARTITION)),
                "the source opened on both replicas");
            waitUntil(() -> usedSlots(2, X_B) + usedSlots(3, X_B) + frozenSlots(2, X_B) + frozenSlots(3, X_B) == 0,
                "the target's copy zeroed on both replicas");
            assertEquals(1, roles[2].moves(false), "the target primary counts the move aborted");
            assertEquals(StatsOkMessage.MoveProgress.NONE, client.nodeStats(2).moves(), "and copies nothing any more");
            assertEquals(StatsOkMessage.MoveProgress.NONE, client.nodeStats(0).moves(), "the source gives nothing up");
            assertEquals(0, roles[1].movePhaseAgeSeconds(), "no batch: no age");
            System.out.printf("abort: %d writes (%d failed: %s), %d reads%n", load.writes(), load.failures(),
                load.failureSamples(), load.reads());
        }
    }

    private static List<byte[]> keysOf(final int partition, final int count)
    {
        final List<byte[]> keys = new ArrayList<>();
        for (int i = 0; keys.size() < count; i++)
        {
            final byte[] key = ("moving-" + i).getBytes(StandardCharsets.UTF_8);
            if (KeyHash.partition(KeyHash.hash(key), TwoGroups.PARTITIONS) == partition)
            {
                keys.add(key);
            }
        }
        return keys;
    }

    private static void waitUntil(final java.util.function.BooleanSupplier condition, final String what)
        throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() > deadline)
            {
                fail("timed out: " + what);
            }
            Thread.sleep(20);
        }
    }

    /** Slots of {@code segment} on node {@code node} that carry MOVING. */
    private int frozenSlots(final int node, final long segment)
    {
        return count(node, segment, true);
    }

    /** Slots of {@code segment} on node {@code node} that name a block. */
    private int usedSlots(final int node, final long segment)
    {
        return count(node, segment, false);
    }

    private int count(final int node, final long segment, final boolean moving)
    {
        int n = 0;
        try (RegionView view = new RegionView(groups.ports[node]))
        {
            for (long g = KeyHash.segmentBase(segment); g < KeyHash.segmentBase(segment) +
                KeyHash.segmentCount(segment); g++)
            {
                for (int s = 0; s < BucketDescriptor.SLOTS_PER_GROUP; s++)
                {
                    final long word = view.longAt(view.geometry().groupRegionOffset(g) +
                        BucketDescriptor.slotOffsetInGroup(s));
                    if (moving ? SlotWord.isMoving(word) : SlotWord.namesBlock(word))
                    {
                        n++;
                    }
                }
            }
        }
        return n;
    }
}
