package io.rdmakv.server.control;

import io.rdmakv.common.SpaceTiming;
import io.rdmakv.common.layout.KvBlockDescriptor;
import io.rdmakv.common.layout.RegionGeometry;
import io.rdmakv.common.protocol.AllocMessage;
import io.rdmakv.common.protocol.AllocOkMessage;
import io.rdmakv.common.protocol.CodedRefusalMessage;
import io.rdmakv.common.protocol.ControlMessage;
import io.rdmakv.common.protocol.FreeMessage;
import io.rdmakv.common.protocol.StatsMessage;
import io.rdmakv.common.protocol.StatsOkMessage;
import io.rdmakv.common.protocol.wire.MessageType;
import io.rdmakv.common.protocol.wire.ReasonCode;
import io.rdmakv.server.space.CpuIndexAtomics;
import io.rdmakv.server.space.DataAreaAllocator;
import io.rdmakv.server.space.Extent;
import io.rdmakv.server.space.IndexCensus;
import io.rdmakv.server.space.IndexScanner;
import io.rdmakv.server.space.LiveBlockCheck;
import io.rdmakv.server.space.TestRegion;
import io.rdmakv.verbs.CompletionQueue;
import io.rdmakv.verbs.Context;
import io.rdmakv.verbs.MemoryRegion;
import io.rdmakv.verbs.ProtectionDomain;
import io.rdmakv.verbs.Providers;
import io.rdmakv.verbs.VerbsConfig;
import org.agrona.CloseHelper;
import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static io.rdmakv.server.space.TestRegion.key;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The space rules on the control agent driven by hand, with several sessions over real
 * {@code tcp} queue pairs: FREE only of the sender's own grants (or one dead block of another's, outside
 * its latest extent), never of any part of a live block; the session quota and the grant cap; FREE and
 * STATS work bounded per duty cycle.
 */
class SpaceRulesTest
{
    private static final RegionGeometry GEOMETRY = TestRegion.GEOMETRY;
    private static final long CHUNK = GEOMETRY.chunkSize();
    private static final long GRACE = TimeUnit.MILLISECONDS.toNanos(50);
    private static final int UNIT = KvBlockDescriptor.ALIGNMENT;

    private final CachedNanoClock clock = new CachedNanoClock();
    private final TestRegion region = new TestRegion();
    private final ServerCounters counters = new ServerCounters();
    private final DataAreaAllocator allocator = new DataAreaAllocator(GEOMETRY.dataLength(),
        KvBlockDescriptor.ALIGNMENT, GRACE, SpaceTiming.reclaimQuarantineNanos(GRACE));
    private final LiveBlockCheck liveBlocks = new LiveBlockCheck(region.segment(), GEOMETRY);
    private final List<ControlPeer> peers = new ArrayList<>();
    private final Context context = Providers.open(Providers.TCP, VerbsConfig.DEFAULT);
    private final ProtectionDomain pd = context.allocateProtectionDomain();
    private final CompletionQueue cq = context.createCompletionQueue(256);
    private ControlAgent agent;
    private MemoryRegion dataArea;

    @AfterEach
    void close()
    {
        if (agent != null)
        {
            agent.onClose();
        }
        peers.forEach(ControlPeer::close);
        CloseHelper.closeAll(dataArea, cq, pd, context, region);
    }

    private void start(final long quota)
    {
        clock.update(TimeUnit.SECONDS.toNanos(1000));
        final CpuIndexAtomics atomics = new CpuIndexAtomics(region.segment());
        agent = new ControlAgent(cq, allocator, new IndexScanner(atomics, GEOMETRY), liveBlocks,
            new SlotRepair(region.segment(), GEOMETRY, atomics, GRACE, counters, clock),
            new DamageScan(region.segment(), GEOMETRY, atomics, counters), GEOMETRY, counters, clock, quota);
    }

    /** As {@link #start}, with each grant written through a memory window ({@link GrantWindows}). */
    private void startWithWindows(final long quota)
    {
        clock.update(TimeUnit.SECONDS.toNanos(1000));
        final CpuIndexAtomics atomics = new CpuIndexAtomics(region.segment());
        dataArea = pd.registerMemory(region.segment().asSlice(GEOMETRY.dataOffset(), GEOMETRY.dataLength()),
            GrantWindows.DATA_AREA_ACCESS);
        agent = new ControlAgent(cq, allocator, new IndexScanner(atomics, GEOMETRY), liveBlocks,
            new SlotRepair(region.segment(), GEOMETRY, atomics, GRACE, counters, clock),
            new DamageScan(region.segment(), GEOMETRY, atomics, counters), GEOMETRY, counters, clock, quota,
            new GrantWindows(pd, dataArea, true, counters));
    }

    /** Opens session {@code id}; its peer is {@code peers.get(n)} for the n-th session opened. */
    private ControlPeer open(final long id)
    {
        final ControlPeer peer = new ControlPeer();
        final ServerSession session = AgentDriver.connect(agent, pd, cq, peer, id, "peer " + id);
        peers.add(peer);
        return peer;
    }

    @Test
    void aFreeOfAnotherSessionsExtentTailIsRefusedAndCountedAndTheOwnersSpaceIsUntouched()
    {
        start(allocator.capacity());
        final ControlPeer owner = open(1);
        final ControlPeer rogue = open(2);
        final AllocOkMessage grant = alloc(owner, 100);
        alloc(rogue, 100);
        final List<Extent> before = allocator.grantsOf(1);
        final long tail = grant.chunkOffset() + 4096;
        free(rogue, new long[] {tail, grant.chunkOffset()}, new int[] {(int)(grant.chunkOffset() + CHUNK - tail),
            2 * UNIT});

        assertEquals(2, counters.get(ServerCounter.FREES_REFUSED_FOREIGN), "the tail, and two units of it");
        assertEquals(2, counters.get(ServerCounter.REFUSED_FREES));
        assertEquals(0, counters.get(ServerCounter.FREED_BLOCKS));
        assertEquals(before, allocator.grantsOf(1), "the owner holds all it held");
        assertEquals(CHUNK, allocator.heldBy(1));

        free(owner, new long[] {tail}, new int[] {(int)(grant.chunkOffset() + CHUNK - tail)});
        assertEquals(1, counters.get(ServerCounter.FREED_BLOCKS), "the owner itself may give its tail back");
        assertEquals(4096, allocator.heldBy(1));
    }

    @Test
    void aDeadBlockOfAnotherSessionIsFreedOnlyOnceItIsOutsideItsWritersLatestExtent()
    {
        start(allocator.capacity());
        final ControlPeer writer = open(1);
        final ControlPeer superseder = open(2);
        final AllocOkMessage first = alloc(writer, 100);
        final int length = region.writeBlock(first.chunkOffset(), key("k"), 500);
        final int other = region.writeBlock(first.chunkOffset() + length, key("k2"), 500);
        free(superseder, new long[] {first.chunkOffset()}, new int[] {length});
        assertEquals(1, counters.get(ServerCounter.FREES_DEFERRED), "the writer may still commit it: held");
        assertEquals(0, counters.get(ServerCounter.FREED_BLOCKS));
        assertEquals(CHUNK, allocator.heldBy(1));

        alloc(writer, 100); // the writer moved on: nothing of its first extent is in flight any more
        pumpUntil(() -> counters.get(ServerCounter.FREED_BLOCKS) == 1, "the held FREE is applied");
        assertEquals(2 * CHUNK - length, allocator.heldBy(1), "credited to the writer's quota");
        free(superseder, new long[] {first.chunkOffset() + length + UNIT, first.chunkOffset() + length},
            new int[] {other, other});
        assertEquals(2, counters.get(ServerCounter.FREED_BLOCKS), "a dead block of an old extent: at once");
        assertEquals(1, counters.get(ServerCounter.FREES_REFUSED_FOREIGN), "bytes that are not one block");
        assertEquals(2, counters.get(ServerCounter.FREE_REQUESTS), "the held entries were no new request");
    }

    @Test
    void withWindowsAnOwnersFreeInsideItsLatestExtentWaitsUntilItsWindowIsGone()
    {
        startWithWindows(allocator.capacity());
        final ControlPeer owner = open(1);
        final AllocOkMessage first = alloc(owner, 100);
        assertTrue(first.writeRkey() != dataArea.rkey(), "the grant is written through a window");
        assertEquals(1, counters.get(ServerCounter.MEMORY_WINDOWS_BOUND));
        final int length = region.writeBlock(first.chunkOffset(), key("k"), 500);
        free(owner, new long[] {first.chunkOffset()}, new int[] {length});
        assertEquals(1, counters.get(ServerCounter.FREES_DEFERRED), "still writable through its window: held");
        assertEquals(0, counters.get(ServerCounter.FREED_BLOCKS));
        assertTrue(!allocator.overlapsFree(first.chunkOffset(), length), "not grantable to anyone");

        final AllocOkMessage second = alloc(owner, 100);
        assertTrue(second.writeRkey() != first.writeRkey());
        assertEquals(1, counters.get(ServerCounter.MEMORY_WINDOWS_BOUND), "the first window was deallocated");
        assertEquals(2, counters.get(ServerCounter.MEMORY_WINDOW_BINDS));
        pumpUntil(() -> counters.get(ServerCounter.FREED_BLOCKS) == 1, "the held FREE is applied");
        assertTrue(allocator.overlapsFree(first.chunkOffset(), length), "waiting out the grace period");

        final StatsOkMessage stats = assertInstanceOf(StatsOkMessage.class, request(owner, new StatsMessage(9)));
        assertEquals(1, stats.writeWindows());
    }

    @Test
    void withWindowsADepartedSessionsWindowIsRevokedAndItsHeldFreesForgotten()
    {
        startWithWindows(allocator.capacity());
        final ControlPeer owner = open(1);
        final AllocOkMessage grant = alloc(owner, 100);
        final int length = region.writeBlock(grant.chunkOffset(), key("k"), 500);
        free(owner, new long[] {grant.chunkOffset()}, new int[] {length});
        assertEquals(1, counters.get(ServerCounter.FREES_DEFERRED));
        owner.send(new io.rdmakv.common.protocol.ByeMessage(5));
        pumpUntil(() -> counters.get(ServerCounter.SESSIONS_CLOSED) == 1, "the session departs");
        assertEquals(1, counters.get(ServerCounter.MEMORY_WINDOW_REVOCATIONS));
        assertEquals(0, counters.get(ServerCounter.MEMORY_WINDOWS_BOUND));
        assertEquals(0, allocator.heldBy(1), "the reclaim took the whole grant");
    }

    @Test
    void aFreeOfALiveBlocksTailIsRefusedEvenByItsOwner()
    {
        start(allocator.capacity());
        final ControlPeer owner = open(1);
        final AllocOkMessage grant = alloc(owner, 100);
        final byte[] k = key("live");
        region.insert(k, grant.chunkOffset(), 500, TestRegion.group1(k), 3);
        final int length = KvBlockDescriptor.blockLength(k.length, 500);
        free(owner, new long[] {grant.chunkOffset() + UNIT, grant.chunkOffset() + length - UNIT},
            new int[] {length - UNIT, 2 * UNIT});
        assertEquals(2, counters.get(ServerCounter.FREES_REFUSED_LIVE));
        assertEquals(0, counters.get(ServerCounter.FREED_BLOCKS));
        assertEquals(CHUNK, allocator.heldBy(1));
    }

    @Test
    void anAllocBeyondTheQuotaFailsWithTheQuotaReasonWhileOthersStillGetSpace()
    {
        start(CHUNK + CHUNK / 2);
        final ControlPeer greedy = open(1);
        final ControlPeer other = open(2);
        assertEquals(CHUNK, alloc(greedy, 100).chunkLength());
        assertEquals(CHUNK / 2, alloc(greedy, 100).chunkLength(), "capped at the quota left");
        final CodedRefusalMessage refused = CodedRefusalMessage.expect(MessageType.ALLOC_FAILED, request(greedy,
            new AllocMessage(3, 64)));
        assertEquals(ReasonCode.QUOTA_EXCEEDED, refused.reason());
        assertTrue(refused.text().startsWith("session quota of " + (CHUNK + CHUNK / 2) + " bytes"), refused.text());
        assertEquals(1, counters.get(ServerCounter.ALLOCS_REFUSED_QUOTA));
        assertEquals(1, counters.get(ServerCounter.ALLOC_FAILURES));
        assertEquals(CHUNK, alloc(other, 100).chunkLength(), "another session is not held back");
    }

    @Test
    void aSmallAllocNeverTakesTheWholeDataArea()
    {
        final long capacity = 4L * CHUNK;
        final DataAreaAllocator small = new DataAreaAllocator(capacity, UNIT, GRACE);
        final RegionGeometry geometry = RegionGeometry.forMemory(RegionGeometry.minimumMemory((int)capacity) + capacity,
            (int)capacity);
        final SpaceRequests space = new SpaceRequests(small, counters, geometry, capacity,
            new IndexCensus(new IndexScanner(new CpuIndexAtomics(region.segment()), GEOMETRY), 0));
        final AllocOkMessage ok = assertInstanceOf(AllocOkMessage.class, space.allocate(1, new AllocMessage(1, 32), 0, 0));
        assertEquals(capacity / 2, ok.chunkLength(), "a chunk as large as the data area is cut to half of it");
        final AllocOkMessage big = assertInstanceOf(AllocOkMessage.class,
            space.allocate(2, new AllocMessage(2, capacity / 2 - UNIT), 0, 0));
        assertEquals(capacity / 2 - UNIT, big.chunkLength(), "what was asked for, when the quota allows it");
    }

    @Test
    void aFreeOf339HugeRangesIsCheckedABoundedAmountPerDutyCycleAndOthersAreServedMeanwhile()
    {
        start(allocator.capacity());
        final ControlPeer flooder = open(1);
        final ControlPeer other = open(2);
        final AllocOkMessage grant = alloc(flooder, 100);
        final byte[] k = key("at-the-end");
        final int blockLength = KvBlockDescriptor.blockLength(k.length, 10);
        region.insert(k, grant.chunkOffset() + CHUNK - blockLength, 10, TestRegion.group1(k), 0);
        final long[] offsets = new long[FreeMessage.MAX_ENTRIES];
        final int[] lengths = new int[FreeMessage.MAX_ENTRIES];
        Arrays.fill(offsets, grant.chunkOffset());
        Arrays.fill(lengths, (int)CHUNK); // each its whole extent, live block found only at the very end
        offsets[0] = 1L << 40;
        lengths[0] = Integer.MAX_VALUE & -UNIT; // and one huge range never granted
        flooder.send(new FreeMessage(9, offsets, lengths));
        other.send(new AllocMessage(10, 100));

        ControlMessage otherReply = null;
        int cycles = 0;
        long maxUnits = 0;
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (counters.get(ServerCounter.FREE_REQUESTS) == 0)
        {
            final long units = liveBlocks.unitsExamined();
            agent.doWork();
            maxUnits = Math.max(maxUnits, liveBlocks.unitsExamined() - units);
            cycles++;
            if (otherReply == null && (otherReply = other.poll()) != null)
            {
                assertTrue(counters.get(ServerCounter.FREE_REQUESTS) == 0, "served while the FREE is in progress");
            }
            if (System.nanoTime() > deadline)
            {
                fail("the FREE was never finished");
            }
        }
        assertTrue(maxUnits <= ControlAgent.FREE_UNITS_PER_CYCLE, maxUnits + " units in one duty cycle");
        assertTrue(cycles > 300, "the work was spread over " + cycles + " cycles");
        assertInstanceOf(AllocOkMessage.class, otherReply);
        assertEquals(1, counters.get(ServerCounter.FREES_REFUSED_NOT_GRANTED));
        assertEquals(FreeMessage.MAX_ENTRIES - 1, counters.get(ServerCounter.FREES_REFUSED_LIVE));
        assertEquals(counters.get(ServerCounter.FREE_UNITS_EXAMINED), liveBlocks.unitsExamined() + 1 +
            FreeMessage.MAX_ENTRIES - 1, "one unit to admit each entry, the rest reading headers");
    }

    @Test
    void statsAreServedFromACensusTakenAtMostOncePerPeriodNotAScanPerRequest()
    {
        start(allocator.capacity());
        final ControlPeer peer = open(1);
        final byte[] k = key("counted");
        region.insert(k, 4096, 10, TestRegion.group1(k), 0);
        for (int i = 0; i < 20; i++)
        {
            final StatsOkMessage stats = assertInstanceOf(StatsOkMessage.class, request(peer, new StatsMessage(i)));
            assertEquals(1, stats.indexSlotsUsed());
        }
        assertEquals(1, counters.get(ServerCounter.INDEX_CENSUS_PASSES), "one census for twenty requests");
        assertEquals(20, counters.get(ServerCounter.STATS_REQUESTS));

        final byte[] k2 = key("later");
        region.insert(k2, 8192, 10, TestRegion.group1(k2), 1);
        assertEquals(1, assertInstanceOf(StatsOkMessage.class, request(peer, new StatsMessage(21))).indexSlotsUsed(),
            "within the period the count may be that old");
        clock.advance(ControlAgent.STATS_MAX_AGE_NANOS);
        assertEquals(2, assertInstanceOf(StatsOkMessage.class, request(peer, new StatsMessage(22))).indexSlotsUsed());
        assertEquals(2, counters.get(ServerCounter.INDEX_CENSUS_PASSES));
    }

    @Test
    void aSessionsRequestsAreServedInOrder()
    {
        start(allocator.capacity());
        final ControlPeer peer = open(1);
        final AllocOkMessage grant = alloc(peer, 100);
        peer.send(new FreeMessage(2, new long[] {grant.chunkOffset()}, new int[] {(int)CHUNK}));
        final StatsOkMessage stats = assertInstanceOf(StatsOkMessage.class, request(peer, new StatsMessage(3)));
        assertEquals(1, counters.get(ServerCounter.FREED_BLOCKS), "the FREE sent first was applied first");
        assertEquals(0, allocator.heldBy(1));
        assertNull(peer.poll());
        assertEquals(GEOMETRY.dataLength(), stats.memoryTotal());
    }

    private AllocOkMessage alloc(final ControlPeer peer, final long bytes)
    {
        return assertInstanceOf(AllocOkMessage.class, request(peer, new AllocMessage(1, bytes)));
    }

    /** Sends a FREE and runs duty cycles until the agent has finished it. */
    private void free(final ControlPeer peer, final long[] offsets, final int[] lengths)
    {
        final long done = counters.get(ServerCounter.FREE_REQUESTS) + 1;
        peer.send(new FreeMessage(5, offsets, lengths));
        pumpUntil(() -> counters.get(ServerCounter.FREE_REQUESTS) == done, "the FREE is finished");
    }

    private ControlMessage request(final ControlPeer peer, final ControlMessage message)
    {
        peer.send(message);
        final ControlMessage[] reply = new ControlMessage[1];
        pumpUntil(() -> (reply[0] = peer.poll()) != null, "a reply");
        return reply[0];
    }

    private void pumpUntil(final BooleanSupplier done, final String what)
    {
        AgentDriver.pumpUntil(agent, done, what);
    }
}
