package io.rdmakv.server.control;

import io.rdmakv.common.SpaceTiming;
import io.rdmakv.common.layout.KvBlockDescriptor;
import io.rdmakv.common.layout.RegionGeometry;
import io.rdmakv.common.protocol.AllocMessage;
import io.rdmakv.common.protocol.AllocOkMessage;
import io.rdmakv.common.protocol.ByeMessage;
import io.rdmakv.common.protocol.FenceWritersMessage;
import io.rdmakv.common.protocol.FenceWritersOkMessage;
import io.rdmakv.common.protocol.StatsMessage;
import io.rdmakv.common.protocol.StatsOkMessage;
import io.rdmakv.server.space.CpuIndexAtomics;
import io.rdmakv.server.space.DataAreaAllocator;
import io.rdmakv.server.space.Extent;
import io.rdmakv.server.space.IndexScanner;
import io.rdmakv.server.space.LiveBlockCheck;
import io.rdmakv.server.space.TestRegion;
import io.rdmakv.verbs.CompletionQueue;
import io.rdmakv.verbs.Context;
import io.rdmakv.verbs.ProtectionDomain;
import io.rdmakv.verbs.Providers;
import io.rdmakv.verbs.VerbsConfig;
import org.agrona.CloseHelper;
import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static io.rdmakv.server.space.TestRegion.key;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Departures on a primary with backups, the backups' sweep played by a fake {@link ChainSweeps.Sweeper}: a
 * departed session's space stays held (its insert locks do not) until the sweep hands the batch back to the agent,
 * a failed sweep is retried with the space still held, a node no longer primary reclaims without a sweep, and a
 * node with nothing to sweep (no backups, a session that held nothing) reclaims at once.
 */
class ChainSweepsTest
{
    private static final RegionGeometry GEOMETRY = TestRegion.GEOMETRY;
    private static final long CHUNK = GEOMETRY.chunkSize();
    private static final long GRACE = TimeUnit.MILLISECONDS.toNanos(50);
    private static final long SESSION_ID = 77;

    private final CachedNanoClock clock = new CachedNanoClock();
    private final TestRegion region = new TestRegion();
    private final ServerCounters counters = new ServerCounters();
    private final DataAreaAllocator allocator = new DataAreaAllocator(GEOMETRY.dataLength(),
        KvBlockDescriptor.ALIGNMENT, GRACE, SpaceTiming.reclaimQuarantineNanos(GRACE));
    private final FakeSweeper sweeper = new FakeSweeper();
    private Context context;
    private ProtectionDomain pd;
    private CompletionQueue cq;
    private ControlAgent agent;
    private ChainSweeps sweeps;
    private ServerSession session;
    private ControlPeer peer;

    /** Counts sweeps, hands back what it is told, blocks while {@link #hold} is set, fails while {@link #failures}. */
    private static final class FakeSweeper implements ChainSweeps.Sweeper
    {
        final AtomicBoolean needed = new AtomicBoolean(true);
        final AtomicInteger failures = new AtomicInteger();
        final List<List<Extent>> swept = new CopyOnWriteArrayList<>();
        final List<long[]> writers = new CopyOnWriteArrayList<>();
        final CountDownLatch started = new CountDownLatch(1);
        volatile CountDownLatch hold = new CountDownLatch(0);
        volatile ChainSweeps.Swept result = new ChainSweeps.Swept(1, 4096, 1, 0, 1000);

        @Override
        public boolean needed()
        {
            return needed.get();
        }

        @Override
        public ChainSweeps.Swept sweep(final List<Extent> departed, final long[] fenced)
        {
            swept.add(new ArrayList<>(departed));
            writers.add(fenced.clone());
            started.countDown();
            try
            {
                hold.await(10, TimeUnit.SECONDS);
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
            }
            if (failures.getAndDecrement() > 0)
            {
                throw new IllegalStateException("backup unreachable");
            }
            return needed.get() ? result : ChainSweeps.Swept.NOT_NEEDED;
        }

        @Override
        public void close()
        {
        }
    }

    @BeforeEach
    void connect()
    {
        clock.update(TimeUnit.SECONDS.toNanos(1000));
        context = Providers.open(Providers.TCP, VerbsConfig.DEFAULT);
        pd = context.allocateProtectionDomain();
        cq = context.createCompletionQueue(256);
        final CpuIndexAtomics atomics = new CpuIndexAtomics(region.segment());
        agent = new ControlAgent(cq, allocator, new IndexScanner(atomics, GEOMETRY),
            new LiveBlockCheck(region.segment(), GEOMETRY),
            new SlotRepair(region.segment(), GEOMETRY, atomics, GRACE, counters, clock),
            new DamageScan(region.segment(), GEOMETRY, atomics, counters), GEOMETRY, counters, clock,
            allocator.capacity());
        sweeps = new ChainSweeps(sweeper, agent::execute, counters);
        agent.useChainSweeps(sweeps);
        peer = new ControlPeer();
        session = AgentDriver.connect(agent, pd, cq, peer, SESSION_ID, "test peer");
    }

    @AfterEach
    void close()
    {
        sweeper.hold.countDown();
        sweeps.close();
        agent.onClose();
        CloseHelper.closeAll(peer, cq, pd, context, region);
    }

    /** ALLOCs a chunk, puts one referenced block in it and takes an insert lock; returns the grant. */
    private Extent holdSpace()
    {
        final AllocOkMessage ok = assertInstanceOf(AllocOkMessage.class,
            AgentDriver.request(agent, peer, new AllocMessage(1, 100)));
        final byte[] k = key("kept");
        region.insert(k, ok.chunkOffset() + 4096, 10, TestRegion.group1(k), 0);
        region.lock(9, SESSION_ID);
        return new Extent(ok.chunkOffset(), ok.chunkLength());
    }

    private long referencedBlock()
    {
        return KvBlockDescriptor.blockLength(key("kept").length, 10);
    }

    @Test
    void aDepartedSessionsSpaceIsHeldUntilTheBackupsAreSweptThenReclaimed() throws InterruptedException
    {
        final Extent grant = holdSpace();
        sweeper.hold = new CountDownLatch(1);

        peer.send(new ByeMessage(6));
        AgentDriver.pumpUntil(agent, () -> agent.sessionCount() == 0, "the session departs");
        assertTrue(sweeper.started.await(10, TimeUnit.SECONDS), "the sweep started");
        for (int i = 0; i < 20; i++)
        {
            agent.doWork();
        }
        assertEquals(List.of(List.of(grant)), sweeper.swept, "the sweep is for the departed session's grant");
        assertArrayEquals(new long[] {SESSION_ID}, sweeper.writers.getFirst(),
            "the backups fence the departed session's writer first");
        assertEquals(0, counters.get(ServerCounter.SESSIONS_CLOSED), "not reclaimed while the backups are swept");
        assertEquals(0, counters.get(ServerCounter.RECLAIMED_BYTES));
        assertTrue(allocator.isReleasable(grant.offset(), grant.length()), "the whole grant stays held");
        assertEquals(0, region.lock(9), "its insert lock is released at once");

        sweeper.hold.countDown();
        AgentDriver.pumpUntil(agent, () -> counters.get(ServerCounter.SESSIONS_CLOSED) == 1, "the reclaim");
        assertEquals(CHUNK - referencedBlock(), counters.get(ServerCounter.RECLAIMED_BYTES));
        assertEquals(1, counters.get(ServerCounter.LOCKS_RELEASED), "the lock released before the sweep, counted");
        assertEquals(1, counters.get(ServerCounter.CHAIN_SWEEPS));
        assertEquals(1, counters.get(ServerCounter.CHAIN_SWEEP_ROLLBACKS));
        assertEquals(1, sweeper.swept.size());
    }

    /**
     * On a backup: FENCE_WRITERS from the primary fences every session of the writers it names, except the asking
     * one, before it answers; other writers' sessions go on.
     */
    @Test
    void aBackupFencesEverySessionOfTheWritersItsPrimaryNames()
    {
        final List<ControlPeer> others = new ArrayList<>();
        try
        {
            final List<ServerSession> named = new ArrayList<>();
            for (int i = 0; i < 3; i++)
            {
                final ControlPeer other = new ControlPeer();
                others.add(other);
                final ServerSession s = AgentDriver.connectAs(agent, pd, cq, other, 81 + i, i < 2 ? 500 : 600,
                    "writer " + (i < 2 ? 500 : 600), 0);
                if (i < 2)
                {
                    named.add(s);
                }
            }
            assertEquals(4, agent.sessionCount());

            final FenceWritersOkMessage ok = assertInstanceOf(FenceWritersOkMessage.class, AgentDriver.request(agent,
                peer, new FenceWritersMessage(5, new long[] {500, SESSION_ID, 999})));
            assertEquals(2, ok.fenced(), "both sessions of writer 500; not the asking session, though it is named");
            assertTrue(named.stream().allMatch(ServerSession::departed), "fenced before the answer");
            assertEquals(2, agent.sessionCount());
            assertEquals(2, counters.get(ServerCounter.SESSIONS_FENCED_FOR_PRIMARY));
            assertInstanceOf(StatsOkMessage.class, AgentDriver.request(agent, others.get(2), new StatsMessage(6)),
                "writer 600 is served on");
        }
        finally
        {
            CloseHelper.closeAll(others);
        }
    }

    @Test
    void aFailedSweepIsRetriedWithTheSpaceStillHeld()
    {
        holdSpace();
        sweeper.failures.set(2);

        peer.send(new ByeMessage(6));
        AgentDriver.pumpUntil(agent, () -> counters.get(ServerCounter.CHAIN_SWEEP_FAILURES) == 1, "a failed sweep");
        assertEquals(0, counters.get(ServerCounter.SESSIONS_CLOSED), "held after a failure");
        AgentDriver.pumpUntil(agent, () -> counters.get(ServerCounter.SESSIONS_CLOSED) == 1, "the retried sweep");
        assertEquals(2, counters.get(ServerCounter.CHAIN_SWEEP_FAILURES));
        assertEquals(1, counters.get(ServerCounter.CHAIN_SWEEPS));
        assertEquals(3, sweeper.swept.size(), "two failed attempts and the one that worked");
        assertEquals(CHUNK - referencedBlock(), counters.get(ServerCounter.RECLAIMED_BYTES));
    }

    @Test
    void aNodeNoLongerPrimaryReclaimsWithoutASweep()
    {
        holdSpace();
        sweeper.failures.set(1);

        peer.send(new ByeMessage(6));
        AgentDriver.pumpUntil(agent, () -> counters.get(ServerCounter.CHAIN_SWEEP_FAILURES) == 1, "a failed sweep");
        sweeper.needed.set(false);
        AgentDriver.pumpUntil(agent, () -> counters.get(ServerCounter.SESSIONS_CLOSED) == 1, "the reclaim");
        assertEquals(1, counters.get(ServerCounter.CHAIN_SWEEPS_ABANDONED));
        assertEquals(0, counters.get(ServerCounter.CHAIN_SWEEPS));
        assertEquals(CHUNK - referencedBlock(), counters.get(ServerCounter.RECLAIMED_BYTES));
    }

    @Test
    void withoutBackupsOrWithoutSpaceADepartureIsReclaimedAtOnce()
    {
        peer.send(new ByeMessage(6));
        AgentDriver.pumpUntil(agent, () -> agent.sessionCount() == 0, "the session departs");
        assertEquals(1, counters.get(ServerCounter.SESSIONS_CLOSED), "it held nothing: nothing to sweep for");

        sweeper.needed.set(false);
        final ControlPeer second = new ControlPeer();
        try
        {
            session = AgentDriver.connect(agent, pd, cq, second, SESSION_ID + 1, "second peer");
            assertInstanceOf(AllocOkMessage.class, AgentDriver.request(agent, second, new AllocMessage(1, 100)));
            second.send(new ByeMessage(2));
            AgentDriver.pumpUntil(agent, () -> agent.sessionCount() == 0, "the second session departs");
            assertEquals(2, counters.get(ServerCounter.SESSIONS_CLOSED), "no backups: reclaimed in the same step");
            assertEquals(CHUNK, counters.get(ServerCounter.RECLAIMED_BYTES));
        }
        finally
        {
            second.close();
        }
        assertEquals(List.of(), sweeper.swept, "never swept");
        assertEquals(0, counters.get(ServerCounter.CHAIN_SWEEPS) + counters.get(ServerCounter.CHAIN_SWEEPS_ABANDONED));
    }

    /**
     * Work handed to the sweep thread (a partition freeze) runs there, never while a sweep is under way, and its
     * result or failure comes back in its future; once closed, a task fails at once.
     */
    @Test
    void aTaskOnTheSweepThreadWaitsForTheSweepUnderWayAndRunsThere() throws Exception
    {
        sweeper.hold = new CountDownLatch(1);
        sweeps.submit(Map.of(SESSION_ID, List.of(new Extent(0, CHUNK))), new long[] {9}, () -> { });
        assertTrue(sweeper.started.await(10, TimeUnit.SECONDS), "a sweep is under way");
        final CompletableFuture<String> task =
            sweeps.onSweepThread(() -> Thread.currentThread().getName());
        Thread.sleep(100);
        assertFalse(task.isDone(), "the task waits for the sweep");
        sweeper.hold.countDown();
        assertEquals("rdmakv-sweep", task.get(10, TimeUnit.SECONDS));
        final CompletableFuture<Object> failing = sweeps.onSweepThread(() ->
        {
            throw new IllegalStateException("cannot freeze");
        });
        assertInstanceOf(IllegalStateException.class, assertThrows(ExecutionException.class,
            () -> failing.get(10, TimeUnit.SECONDS)).getCause());
        assertEquals("rdmakv-sweep", sweeps.onSweepThread(() -> Thread.currentThread().getName())
            .get(10, TimeUnit.SECONDS), "the thread goes on after a failed task");
        sweeps.close();
        assertThrows(ExecutionException.class,
            () -> sweeps.onSweepThread(() -> 1).get(1, TimeUnit.SECONDS), "closed: fails at once");
    }
}
