package io.rdmakv.client.internal.op;

import io.rdmakv.peer.Status;
import io.rdmakv.common.SpaceTiming;
import io.rdmakv.common.layout.SlotWord;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.rdmakv.client.internal.op.Doorbells.CAS_SLOT;
import static io.rdmakv.client.internal.op.Doorbells.FREE;
import static io.rdmakv.client.internal.op.InsertPathTest.freed;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** DELETE: the slot is emptied, the key is gone, and its block is given back in a FREE. */
class DeletePathTest extends TwoLanes
{
    @Test
    void deleteEmptiesTheSlotAndTheBlockIsFreedOnceTheFlushIntervalPassed()
    {
        assertEquals(Status.OK, lane.put("k", "v"));
        final long word = lane.version();
        final int candidate = node.candidateHolding("k", word);

        final int mark = lane.mark();
        assertEquals(Status.OK, lane.delete("k"));

        assertEquals(List.of(CAS_SLOT), lane.doorbellsSince(mark), "a fresh cached slot is CASed blind");
        assertEquals(SlotWord.EMPTY, node.slot("k", candidate));
        assertEquals(List.of(), node.slotsHolding("k"));
        assertEquals(Status.NOT_FOUND, lane.get("k"));
        assertEquals(Status.NOT_FOUND, other.get("k"));

        clock.advance(SpaceTiming.FREE_FLUSH_NANOS - 1);
        assertEquals(Status.OK, lane.put("other", "x"));
        assertTrue(node.frees().isEmpty(), "not flushed before the interval");

        clock.advance(1);
        final int flush = lane.mark();
        assertEquals(Status.OK, lane.put("other", "y"));
        assertEquals(FREE, lane.doorbellsSince(flush).getFirst());
        assertEquals(List.of(freed(word)), node.frees());
    }

    @Test
    void deleteFromAColdLaneFindsTheSlotAndFreesTheBlock()
    {
        assertEquals(Status.OK, lane.put("k", "v"));
        final long word = lane.version();

        assertEquals(Status.OK, other.delete("k"));

        assertEquals(List.of(), node.slotsHolding("k"));
        assertEquals(Status.NOT_FOUND, lane.get("k"));
        assertEquals(1, other.space().pendingFrees());
        clock.advance(SpaceTiming.FREE_FLUSH_NANOS);
        assertEquals(Status.OK, other.put("other", "x"));
        assertEquals(List.of(freed(word)), node.frees());
    }

    @Test
    void deleteOfAnAbsentKeyIsNotFoundAndFreesNothing()
    {
        assertEquals(Status.NOT_FOUND, lane.delete("k"));
        assertEquals(0, lane.space().pendingFrees());
    }

    @Test
    void aDueFreeGoesOutWithTheNextWriteOrDeleteNeverWithAGet()
    {
        assertEquals(Status.OK, lane.put("k", "v"));
        final long word = lane.version();
        assertEquals(Status.OK, lane.delete("k"));

        clock.advance(SpaceTiming.FREE_FLUSH_NANOS);
        assertEquals(Status.NOT_FOUND, lane.get("k"));
        assertEquals(List.of(), node.frees(), "a GET costs no control message (idle lanes: the janitor)");
        assertEquals(Status.NOT_FOUND, lane.delete("k"));

        assertEquals(List.of(freed(word)), node.frees());
    }
}
