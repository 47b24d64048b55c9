package io.rdmakv.server.control;

import io.rdmakv.common.SpaceTiming;
import io.rdmakv.common.layout.KvBlockDescriptor;
import io.rdmakv.common.layout.RegionGeometry;
import io.rdmakv.common.protocol.AllocMessage;
import io.rdmakv.common.protocol.AllocOkMessage;
import io.rdmakv.common.protocol.ByeMessage;
import io.rdmakv.common.protocol.CodedRefusalMessage;
import io.rdmakv.common.protocol.ControlCodec;
import io.rdmakv.common.protocol.ControlMessage;
import io.rdmakv.common.protocol.FreeMessage;
import io.rdmakv.common.protocol.ShutdownMessage;
import io.rdmakv.common.protocol.StatsMessage;
import io.rdmakv.common.protocol.StatsOkMessage;
import io.rdmakv.common.protocol.wire.MessageHeaderDescriptor;
import io.rdmakv.common.protocol.wire.MessageType;
import io.rdmakv.common.protocol.wire.ReasonCode;
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
import io.rdmakv.verbs.WcStatus;
import org.agrona.CloseHelper;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import static io.rdmakv.server.space.TestRegion.key;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The control agent driven by hand: one session over a real {@code tcp} queue pair pair, a plain region,
 * a clock the test moves. Each test SENDs requests, calls {@link ControlAgent#doWork()} until the answer
 * (or the counter) shows, and checks replies, counters and the allocator.
 */
class ControlAgentTest
{
    private static final RegionGeometry GEOMETRY = TestRegion.GEOMETRY;
    private static final long CHUNK = GEOMETRY.chunkSize();
    private static final long GRACE = TimeUnit.MILLISECONDS.toNanos(50);
    private static final long SESSION_ID = 4242;

    private final CachedNanoClock clock = new CachedNanoClock();
    private final TestRegion region = new TestRegion();
    private final ServerCounters counters = new ServerCounters();
    private final DataAreaAllocator allocator = new DataAreaAllocator(GEOMETRY.dataLength(),
        KvBlockDescriptor.ALIGNMENT, GRACE, SpaceTiming.reclaimQuarantineNanos(GRACE));
    private Context context;
    private ProtectionDomain pd;
    private CompletionQueue cq;
    private ControlAgent agent;
    private ServerSession session;
    private ControlPeer peer;

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
        peer = new ControlPeer();
        session = AgentDriver.connect(agent, pd, cq, peer, SESSION_ID, "test peer");
        assertEquals(1, counters.get(ServerCounter.SESSIONS_OPENED));
    }

    @AfterEach
    void close()
    {
        agent.onClose();
        CloseHelper.closeAll(peer, cq, pd, context, region);
    }

    @Test
    void allocGrantsAChunkAndPublishesTheSpaceLeft()
    {
        final AllocOkMessage ok = assertInstanceOf(AllocOkMessage.class, request(new AllocMessage(7, 100)));
        assertEquals(7, ok.requestId());
        assertEquals(KvBlockDescriptor.ALIGNMENT, ok.chunkOffset(), "the first unit is never granted");
        assertEquals(CHUNK, ok.chunkLength(), "a small ALLOC gets a whole chunk");
        assertEquals(List.of(new Extent(ok.chunkOffset(), CHUNK)), allocator.grantsOf(SESSION_ID));
        assertEquals(1, counters.get(ServerCounter.ALLOC_REQUESTS));
        assertEquals(1, counters.get(ServerCounter.GRANTED_EXTENTS));
        assertEquals(GEOMETRY.dataLength() - KvBlockDescriptor.ALIGNMENT - CHUNK,
            counters.get(ServerCounter.FREE_BYTES));
    }

    @Test
    void anAllocLargerThanTheDataAreaIsTooLarge()
    {
        final CodedRefusalMessage failed =
            CodedRefusalMessage.expect(MessageType.ALLOC_FAILED, request(new AllocMessage(8, GEOMETRY.dataLength() + 1)));
        assertEquals(ReasonCode.REQUEST_TOO_LARGE, failed.reason());
        assertEquals(8, failed.requestId());
        assertEquals(1, counters.get(ServerCounter.ALLOC_FAILURES));
        assertEquals(List.of(), allocator.grantsOf(SESSION_ID));
    }

    @Test
    void aFullDataAreaIsOutOfMemory()
    {
        ControlMessage reply;
        int grants = 0;
        while ((reply = request(new AllocMessage(grants, CHUNK))) instanceof AllocOkMessage)
        {
            grants++;
        }
        final CodedRefusalMessage failed = CodedRefusalMessage.expect(MessageType.ALLOC_FAILED, reply);
        assertEquals(ReasonCode.OUT_OF_MEMORY, failed.reason());
        assertTrue(failed.text().contains("data area full"), failed.text());
        assertEquals(GEOMETRY.chunkCount() - 1, grants, "the reserved first unit costs the last whole chunk");
        assertEquals(1, counters.get(ServerCounter.ALLOC_FAILURES));
    }

    @Test
    void statsReportTheRegionAsTheAllocatorAndTheIndexSeeIt()
    {
        request(new AllocMessage(1, 100));
        final byte[] k = key("k");
        region.insert(k, KvBlockDescriptor.ALIGNMENT, 10, TestRegion.group1(k), 0);
        final StatsOkMessage stats = assertInstanceOf(StatsOkMessage.class, request(new StatsMessage(9)));
        assertEquals(9, stats.requestId());
        assertEquals(GEOMETRY.dataLength(), stats.memoryTotal());
        assertEquals(KvBlockDescriptor.ALIGNMENT + CHUNK, stats.memoryUsed());
        assertEquals(allocator.freeBytes(), stats.memoryFree());
        assertEquals(1, stats.indexSlotsUsed());
        assertEquals(GEOMETRY.slotCount(), stats.indexSlotsTotal());
        assertEquals(1, stats.clients());
        assertEquals(1, stats.grants());
        assertEquals(1, counters.get(ServerCounter.STATS_REQUESTS));
    }

    @Test
    void aFreedBlockWaitsOutTheGracePeriodThenIsFree()
    {
        final AllocOkMessage ok = assertInstanceOf(AllocOkMessage.class, request(new AllocMessage(1, 100)));
        final long freeAfterGrant = counters.get(ServerCounter.FREE_BYTES);
        peer.send(new FreeMessage(2, new long[] {ok.chunkOffset()}, new int[] {128}));
        pumpUntil(() -> counters.get(ServerCounter.FREE_REQUESTS) == 1, "the FREE is handled");
        assertEquals(1, counters.get(ServerCounter.FREED_BLOCKS));
        assertEquals(128, allocator.graceBytes());
        assertEquals(0, counters.get(ServerCounter.GRACE_BYTES), "published at the next expiry window");

        clock.advance(ControlAgent.EXPIRY_INTERVAL_NANOS + 1);
        agent.doWork();
        assertEquals(128, counters.get(ServerCounter.GRACE_BYTES));
        assertEquals(1, counters.get(ServerCounter.GRACE_RANGES));
        assertEquals(freeAfterGrant, counters.get(ServerCounter.FREE_BYTES), "not grantable during the grace period");

        clock.advance(GRACE);
        agent.doWork();
        assertEquals(0, counters.get(ServerCounter.GRACE_BYTES));
        assertEquals(freeAfterGrant + 128, counters.get(ServerCounter.FREE_BYTES));
    }

    @Test
    void freesOfLiveBlocksAndOfSpaceNotGrantedAreRefused()
    {
        final AllocOkMessage ok = assertInstanceOf(AllocOkMessage.class, request(new AllocMessage(1, 100)));
        final byte[] k = key("live");
        region.insert(k, ok.chunkOffset(), 10, TestRegion.group2(k), 5);
        final long notGranted = ok.chunkOffset() + CHUNK;
        peer.send(new FreeMessage(2, new long[] {ok.chunkOffset(), notGranted, ok.chunkOffset() + 4096},
            new int[] {64, 64, 64}));
        pumpUntil(() -> counters.get(ServerCounter.FREE_REQUESTS) == 1, "the FREE is handled");
        assertEquals(2, counters.get(ServerCounter.REFUSED_FREES), "the live block and the range not granted");
        assertEquals(1, counters.get(ServerCounter.FREED_BLOCKS), "the dead unit");
        assertTrue(allocator.isReleasable(ok.chunkOffset(), 64), "the live block is still granted");
        assertFalse(allocator.overlapsFree(notGranted, 64));
    }

    @Test
    void aMalformedMessageIsAnsweredAndCountedAndTheSessionGoesOn()
    {
        final byte[] bytes = ControlCodec.toBytes(new StatsMessage(3));
        bytes[MessageHeaderDescriptor.TYPE_OFFSET] = 0x77; // no such type
        bytes[MessageHeaderDescriptor.TYPE_OFFSET + 1] = 0x77;
        peer.send(bytes);
        final CodedRefusalMessage error = CodedRefusalMessage.expect(MessageType.ERROR, awaitReply());
        assertEquals(ReasonCode.MALFORMED_MESSAGE, error.reason());
        assertEquals(1, counters.get(ServerCounter.MALFORMED_MESSAGES));
        assertInstanceOf(StatsOkMessage.class, request(new StatsMessage(4)), "the receive buffer was reposted");
        assertEquals(1, agent.sessionCount());
    }

    @Test
    void aReplyTypeSentAsARequestIsUnexpected()
    {
        final CodedRefusalMessage error = CodedRefusalMessage.expect(MessageType.ERROR, request(new AllocOkMessage(5, 64, 64, 0)));
        assertEquals(ReasonCode.UNEXPECTED_MESSAGE, error.reason());
        assertEquals(5, error.requestId());
        assertEquals(1, counters.get(ServerCounter.MALFORMED_MESSAGES));
    }

    @Test
    void byeDepartsReclaimsWhatNoSlotReferencesAndReleasesTheSessionsLocks()
    {
        final AllocOkMessage ok = assertInstanceOf(AllocOkMessage.class, request(new AllocMessage(1, 100)));
        final byte[] k = key("kept");
        region.insert(k, ok.chunkOffset() + 4096, 10, TestRegion.group1(k), 0);
        final int blockLength = KvBlockDescriptor.blockLength(k.length, 10);
        region.lock(9, SESSION_ID);
        region.lock(10, SESSION_ID + 1);

        peer.send(new ByeMessage(6));
        pumpUntil(() -> agent.sessionCount() == 0, "the session departs");

        assertTrue(session.departed());
        assertEquals(1, counters.get(ServerCounter.BYE_REQUESTS));
        assertEquals(1, counters.get(ServerCounter.SESSIONS_CLOSED));
        assertEquals(CHUNK - blockLength, counters.get(ServerCounter.RECLAIMED_BYTES));
        assertEquals(CHUNK - blockLength, counters.get(ServerCounter.GRACE_BYTES), "quarantined, published at once");
        assertEquals(1, counters.get(ServerCounter.LOCKS_RELEASED));
        assertEquals(0, region.lock(9));
        assertEquals(SESSION_ID + 1, region.lock(10));
        assertTrue(allocator.isReleasable(ok.chunkOffset() + 4096, blockLength), "the referenced block stays granted");
    }

    @Test
    void aClosedBootstrapConnectionDepartsTheSession()
    {
        agent.departed(session);
        agent.doWork();
        assertEquals(0, agent.sessionCount());
        assertEquals(1, counters.get(ServerCounter.SESSIONS_CLOSED));
        assertEquals(0, counters.get(ServerCounter.BYE_REQUESTS));
    }

    @Test
    void aFailedQueuePairIsCountedByStatusAndDeparts()
    {
        session.qp().modifyToError();
        pumpUntil(() -> agent.sessionCount() == 0, "the session departs");
        assertEquals(1, counters.get(ServerCounter.COMPLETION_ERRORS), "later flushes belong to no session");
        assertEquals(1, counters.completionErrors(WcStatus.WR_FLUSH_ERR.code()));
        assertEquals(1, counters.get(ServerCounter.SESSIONS_CLOSED));
    }

    @Test
    void shutdownIsAnnouncedToEverySession()
    {
        agent.execute(agent::announceShutdown);
        assertInstanceOf(ShutdownMessage.class, awaitReply());
    }

    @Test
    void closingDepartsEverySessionOnce()
    {
        agent.onClose();
        assertTrue(agent.isClosed());
        assertTrue(session.departed());
        assertEquals(0, agent.sessionCount());
        agent.onClose();
        assertEquals(1, counters.get(ServerCounter.SESSIONS_CLOSED));
    }

    @Test
    void onItsRunnerTheAgentCountsAnExceptionAndKeepsServing()
    {
        final AgentRunner runner = new AgentRunner(agent.idleStrategy(),
            new CountingErrorHandler(counters, ServerCounter.AGENT_ERRORS, "control agent"), null, agent);
        final Thread thread = AgentRunner.startOnThread(runner);
        try
        {
            assertEquals(ControlAgent.ROLE_NAME, thread.getName());
            agent.execute(() ->
            {
                throw new IllegalStateException("a bug in one request");
            });
            await(() -> counters.get(ServerCounter.AGENT_ERRORS) == 1, "the error is counted");
            peer.send(new StatsMessage(11));
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            ControlMessage reply;
            while ((reply = peer.poll()) == null && System.nanoTime() < deadline)
            {
                Thread.yield();
            }
            assertInstanceOf(StatsOkMessage.class, reply, "the agent still serves");
        }
        finally
        {
            runner.close();
        }
        assertFalse(thread.isAlive());
        assertTrue(agent.isClosed(), "the runner closed the agent on its thread");
        assertEquals(1, counters.get(ServerCounter.SESSIONS_CLOSED));
        assertEquals(1, counters.get(ServerCounter.AGENT_ERRORS), "nothing else went wrong");
    }

    @Test
    void aSleepingAgentServesTheRequestThatWokeIt() throws InterruptedException
    {
        final Thread sender = Thread.ofPlatform().start(() ->
        {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
            peer.send(new StatsMessage(31));
        });
        // nothing waits: the agent blocks on its queue until the STATS arrives (or MAX_SLEEP_NANOS passed)
        ControlMessage reply = null;
        for (int sleeps = 0; reply == null && sleeps < 1000; sleeps++)
        {
            agent.sleep();
            agent.doWork();
            reply = peer.poll();
        }
        sender.join();
        assertEquals(31, assertInstanceOf(StatsOkMessage.class, reply).requestId(),
            "the completion the sleep took is served by the next duty cycle, not lost");
    }

    @Test
    void sleepReturnsAtOnceWhileCommandsWait()
    {
        final int[] ran = new int[1];
        agent.execute(() -> ran[0]++);
        agent.sleep();
        agent.doWork();
        assertEquals(1, ran[0]);
    }

    private ControlMessage request(final ControlMessage message)
    {
        peer.send(message);
        return awaitReply();
    }

    private ControlMessage awaitReply()
    {
        final ControlMessage[] reply = new ControlMessage[1];
        pumpUntil(() -> (reply[0] = peer.poll()) != null, "a reply");
        return reply[0];
    }

    private void pumpUntil(final BooleanSupplier done, final String what)
    {
        AgentDriver.pumpUntil(agent, done, what);
    }

    private static void await(final BooleanSupplier done, final String what)
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!done.getAsBoolean())
        {
            if (System.nanoTime() > deadline)
            {
                fail("timed out waiting for " + what);
            }
            Thread.yield();
        }
    }
}
