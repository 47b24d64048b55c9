package io.rdmakv.server.control;

import io.rdmakv.common.SpaceTiming;
import io.rdmakv.common.layout.BucketDescriptor;
import io.rdmakv.common.layout.KvBlockDescriptor;
import io.rdmakv.common.layout.RegionGeometry;
import io.rdmakv.common.protocol.AllocMessage;
import io.rdmakv.common.protocol.AllocOkMessage;
import io.rdmakv.common.protocol.ControlMessage;
import io.rdmakv.server.space.CpuIndexAtomics;
import io.rdmakv.server.space.DataAreaAllocator;
import io.rdmakv.server.space.IndexAtomics;
import io.rdmakv.server.space.IndexScanner;
import io.rdmakv.server.space.LiveBlockCheck;
import io.rdmakv.server.space.LockSweeper;
import io.rdmakv.server.space.LoopbackIndexAtomics;
import io.rdmakv.server.space.TestRegion;
import io.rdmakv.verbs.AccessFlags;
import io.rdmakv.verbs.CompletionQueue;
import io.rdmakv.verbs.Context;
import io.rdmakv.verbs.MemoryRegion;
import io.rdmakv.verbs.ProtectionDomain;
import io.rdmakv.verbs.Providers;
import io.rdmakv.verbs.VerbsConfig;
import io.rdmakv.verbs.WcStatus;
import org.agrona.CloseHelper;
import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A session's lease ending on the node's side, with the control agent driven by hand over a real {@code tcp}
 * queue pair pair, and the node's index registered as it is in kvserver, so the session's peer can CAS it.
 * Each test runs with the CPU's index atomics and with the loopback queue pair's (what kvserver picks on HCA
 * devices, forced here over tcp).
 */
class ControlAgentLeaseTest
{
    private static final RegionGeometry GEOMETRY = TestRegion.GEOMETRY;
    private static final long GRACE = TimeUnit.MILLISECONDS.toNanos(50);
    private static final long SESSION_ID = 4242;
    private static final long LOCKED_GROUP = 17;
    private static final long PROBE_GROUP = 3;

    private final CachedNanoClock clock = new CachedNanoClock();
    private final TestRegion region = new TestRegion();
    private final ServerCounters counters = new ServerCounters();
    private final DataAreaAllocator allocator = new DataAreaAllocator(GEOMETRY.dataLength(),
        KvBlockDescriptor.ALIGNMENT, GRACE, SpaceTiming.reclaimQuarantineNanos(GRACE));
    private final List<String> events = new ArrayList<>();
    private Context context;
    private ProtectionDomain pd;
    private CompletionQueue cq;
    private MemoryRegion index;
    private IndexAtomics atomics;
    private ControlAgent agent;
    private ServerSession session;
    private ControlPeer peer;

    private void connect(final String kind)
    {
        clock.update(TimeUnit.SECONDS.toNanos(1000));
        context = Providers.open(Providers.TCP, VerbsConfig.DEFAULT);
        pd = context.allocateProtectionDomain();
        cq = context.createCompletionQueue(256);
        index = pd.registerMemory(region.segment().asSlice(0, GEOMETRY.dataOffset()),
            AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ | AccessFlags.REMOTE_ATOMIC);
        atomics = "loopback".equals(kind) ? new LoopbackIndexAtomics(pd, region.segment(), index) :
            new CpuIndexAtomics(region.segment());
        agent = new ControlAgent(cq, allocator, new IndexScanner(new Probing(atomics), GEOMETRY),
            new LiveBlockCheck(region.segment(), GEOMETRY),
            new SlotRepair(region.segment(), GEOMETRY, atomics, GRACE, counters, clock),
            new DamageScan(region.segment(), GEOMETRY, atomics, counters), GEOMETRY, counters, clock,
            allocator.capacity());
        peer = new ControlPeer();
        session = AgentDriver.connect(agent, pd, cq, peer, SESSION_ID, "test peer");
    }

    @AfterEach
    void close()
    {
        if (agent != null)
        {
            agent.onClose();
        }
        CloseHelper.closeAll(peer, atomics, index, cq, pd, context, region);
    }

    private static long lockOffset(final long group)
    {
        return GEOMETRY.groupRegionOffset(group) + BucketDescriptor.INSERT_LOCK_OFFSET;
    }

    /** The peer's CAS on a word it may touch (the probe group's lock, 0 to 0): does the session still write? */
    private WcStatus probe()
    {
        return peer.compareAndSwap(index.address() + lockOffset(PROBE_GROUP), index.rkey(), 0, 0);
    }

    @ParameterizedTest
    @ValueSource(strings = {"cpu", "loopback"})
    void anExpiredLeaseIsFencedFirstThenItsLockReleasedAndItsSpaceReclaimed(final String kind)
    {
        connect(kind);
        final AllocOkMessage grant = assertInstanceOf(AllocOkMessage.class, request(new AllocMessage(1, 100)));
        assertEquals(WcStatus.SUCCESS, peer.compareAndSwap(index.address() + lockOffset(LOCKED_GROUP),
            index.rkey(), 0, SESSION_ID), "the client takes an insert lock");
        assertEquals(SESSION_ID, region.lock(LOCKED_GROUP));
        assertEquals(WcStatus.SUCCESS, probe(), "before expiry the session writes the index");
        assertTrue(agent.isLive(SESSION_ID));

        agent.lost(session, ServerCounter.LEASES_EXPIRED, "no heartbeat for 1000 ms (test)");
        agent.doWork();

        assertEquals(1, events.size(), "one lock released, one CAS: " + events);
        assertTrue(events.getFirst().startsWith("CAS " + lockOffset(LOCKED_GROUP) + " " + SESSION_ID + "->0 " +
            "while the peer's CAS got "), events.getFirst());
        assertNotEquals("while the peer's CAS got SUCCESS", events.getFirst().substring(events.getFirst()
            .indexOf("while")), "the session was fenced before its lock was released: " + events);
        assertEquals(0, region.lock(LOCKED_GROUP), "the lock is released");
        assertFalse(agent.isLive(SESSION_ID));
        assertEquals(1, counters.get(ServerCounter.LEASES_EXPIRED));
        assertEquals(1, counters.get(ServerCounter.LOCKS_RELEASED));
        assertEquals(1, counters.get(ServerCounter.SESSIONS_CLOSED));
        assertEquals(grant.chunkLength(), counters.get(ServerCounter.RECLAIMED_BYTES), "its whole grant comes back");
        assertEquals(List.of(), allocator.grantsOf(SESSION_ID));
        assertEquals(0, agent.sessionCount());

        agent.lost(session, ServerCounter.LEASES_EXPIRED, "again");
        agent.departed(session);
        agent.doWork();
        assertEquals(1, counters.get(ServerCounter.LEASES_EXPIRED), "a session ends once");
        assertEquals(1, counters.get(ServerCounter.SESSIONS_CLOSED));
    }

    @ParameterizedTest
    @ValueSource(strings = {"cpu", "loopback"})
    void theSweepClearsALockOfNoLiveSessionAndKeepsALiveSessionsLock(final String kind)
    {
        connect(kind);
        region.lock(LOCKED_GROUP, SESSION_ID);
        region.lock(LOCKED_GROUP + 1, 0xBAD_BAD_BADL);
        region.lock(GEOMETRY.groupCount() - 1, SESSION_ID + 1);
        try (LockSweeper sweeper = new LockSweeper(new IndexScanner(atomics, GEOMETRY), agent::isLive,
            agent::staleLocksCleared, TimeUnit.HOURS.toNanos(1)))
        {
            assertEquals(2, sweeper.sweep());
            assertEquals(SESSION_ID, region.lock(LOCKED_GROUP), "a live session's lock stays");
            assertEquals(0, region.lock(LOCKED_GROUP + 1), "a value no session has is cleared");
            assertEquals(0, region.lock(GEOMETRY.groupCount() - 1), "the last group is swept too");
            pumpUntil(() -> counters.get(ServerCounter.STALE_LOCKS_CLEARED) == 2, "the agent counts them");
            assertEquals(0, sweeper.sweep(), "nothing left to clear");
        }
        assertEquals(0, counters.get(ServerCounter.LOCKS_RELEASED), "not departures' locks");
    }

    private ControlMessage request(final ControlMessage message)
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

    /** Index atomics that, at each CAS, first ask whether the session's peer can still CAS the index. */
    private final class Probing implements IndexAtomics
    {
        private final IndexAtomics delegate;

        Probing(final IndexAtomics delegate)
        {
            this.delegate = delegate;
        }

        @Override
        public long compareAndSwap(final long regionOffset, final long expected, final long swap)
        {
            events.add("CAS " + regionOffset + " " + expected + "->" + swap + " while the peer's CAS got " + probe());
            return delegate.compareAndSwap(regionOffset, expected, swap);
        }

        @Override
        public long get(final long regionOffset)
        {
            return delegate.get(regionOffset);
        }

        @Override
        public void close()
        {
            delegate.close();
        }
    }
}
