package io.rdmakv.server.control;

import io.rdmakv.common.SpaceTiming;
import io.rdmakv.common.layout.KvBlockDescriptor;
import io.rdmakv.common.layout.RegionGeometry;
import io.rdmakv.common.protocol.AllocMessage;
import io.rdmakv.common.protocol.AllocOkMessage;
import io.rdmakv.server.space.CpuIndexAtomics;
import io.rdmakv.server.space.DataAreaAllocator;
import io.rdmakv.server.space.IndexScanner;
import io.rdmakv.server.space.LiveBlockCheck;
import io.rdmakv.server.space.TestRegion;
import io.rdmakv.verbs.CompletionQueue;
import io.rdmakv.verbs.Context;
import io.rdmakv.verbs.ProtectionDomain;
import io.rdmakv.verbs.Providers;
import io.rdmakv.verbs.VerbsConfig;
import io.rdmakv.verbs.WcOpcode;
import io.rdmakv.verbs.WcStatus;
import io.rdmakv.verbs.WorkCompletions;
import org.agrona.CloseHelper;
import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A completion left in the node's shared completion queue by a destroyed queue pair whose number the device gave to
 * a new session's queue pair (siw takes the lowest free number) is not that session's: the new session keeps
 * working. Issue 24: over siw such a leftover flush fenced fresh sessions, and their clients' first GET failed with
 * CONNECTION_LOST (or their connect request was rejected, the session having "ended" before it connected).
 */
class LeftoverCompletionTest
{
    private static final RegionGeometry GEOMETRY = TestRegion.GEOMETRY;
    private static final long GRACE = TimeUnit.MILLISECONDS.toNanos(50);
    private static final long GONE = 7001;
    private static final long FRESH = 7002;

    private final CachedNanoClock clock = new CachedNanoClock();
    private final TestRegion region = new TestRegion();
    private final ServerCounters counters = new ServerCounters();
    private final DataAreaAllocator allocator = new DataAreaAllocator(GEOMETRY.dataLength(),
        KvBlockDescriptor.ALIGNMENT, GRACE, SpaceTiming.reclaimQuarantineNanos(GRACE));
    private Context context;
    private ProtectionDomain pd;
    private CompletionQueue cq;
    private LeftoversFirst polled;
    private ControlAgent agent;
    private ControlPeer peer;

    /** The agent's completion queue, handing out the completions a test queued before the device's. */
    private static final class LeftoversFirst implements CompletionQueue
    {
        private final CompletionQueue device;
        private final ArrayDeque<long[]> queued = new ArrayDeque<>();

        LeftoversFirst(final CompletionQueue device)
        {
            this.device = device;
        }

        /** A completion to hand out at the next poll: {wrId, status, opcode, qpNum}. */
        void queue(final long wrId, final int status, final int opcode, final int qpNum)
        {
            queued.add(new long[] {wrId, status, opcode, qpNum});
        }

        @Override
        public Context context()
        {
            return device.context();
        }

        @Override
        public int capacity()
        {
            return device.capacity();
        }

        @Override
        public int poll(final WorkCompletions completions)
        {
            if (queued.isEmpty())
            {
                return device.poll(completions);
            }
            final long[] c = queued.poll();
            completions.at(0).fill(c[0], (int)c[1], (int)c[2], 0, (int)c[3]);
            return 1;
        }

        @Override
        public int await(final WorkCompletions completions, final long timeoutNanos)
        {
            return queued.isEmpty() ? device.await(completions, timeoutNanos) : poll(completions);
        }

        @Override
        public void close()
        {
        }
    }

    @BeforeEach
    void start()
    {
        clock.update(TimeUnit.SECONDS.toNanos(1000));
        context = Providers.open(Providers.TCP, VerbsConfig.DEFAULT);
        pd = context.allocateProtectionDomain();
        cq = context.createCompletionQueue(256);
        polled = new LeftoversFirst(cq);
        final CpuIndexAtomics atomics = new CpuIndexAtomics(region.segment());
        agent = new ControlAgent(polled, allocator, new IndexScanner(atomics, GEOMETRY),
            new LiveBlockCheck(region.segment(), GEOMETRY),
            new SlotRepair(region.segment(), GEOMETRY, atomics, GRACE, counters, clock),
            new DamageScan(region.segment(), GEOMETRY, atomics, counters), GEOMETRY, counters, clock,
            allocator.capacity());
        peer = new ControlPeer();
    }

    @AfterEach
    void close()
    {
        agent.onClose();
        CloseHelper.closeAll(peer, cq, pd, context, region);
    }

    @Test
    void aDestroyedQueuePairsFlushUnderAReusedNumberLeavesTheNewSessionAlone()
    {
        final ServerSession fresh = AgentDriver.connect(agent, pd, cq, peer, FRESH, "fresh peer");
        // what the gone session's receive buffer 3 left behind, under the number the fresh session's queue pair has
        polled.queue(SessionWrId.of(GONE, 3), WcStatus.WR_FLUSH_ERR.code(), WcOpcode.RECV, fresh.qp().qpNum());
        agent.doWork();
        agent.doWork();

        assertFalse(fresh.departed(), "a leftover of another queue pair fenced the fresh session");
        final AllocOkMessage ok = assertInstanceOf(AllocOkMessage.class,
            AgentDriver.request(agent, peer, new AllocMessage(1, 100)), "the fresh session still answers");
        assertEquals(1, ok.requestId());
        assertEquals(0, counters.get(ServerCounter.SESSIONS_CLOSED), "no session departed");
    }

    @Test
    void theSessionsOwnFailedCompletionStillFencesIt()
    {
        final ServerSession fresh = AgentDriver.connect(agent, pd, cq, peer, FRESH, "fresh peer");
        polled.queue(SessionWrId.of(FRESH, 3), WcStatus.WR_FLUSH_ERR.code(), WcOpcode.RECV, fresh.qp().qpNum());
        AgentDriver.pumpUntil(agent, fresh::departed, "the session's departure");
        assertTrue(fresh.departed());
    }
}
