package io.rdmakv.client.internal.op;

import io.rdmakv.client.internal.lane.ClientCounter;
import io.rdmakv.peer.Status;
import io.rdmakv.common.SpaceTiming;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.rdmakv.client.internal.op.Doorbells.CAS_SLOT;
import static io.rdmakv.client.internal.op.Doorbells.READ_BLOCK;
import static io.rdmakv.client.internal.op.Doorbells.READ_GROUPS;
import static io.rdmakv.client.internal.op.Doorbells.WRITE_CAS_SLOT;
import static io.rdmakv.client.internal.op.Doorbells.WRITE_READ_GROUPS;
import static io.rdmakv.client.internal.op.Doorbells.WRITE_READ_SLOT_BLOCK;
import static io.rdmakv.client.internal.op.InsertPathTest.freed;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/** Update of an existing key: fresh, confirmed and uncached slots, and a writer racing our CAS. */
class UpdatePathTest extends TwoLanes
{
    @Test
    void updateOfAFreshCachedKeyIsOneDoorbellOfWriteAndCas()
    {
        assertEquals(Status.OK, lane.put("k", "v1"));
        final long v1 = lane.version();
        clock.advance(TestLane.TRUST_NANOS - 1);

        final int mark = lane.mark();
        assertEquals(Status.OK, lane.put("k", "v2"));

        assertEquals(List.of(WRITE_CAS_SLOT), lane.doorbellsSince(mark));
        assertNotEquals(v1, lane.version());
        assertEquals(List.of(lane.version()), node.slotsHolding("k"));
        assertEquals("v2", node.value(lane.version()));
    }

    @Test
    void updateOfACachedKeyOlderThanHalfTheGracePeriodConfirmsTheSlotFirst()
    {
        assertEquals(Status.OK, lane.put("k", "v1"));
        clock.advance(TestLane.TRUST_NANOS);

        final int mark = lane.mark();
        assertEquals(Status.OK, lane.put("k", "v2"));

        assertEquals(List.of(WRITE_READ_SLOT_BLOCK, CAS_SLOT), lane.doorbellsSince(mark));
        assertEquals(List.of(lane.version()), node.slotsHolding("k"));
        assertEquals("v2", node.value(lane.version()));
    }

    @Test
    void aFreshEntrySeenBeforeItsPartitionWasPlacedWhereItIsIsConfirmedFirst()
    {
        // growth.md §6: after a move the entry may name the old group's slot; only its age says nothing of that
        assertEquals(Status.OK, lane.put("k", "v1"));
        clock.advance(1_000_000);
        final long placed = clock.nanoTime();
        clock.advance(1_000_000);

        final int mark = lane.mark();
        assertEquals(Status.OK, lane.putPlacedAt("k", "v2", placed));

        assertEquals(List.of(WRITE_READ_SLOT_BLOCK, CAS_SLOT), lane.doorbellsSince(mark));
        assertEquals("v2", node.value(lane.version()));

        final int again = lane.mark();
        assertEquals(Status.OK, lane.putPlacedAt("k", "v3", placed));
        assertEquals(List.of(WRITE_CAS_SLOT), lane.doorbellsSince(again), "an entry seen after the placement is fresh");
        assertEquals("v3", node.value(lane.version()));
    }

    @Test
    void uncachedUpdateIsThreeDoorbells()
    {
        assertEquals(Status.OK, lane.put("k", "v1"));
        assertEquals(Status.OK, other.put("warm-up", "x"));

        final int mark = other.mark();
        assertEquals(Status.OK, other.put("k", "v2"));

        assertEquals(List.of(WRITE_READ_GROUPS, READ_BLOCK, CAS_SLOT), other.doorbellsSince(mark));
        assertEquals(List.of(other.version()), node.slotsHolding("k"));
        assertEquals("v2", node.value(other.version()));
    }

    @Test
    void aWriterThatSwingsTheSlotJustBeforeOurCasMakesUsRetryAndFreeItsBlock()
    {
        assertEquals(Status.OK, lane.put("k", "v1"));
        final int candidate = node.candidateHolding("k", lane.version());
        assertEquals(Status.OK, other.put("warm-up", "x"));
        final long[] racer = new long[1];
        other.nic().beforeNext(CAS_SLOT, () ->
        {
            racer[0] = node.writeBlock("k", "racer");
            node.slot("k", candidate, racer[0]);
        });

        final int mark = other.mark();
        assertEquals(Status.OK, other.put("k", "ours"));

        assertEquals(List.of(WRITE_READ_GROUPS, READ_BLOCK, CAS_SLOT, READ_GROUPS, READ_BLOCK, CAS_SLOT),
            other.doorbellsSince(mark));
        assertEquals(1, other.count(ClientCounter.CAS_RETRIES));
        assertEquals(List.of(other.version()), node.slotsHolding("k"));
        assertEquals("ours", node.value(other.version()));

        clock.advance(SpaceTiming.FREE_FLUSH_NANOS);
        assertEquals(Status.OK, other.put("warm-up", "y"));
        assertEquals(List.of(freed(racer[0])), node.frees(), "the block we replaced is the racer's, not v1's");
    }

    @Test
    void aLostCasOnTheCachedPathCountsAsACasRetry()
    {
        assertEquals(Status.OK, lane.put("k", "v1"));
        final int candidate = node.candidateHolding("k", lane.version());
        final long[] racer = new long[1];
        lane.nic().beforeNext(WRITE_CAS_SLOT, () ->
        {
            racer[0] = node.writeBlock("k", "racer");
            node.slot("k", candidate, racer[0]);
        });

        final int mark = lane.mark();
        assertEquals(Status.OK, lane.put("k", "ours"));

        assertEquals(List.of(WRITE_CAS_SLOT, READ_GROUPS, READ_BLOCK, CAS_SLOT), lane.doorbellsSince(mark));
        assertEquals(List.of(lane.version()), node.slotsHolding("k"));
        assertEquals(1, lane.count(ClientCounter.CAS_RETRIES));
    }
}
