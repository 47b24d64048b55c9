package io.rdmakv.server.control;

import io.rdmakv.common.SpaceTiming;
import io.rdmakv.common.layout.BucketDescriptor;
import io.rdmakv.common.layout.KvBlockDescriptor;
import io.rdmakv.common.layout.RegionGeometry;
import io.rdmakv.common.protocol.AllocMessage;
import io.rdmakv.common.protocol.AllocOkMessage;
import io.rdmakv.server.space.CpuIndexAtomics;
import io.rdmakv.server.space.DataAreaAllocator;
import io.rdmakv.server.space.IndexAtomics;
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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A new epoch applied on the control agent: sessions of older epochs fenced in one step, reclaimed with one
 * walk of the index for the lot, sessions of the new epoch left alone, a late registration under an old
 * epoch fenced, and the allocator rebuilt from the index when asked.
 */
class ControlAgentEpochTest
{
    private static final RegionGeometry GEOMETRY = TestRegion.GEOMETRY;
    private static final long GRACE = TimeUnit.MILLISECONDS.toNanos(50);
    private static final long GROUP0_LOCK = GEOMETRY.groupRegionOffset(0) + BucketDescriptor.INSERT_LOCK_OFFSET;

    private final CachedNanoClock clock = new CachedNanoClock();
    private final TestRegion region = new TestRegion();
    private final ServerCounters counters = new ServerCounters();
    private final DataAreaAllocator allocator = new DataAreaAllocator(GEOMETRY.dataLength(),
        KvBlockDescriptor.ALIGNMENT, GRACE, SpaceTiming.reclaimQuarantineNanos(GRACE));
    /** Reads of group 0's lock word: one per walk of the index. */
    private final AtomicInteger walks = new AtomicInteger();
    private final List<ControlPeer> peers = new ArrayList<>();
    private Context context;
    private ProtectionDomain pd;
    private CompletionQueue cq;
    private ControlAgent agent;

    @BeforeEach
    void start()
    {
        clock.update(TimeUnit.SECONDS.toNanos(1000));
        context = Providers.open(Providers.TCP, VerbsConfig.DEFAULT);
        pd = context.allocateProtectionDomain();
        cq = context.createCompletionQueue(256);
        final CpuIndexAtomics cpu = new CpuIndexAtomics(region.segment());
        final IndexAtomics counting = new IndexAtomics()
        {
            @Override
            public long compareAndSwap(final long regionOffset, final long expected, final long swap)
            {
                return cpu.compareAndSwap(regionOffset, expected, swap);
            }

            @Override
            public long get(final long regionOffset)
            {
                if (regionOffset == GROUP0_LOCK)
                {
                    walks.incrementAndGet();
                }
                return cpu.get(regionOffset);
            }

            @Override
            public void close()
            {
            }
        };
        agent = new ControlAgent(cq, allocator, new IndexScanner(counting, GEOMETRY),
            new LiveBlockCheck(region.segment(), GEOMETRY),
            new SlotRepair(region.segment(), GEOMETRY, cpu, GRACE, counters, clock),
            new DamageScan(region.segment(), GEOMETRY, cpu, counters), GEOMETRY, counters, clock,
            allocator.capacity());
    }

    @AfterEach
    void close()
    {
        agent.onClose();
        peers.forEach(CloseHelper::quietClose);
        CloseHelper.closeAll(cq, pd, context, region);
    }

    private ServerSession session(final long id, final long epoch)
    {
        final ControlPeer peer = new ControlPeer();
        peers.add(peer);
        // the epoch is recorded before registration, as SessionOpener does
        return AgentDriver.connectUnder(agent, pd, cq, peer, id, "peer " + id, epoch);
    }

    private int apply(final long epoch, final boolean rebuild)
    {
        final CompletableFuture<Integer> done = agent.applyEpoch(epoch, rebuild);
        AgentDriver.pumpUntil(agent, done::isDone, "epoch " + epoch + " applied");
        return done.join();
    }

    @Test
    void sessionsOfOlderEpochsAreFencedTogetherAndReclaimedWithOneWalk()
    {
        final List<ServerSession> old = new ArrayList<>();
        long granted = 0;
        for (int i = 0; i < 3; i++)
        {
            old.add(session(100 + i, 1));
            granted += assertInstanceOf(AllocOkMessage.class,
                AgentDriver.request(agent, peers.getLast(), new AllocMessage(i, 64))).chunkLength();
        }
        final ServerSession current = session(200, 2);
        region.lock(3, 101);
        walks.set(0);

        assertEquals(3, apply(2, false));

        assertEquals(1, walks.get(), "one walk of the index for three departures");
        assertEquals(3, counters.get(ServerCounter.SESSIONS_FENCED_BY_EPOCH));
        assertEquals(3, counters.get(ServerCounter.SESSIONS_CLOSED));
        assertEquals(1, counters.get(ServerCounter.LOCKS_RELEASED));
        assertEquals(0, region.lock(3));
        old.forEach(s -> assertFalse(agent.isLive(s.id())));
        assertTrue(agent.isLive(current.id()), "a session of the new epoch stays");
        assertEquals(granted, counters.get(ServerCounter.RECLAIMED_BYTES), "their unused grants");
    }

    @Test
    void aSessionRegisteredLateUnderAnOlderEpochIsFencedAtRegistration()
    {
        apply(3, false);
        final ServerSession late = session(300, 2);
        AgentDriver.pumpUntil(agent, () -> !agent.isLive(late.id()), "the late session fenced");
        assertEquals(1, counters.get(ServerCounter.SESSIONS_FENCED_BY_EPOCH));
        assertTrue(agent.isLive(session(301, 3).id()));
    }

    @Test
    void aRebuildFreesWhatNoSlotReferencesWithOneWalk()
    {
        session(100, 1);
        final AllocOkMessage ok = assertInstanceOf(AllocOkMessage.class,
            AgentDriver.request(agent, peers.getLast(), new AllocMessage(1, 64)));
        final byte[] key = TestRegion.key("kept");
        region.insert(key, ok.chunkOffset(), 10, TestRegion.group1(key), 0);
        region.lock(9, 777);
        walks.set(0);

        assertEquals(1, apply(2, true));

        assertEquals(1, walks.get(), "the rebuild's walk only: the fenced session has no scan of its own");
        assertEquals(0, region.lock(9), "every insert lock cleared");
        final int live = KvBlockDescriptor.blockLength(key.length, 10);
        assertEquals(GEOMETRY.dataLength() - KvBlockDescriptor.ALIGNMENT - live, allocator.freeBytes());
        assertEquals(0, allocator.graceBytes());
        assertEquals(DataAreaAllocator.NO_OWNER, allocator.ownerOf(ok.chunkOffset(), live));
    }
}
