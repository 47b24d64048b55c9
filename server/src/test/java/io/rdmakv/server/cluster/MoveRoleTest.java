package io.rdmakv.server.cluster;

import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.ClusterNode;
import io.rdmakv.common.cluster.MapMoves;
import io.rdmakv.common.cluster.MoveBatch;
import io.rdmakv.common.cluster.MovePhase;
import io.rdmakv.common.cluster.ReplicaGroup;
import io.rdmakv.common.cluster.RetiredSegment;
import io.rdmakv.common.hash.KeyHash;
import io.rdmakv.server.cluster.map.MoveState;
import io.rdmakv.server.replication.FreezeCancelledException;
import io.rdmakv.server.replication.MoveCopy;
import io.rdmakv.server.replication.MoveReport;
import io.rdmakv.server.replication.PartitionCopier;
import io.rdmakv.server.replication.PartitionMove;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a node's move role does at each phase of a batch (growth.md §7, §9), against a fake node and a recording
 * reporter: partition 1 moves from group 0 (nodes 1, 2) to group 1 (nodes 3, 4), from segment (8, 8) to (16, 8).
 */
class MoveRoleTest
{
    private static final long X_A = KeyHash.segment(8, 8);
    private static final long X_B = KeyHash.segment(16, 8);
    private static final long BATCH = 2000;
    private static final long WAIT_MS = 5000;

    private final FakeNode node = new FakeNode();
    private final BlockingQueue<Reported> reports = new LinkedBlockingQueue<>();
    private MoveRole role;

    private record Reported(long epoch, Map<Long, MoveState> batches)
    {
    }

    @AfterEach
    void close()
    {
        if (role != null)
        {
            role.close();
        }
    }

    private MoveRole role(final int nodeId)
    {
        role = new MoveRole(node, nodeId, (epoch, batches) -> reports.add(new Reported(epoch, Map.copyOf(batches))),
            TimeUnit.MILLISECONDS.toNanos(600));
        return role;
    }

    private static ClusterMap map(final long epoch, final long fence, final int groupOfPartition1,
        final MapMoves moves)
    {
        final List<ClusterNode> nodes = new ArrayList<>();
        for (int id = 1; id <= 4; id++)
        {
            nodes.add(new ClusterNode(id, "127.0.0.1", 7000 + id));
        }
        final long[] segments = {KeyHash.segment(0, 8), groupOfPartition1 == 0 ? X_A : X_B, KeyHash.segment(0, 8),
            KeyHash.segment(8, 8)};
        return new ClusterMap(epoch, fence, 4, nodes, 2, List.of(new ReplicaGroup(0, new int[] {1, 2}, null, false),
            new ReplicaGroup(1, new int[] {3, 4}, null, false)), new int[] {0, groupOfPartition1, 1, 1}, segments)
            .withMoves(moves);
    }

    private static MapMoves batch(final long id, final MovePhase phase, final RetiredSegment... retired)
    {
        return new MapMoves(List.of(new MoveBatch(id, 0, 1, phase, 2, new int[] {1}, new long[] {X_B})),
            List.of(retired));
    }

    private static final RetiredSegment RETIRED = new RetiredSegment(0, 1, X_A, 4, BATCH);
    private static final ClusterMap BEFORE = map(1, 1, 0, MapMoves.NONE);
    private static final ClusterMap COPY = map(2, 1, 0, batch(BATCH, MovePhase.COPY));
    private static final ClusterMap FREEZE = map(3, 1, 0, batch(BATCH, MovePhase.FREEZE));
    private static final ClusterMap SWITCH = map(4, 1, 1, batch(BATCH, MovePhase.SWITCH, RETIRED));
    private static final ClusterMap OPEN = map(5, 1, 1, new MapMoves(List.of(), List.of(RETIRED)));

    private void apply(final ClusterMap previous, final ClusterMap next)
    {
        role.beforeApply(previous, next);
        role.onMap(next);
    }

    private Reported nextReport() throws InterruptedException
    {
        final Reported r = reports.poll(WAIT_MS, TimeUnit.MILLISECONDS);
        assertNotNull(r, "a report was written");
        return r;
    }

    @Test
    void theTargetPrimaryCopiesReportsEachPhaseAndHandsOverBeforeTheOpeningMapIsApplied() throws Exception
    {
        role(3);
        apply(BEFORE, COPY);
        final FakeCopy copy = node.copies.poll(WAIT_MS, TimeUnit.MILLISECONDS);
        assertNotNull(copy, "the copy started at COPY");
        assertEquals(new InetSocketAddress("127.0.0.1", 7001), copy.move.source(), "read from the source primary");
        assertArrayEquals(new long[] {X_A}, copy.move.sourceSegments());
        assertArrayEquals(new long[] {X_B}, copy.move.targetSegments());
        assertEquals(List.of(new InetSocketAddress("127.0.0.1", 7004)), copy.move.backups(), "written to its backup");
        assertTrue(reports.isEmpty(), "nothing said before the bulk passes end");

        copy.bulk.complete(result(PartitionCopier.Outcome.BULK));
        assertEquals(new Reported(2, Map.of(BATCH, MoveState.BULK)), nextReport());

        apply(COPY, FREEZE);
        assertEquals(new Reported(3, Map.of()), nextReport(), "bulk belongs to COPY: not said in FREEZE");
        assertTrue(copy.deltaStarted.await(), "the delta started when the freeze began");
        copy.delta.complete(result(PartitionCopier.Outcome.FINAL));
        assertEquals(new Reported(3, Map.of(BATCH, MoveState.FINAL)), nextReport());

        apply(FREEZE, SWITCH);
        assertEquals(new Reported(4, Map.of()), nextReport());
        assertTrue(copy.handOverAsked.await(), "handed over at SWITCH");
        assertFalse(copy.closed, "not closed before OPEN");

        // the opening map waits for the hand-over: completed from another thread after a while
        final CompletableFuture<Void> later = CompletableFuture.runAsync(() ->
        {
            sleep(200);
            copy.handOver.complete(4096L);
        });
        final long start = System.nanoTime();
        role.beforeApply(SWITCH, OPEN);
        assertTrue(copy.handOver.isDone(), "beforeApply returned only after the hand-over");
        assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(150));
        later.get();
        role.onMap(OPEN);
        waitUntil(() -> copy.closed);
        assertNull(reports.poll(200, TimeUnit.MILLISECONDS), "nothing said, and nothing was said at SWITCH either");
        assertEquals(0, copy.aborts.get());
        assertEquals(1, role.opened());
    }

    @Test
    void theSourcePrimaryFreezesAtFreezeAndReportsMarkedAtSwitch() throws Exception
    {
        role(1);
        apply(BEFORE, COPY);
        apply(COPY, FREEZE);
        final long[] frozen = node.frozen.poll(WAIT_MS, TimeUnit.MILLISECONDS);
        assertNotNull(frozen, "froze at FREEZE");
        assertArrayEquals(new long[] {X_A, 3}, frozen, "the source segment, decided under epoch 3");
        assertTrue(node.copies.isEmpty(), "the source copies nothing");
        apply(FREEZE, SWITCH);
        assertEquals(new Reported(4, Map.of(BATCH, MoveState.MARKED)), nextReport());
        apply(SWITCH, OPEN);
        assertEquals(new Reported(5, Map.of()), nextReport(), "nothing left to say");
        assertEquals(List.of(), node.cancels, "nothing abandoned");
    }

    @Test
    void sourceReplicasReclaimAfterOpenOnceNoSessionLagsAndAGracePeriodPassed() throws Exception
    {
        for (final int replica : new int[] {1, 2})
        {
            role(replica);
            apply(FREEZE, SWITCH);
            if (replica == 1)
            {
                assertEquals(new Reported(4, Map.of(BATCH, MoveState.MARKED)), nextReport());
            }
            assertNull(node.reclaimed.poll(400, TimeUnit.MILLISECONDS), "nothing reclaimed before OPEN");
            final long opened = System.nanoTime();
            apply(SWITCH, OPEN);
            if (replica == 1)
            {
                assertEquals(new Reported(5, Map.of()), nextReport());
            }
            final long[] reclaimed = node.reclaimed.poll(WAIT_MS, TimeUnit.MILLISECONDS);
            assertNotNull(reclaimed, "node " + replica + " reclaimed");
            assertTrue(System.nanoTime() - opened >= TimeUnit.MILLISECONDS.toNanos(100), "a grace period later");
            assertArrayEquals(new long[] {X_A, replica == 1 ? 1 : 0}, reclaimed, "the retired segment; the primary " +
                "frees its blocks");
            assertEquals(new Reported(5, Map.of(BATCH, MoveState.RECLAIMED)), nextReport());
            // the coordinator drops the retired segment: nothing more to say
            apply(OPEN, map(6, 1, 1, MapMoves.NONE));
            assertEquals(new Reported(6, Map.of()), nextReport());
            assertNull(node.reclaimed.poll(300, TimeUnit.MILLISECONDS), "reclaimed once");
            role.close();
            reports.clear();
        }
    }

    @Test
    void aSessionLaggingBehindTheSwitchHoldsTheReclaimUntilItIsFencedAfterTheWait() throws Exception
    {
        node.lagging.set(1);
        role(2);
        apply(FREEZE, SWITCH);
        final long opened = System.nanoTime();
        apply(SWITCH, OPEN);
        final long[] reclaimed = node.reclaimed.poll(WAIT_MS, TimeUnit.MILLISECONDS);
        assertNotNull(reclaimed, "reclaimed once the laggard was fenced");
        assertTrue(System.nanoTime() - opened >= TimeUnit.MILLISECONDS.toNanos(600), "not before the wait");
        assertEquals(List.of(4L), node.fencedBelow, "sessions below the switch epoch fenced");
        assertEquals(new Reported(5, Map.of(BATCH, MoveState.RECLAIMED)), nextReport());
    }

    @Test
    void theTargetReclaimsNothing() throws Exception
    {
        role(3);
        apply(FREEZE, SWITCH);
        apply(SWITCH, OPEN);
        assertNull(node.reclaimed.poll(800, TimeUnit.MILLISECONDS));
    }

    @Test
    void aSourcePrimaryThatCannotFreezeReportsFailed() throws Exception
    {
        node.freezeFailures.set(MoveRole.FREEZE_TRIES);
        role(1);
        apply(COPY, FREEZE);
        assertEquals(new Reported(3, Map.of(BATCH, MoveState.FAILED)), nextReport());
        assertEquals(MoveRole.FREEZE_TRIES, node.freezeCalls.get(), "tried " + MoveRole.FREEZE_TRIES + " times");
    }

    @Test
    void anAbortOfAFrozenBatchCancelsTheFreezesBeforeTheMapIsApplied() throws Exception
    {
        role(2);
        final ClusterMap aborted = map(4, 4, 0, MapMoves.NONE);
        role.beforeApply(FREEZE, aborted);
        assertEquals(List.of(4L), node.cancels, "freezes of older maps cancelled before the clear");
        role.beforeApply(COPY, map(3, 1, 0, MapMoves.NONE));
        assertEquals(List.of(4L), node.cancels, "an abort at COPY froze nothing");
    }

    @Test
    void anAbortedCopyIsZeroedBeforeTheNextCopyStarts() throws Exception
    {
        role(3);
        apply(BEFORE, COPY);
        final FakeCopy first = node.copies.poll(WAIT_MS, TimeUnit.MILLISECONDS);
        assertNotNull(first);
        final ClusterMap aborted = map(3, 1, 0, MapMoves.NONE);
        apply(COPY, aborted);
        waitUntil(() -> first.aborts.get() == 1);
        // a new batch (same target segment) while the abort has not finished
        final ClusterMap again = map(4, 1, 0, batch(4000, MovePhase.COPY));
        apply(aborted, again);
        assertNull(node.copies.poll(300, TimeUnit.MILLISECONDS), "no copy while the abort runs");
        first.abort.complete(result(PartitionCopier.Outcome.ABORTED));
        final FakeCopy second = node.copies.poll(WAIT_MS, TimeUnit.MILLISECONDS);
        assertNotNull(second, "the next copy started after the abort");
        waitUntil(() -> first.closed);
        assertEquals(1, role.aborted());
    }

    @Test
    void anAbortThatCouldNotReachAReplicaIsTriedAgainBeforeTheNextCopyStarts() throws Exception
    {
        role(3);
        apply(BEFORE, COPY);
        final FakeCopy first = node.copies.poll(WAIT_MS, TimeUnit.MILLISECONDS);
        assertNotNull(first);
        final ClusterMap aborted = map(3, 3, 0, MapMoves.NONE);
        apply(COPY, aborted);
        apply(aborted, map(4, 3, 0, batch(4000, MovePhase.COPY)));
        first.abort.complete(new PartitionCopier.Result(PartitionCopier.Outcome.FAILED, "backup 4 refused the " +
            "connection", report()));
        assertFalse(first.closed, "not closed after a failed abort");
        assertNull(node.copies.poll(MoveRole.ABORT_RETRY_MILLIS / 2, TimeUnit.MILLISECONDS), "no copy before the retry");
        final FakeCopy second = node.copies.poll(WAIT_MS, TimeUnit.MILLISECONDS);
        assertNotNull(second, "the next copy started once the abort was tried again and finished");
        assertEquals(2, first.aborts.get(), "aborted twice");
        waitUntil(() -> first.closed);
    }

    @Test
    void aTargetPrimaryWithNoCopyAtFreezeReportsFailed() throws Exception
    {
        role(3);
        apply(BEFORE, FREEZE);
        assertEquals(new Reported(3, Map.of(BATCH, MoveState.FAILED)), nextReport());
    }

    @Test
    void aFailedBulkIsReportedFailed() throws Exception
    {
        role(3);
        apply(BEFORE, COPY);
        final FakeCopy copy = node.copies.poll(WAIT_MS, TimeUnit.MILLISECONDS);
        assertNotNull(copy);
        copy.bulk.complete(new PartitionCopier.Result(PartitionCopier.Outcome.FAILED, "no room", report()));
        assertEquals(new Reported(2, Map.of(BATCH, MoveState.FAILED)), nextReport());
    }

    @Test
    void aBackupDoesNothingButReclaimOnTheSource() throws Exception
    {
        for (final int backup : new int[] {2, 4})
        {
            role(backup);
            apply(BEFORE, COPY);
            apply(COPY, FREEZE);
            apply(FREEZE, SWITCH);
            if (backup == 4)
            {
                apply(SWITCH, OPEN); // the source's backup reclaims after OPEN: its own case above
            }
            assertNull(reports.poll(500, TimeUnit.MILLISECONDS), "node " + backup + " reported nothing");
            assertTrue(node.copies.isEmpty() && node.frozen.isEmpty());
            role.close();
        }
    }

    private static PartitionCopier.Result result(final PartitionCopier.Outcome outcome)
    {
        return new PartitionCopier.Result(outcome, null, report());
    }

    private static MoveReport report()
    {
        return new MoveReport(1, 10, 1000, 0, 0, 0, new long[] {10}, 1000);
    }

    private static void sleep(final long millis)
    {
        try
        {
            Thread.sleep(millis);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
    }

    private static void waitUntil(final java.util.function.BooleanSupplier condition)
    {
        final long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
        while (!condition.getAsBoolean())
        {
            assertTrue(System.nanoTime() < end, "timed out waiting");
            sleep(5);
        }
    }

    /** A latch that a test awaits with the test's timeout. */
    private static final class Flag
    {
        private final CompletableFuture<Void> set = new CompletableFuture<>();

        void set()
        {
            set.complete(null);
        }

        boolean await() throws Exception
        {
            set.get(WAIT_MS, TimeUnit.MILLISECONDS);
            return true;
        }
    }

    private static final class FakeCopy implements MoveCopy
    {
        final PartitionMove move;
        final CompletableFuture<PartitionCopier.Result> bulk = new CompletableFuture<>();
        final CompletableFuture<PartitionCopier.Result> delta = new CompletableFuture<>();
        final CompletableFuture<PartitionCopier.Result> abort = new CompletableFuture<>();
        final CompletableFuture<Long> handOver = new CompletableFuture<>();
        final Flag deltaStarted = new Flag();
        final Flag handOverAsked = new Flag();
        final AtomicInteger aborts = new AtomicInteger();
        volatile PartitionCopier.Result retryResult = result(PartitionCopier.Outcome.ABORTED);
        volatile boolean closed;

        FakeCopy(final PartitionMove move)
        {
            this.move = move;
        }

        @Override
        public CompletableFuture<PartitionCopier.Result> bulk()
        {
            return bulk;
        }

        @Override
        public CompletableFuture<PartitionCopier.Result> freezeBegun()
        {
            deltaStarted.set();
            return delta;
        }

        @Override
        public CompletableFuture<PartitionCopier.Result> abort()
        {
            // the first abort is {@link #abort}; a later one (a retry) completes as {@link #retryResult} says
            return aborts.incrementAndGet() == 1 ? abort : CompletableFuture.completedFuture(retryResult);
        }

        @Override
        public CompletableFuture<Long> handOver()
        {
            handOverAsked.set();
            return handOver;
        }

        @Override
        public void close()
        {
            closed = true;
        }
    }

    private static final class FakeNode implements MoveNode
    {
        final BlockingQueue<FakeCopy> copies = new LinkedBlockingQueue<>();
        final BlockingQueue<long[]> frozen = new LinkedBlockingQueue<>();
        final List<Long> cancels = new CopyOnWriteArrayList<>();
        final AtomicInteger freezeFailures = new AtomicInteger();
        final AtomicInteger freezeCalls = new AtomicInteger();
        final AtomicInteger lagging = new AtomicInteger();
        final List<Long> fencedBelow = new CopyOnWriteArrayList<>();
        final BlockingQueue<long[]> reclaimed = new LinkedBlockingQueue<>();

        @Override
        public MoveCopy startCopy(final PartitionMove move)
        {
            final FakeCopy copy = new FakeCopy(move);
            copies.add(copy);
            return copy;
        }

        @Override
        public void freeze(final long segment, final long ticket)
        {
            freezeCalls.incrementAndGet();
            if (freezeFailures.getAndDecrement() > 0)
            {
                throw new IllegalStateException("backup 2 unreachable");
            }
            if (!cancels.isEmpty() && ticket < cancels.getLast())
            {
                throw new FreezeCancelledException("cancelled");
            }
            frozen.add(new long[] {segment, ticket});
        }

        @Override
        public void cancelFreezes(final long epoch)
        {
            cancels.add(epoch);
        }

        @Override
        public int sessionsBelow(final long epoch)
        {
            return lagging.get();
        }

        @Override
        public int fenceSessionsBelow(final long epoch, final String why)
        {
            fencedBelow.add(epoch);
            return lagging.getAndSet(0);
        }

        @Override
        public Reclaimed reclaim(final long segment, final boolean primary)
        {
            reclaimed.add(new long[] {segment, primary ? 1 : 0});
            return new Reclaimed(3, primary ? 2 : 0, primary ? 1 : 0, 0);
        }

        @Override
        public long graceNanos()
        {
            return TimeUnit.MILLISECONDS.toNanos(100);
        }
    }
}
