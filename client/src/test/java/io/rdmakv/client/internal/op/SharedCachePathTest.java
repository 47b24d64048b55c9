package io.rdmakv.client.internal.op;

import io.rdmakv.client.internal.lane.ClientCounter;
import io.rdmakv.peer.Status;
import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.rdmakv.client.internal.op.Doorbells.CAS_SLOT;
import static io.rdmakv.client.internal.op.Doorbells.READ_BLOCK;
import static io.rdmakv.client.internal.op.Doorbells.READ_GROUPS;
import static io.rdmakv.client.internal.op.Doorbells.READ_SLOT_BLOCK;
import static io.rdmakv.client.internal.op.Doorbells.WRITE_CAS_SLOT;
import static io.rdmakv.client.internal.op.Doorbells.WRITE_READ_SLOT_BLOCK;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * Two lanes of one client (sessions 7 and 8) share its slot cache; a third lane is another client with a
 * cache of its own. What one lane learns serves the other, in round trips per operation type.
 */
class SharedCachePathTest
{
    private final CachedNanoClock clock = new CachedNanoClock();
    private final NodeRegion node = new NodeRegion();
    private final SlotCache shared = new SlotCache(1 << 10, clock.nanoTime());
    private final TestLane first = new TestLane(node, clock, 7, shared);
    private final TestLane second = new TestLane(node, clock, 8, shared);
    private final TestLane stranger = new TestLane(node, clock, 9);

    @AfterEach
    void close()
    {
        first.close();
        second.close();
        stranger.close();
        node.close();
    }

    @Test
    void aKeyOneLaneWroteIsReadByTheOtherInOneRoundTrip()
    {
        assertEquals(Status.OK, first.put("k", "v1"));

        final int mark = second.mark();
        assertEquals(Status.OK, second.get("k"));

        assertEquals(List.of(READ_SLOT_BLOCK), second.doorbellsSince(mark));
        assertEquals("v1", second.value());
        assertEquals(1, second.count(ClientCounter.CACHE_HITS));
        assertEquals(0, second.count(ClientCounter.CACHE_MISSES));
        assertEquals(1, second.count(ClientCounter.GET_ROUND_TRIPS));
    }

    @Test
    void theOtherLaneUpdatesAFreshEntryInOneRoundTripAndAnOlderOneInTwo()
    {
        assertEquals(Status.OK, second.put("warm-up", "x"));
        assertEquals(Status.OK, first.put("k", "v1"));
        clock.advance(TestLane.TRUST_NANOS - 1);

        long trips = second.count(ClientCounter.PUT_ROUND_TRIPS);
        int mark = second.mark();
        assertEquals(Status.OK, second.put("k", "v2"));
        assertEquals(List.of(WRITE_CAS_SLOT), second.doorbellsSince(mark), "fresh: WRITE + blind CAS");
        assertEquals(1, second.count(ClientCounter.PUT_ROUND_TRIPS) - trips);

        clock.advance(TestLane.TRUST_NANOS);
        trips = first.count(ClientCounter.PUT_ROUND_TRIPS);
        mark = first.mark();
        assertEquals(Status.OK, first.put("k", "v3"));
        assertEquals(List.of(WRITE_READ_SLOT_BLOCK, CAS_SLOT), first.doorbellsSince(mark),
            "older: confirm the slot, then CAS");
        assertEquals(2, first.count(ClientCounter.PUT_ROUND_TRIPS) - trips);
        assertEquals(List.of(first.version()), node.slotsHolding("k"));
        assertEquals("v3", node.value(first.version()));
    }

    @Test
    void anEntrySeenOnAnotherNodeIsNeverRead()
    {
        assertEquals(Status.OK, first.put("k", "v1"));
        final long hash = io.rdmakv.common.hash.KeyHash.hash("k".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        // as if a thread still on an older map had cached the key's slot on its old primary
        shared.put(hash, NodeRegion.INDEX_ADDRESS + (1L << 40), first.version(), clock.nanoTime());

        final int mark = second.mark();
        assertEquals(Status.OK, second.get("k"));
        assertEquals("v1", second.value());
        assertFalse(second.doorbellsSince(mark).contains(READ_SLOT_BLOCK), "the foreign address was not read");
        assertEquals(1, second.count(ClientCounter.CACHE_MISSES));
    }

    @Test
    void aStaleEntryIsCorrectedByTheLaneThatMissesAndThenServesTheOther()
    {
        assertEquals(Status.OK, first.put("k", "v1"));
        assertEquals(Status.OK, stranger.put("k", "other client"));
        clock.advance(TestLane.TRUST_NANOS);

        final long misses = first.count(ClientCounter.CACHE_MISSES);
        int mark = first.mark();
        assertEquals(Status.OK, first.get("k"));
        assertEquals(List.of(READ_SLOT_BLOCK, READ_GROUPS, READ_BLOCK), first.doorbellsSince(mark));
        assertEquals("other client", first.value(), "the cached slot was only a hint");
        assertEquals(1, first.count(ClientCounter.CACHE_MISSES) - misses);
        assertEquals(3, first.count(ClientCounter.GET_ROUND_TRIPS));

        mark = second.mark();
        assertEquals(Status.OK, second.get("k"));
        assertEquals(List.of(READ_SLOT_BLOCK), second.doorbellsSince(mark), "the corrected entry serves the other lane");
        assertEquals("other client", second.value());
    }

    @Test
    void aDeleteByOneLaneLeavesNoEntryThatTheOtherTrusts()
    {
        assertEquals(Status.OK, first.put("k", "v1"));
        assertEquals(Status.OK, stranger.put("k", "v2"));
        assertEquals(Status.OK, stranger.delete("k"));
        clock.advance(TestLane.TRUST_NANOS);

        final int mark = second.mark();
        assertEquals(Status.NOT_FOUND, second.delete("k"));
        assertEquals(List.of(READ_SLOT_BLOCK, READ_GROUPS), second.doorbellsSince(mark));
        assertEquals(Status.NOT_FOUND, first.get("k"));
        assertEquals(List.of(), node.slotsHolding("k"));
    }

    @Test
    void uncachedOperationsTakeTheirFullRoundTrips()
    {
        assertEquals(Status.OK, stranger.put("k", "v1"));
        assertEquals(Status.OK, first.put("warm-up", "x"));

        assertEquals(Status.OK, first.get("k"));
        assertEquals(2, first.count(ClientCounter.GET_ROUND_TRIPS), "READ groups, READ block");
        final long deleteTrips = first.count(ClientCounter.DELETE_ROUND_TRIPS);
        clock.advance(TestLane.TRUST_NANOS);
        assertEquals(Status.OK, first.delete("k"));
        assertEquals(2, first.count(ClientCounter.DELETE_ROUND_TRIPS) - deleteTrips, "confirm, then CAS to empty");
    }
}
