package io.rdmakv.client.internal.op;

import io.rdmakv.client.internal.lane.ClientCounter;
import io.rdmakv.client.internal.lane.LaneBuffers;
import io.rdmakv.peer.Status;
import io.rdmakv.common.hash.KeyHash;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.List;

import static io.rdmakv.client.internal.op.Doorbells.READ_BLOCK;
import static io.rdmakv.client.internal.op.Doorbells.READ_GROUPS;
import static io.rdmakv.client.internal.op.Doorbells.READ_SLOT_BLOCK;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A batched PUT: every WRITE in the first doorbell, the CASes together after it; an entry the batch cannot
 * settle is left to a single PUT, and the space of its block goes back.
 */
class BatchPutPathTest extends TwoLanes
{
    private static final String WRITE = "WRITE block";
    private static final String CAS = "CAS slot";

    @Test
    void freshCachedEntriesAreOneDoorbellForTheWholeBatch()
    {
        assertEquals(Status.OK, lane.put("a", "1"));
        assertEquals(Status.OK, lane.put("b", "2"));
        final long trips = lane.count(ClientCounter.PUT_ROUND_TRIPS);

        final int mark = lane.mark();
        assertEquals(2, batch("a", "one", "b", "two"));

        assertEquals(List.of(String.join(" + ", WRITE, CAS, WRITE, CAS)), lane.doorbellsSince(mark));
        assertEquals(Status.OK, lane.lane().putBatchOutcome(0));
        assertEquals(Status.OK, lane.lane().putBatchOutcome(1));
        assertEquals(1, lane.count(ClientCounter.PUT_ROUND_TRIPS) - trips, "half a round trip per entry");
        assertValue("a", "one");
        assertValue("b", "two");
    }

    @Test
    void olderCachedEntriesAreConfirmedThenCasTwoDoorbells()
    {
        assertEquals(Status.OK, lane.put("a", "1"));
        assertEquals(Status.OK, lane.put("b", "2"));
        clock.advance(TestLane.TRUST_NANOS);

        final int mark = lane.mark();
        assertEquals(2, batch("a", "one", "b", "two"));

        assertEquals(List.of(
                String.join(" + ", WRITE, READ_SLOT_BLOCK, WRITE, READ_SLOT_BLOCK),
                String.join(" + ", CAS, CAS)),
            lane.doorbellsSince(mark));
        assertValue("a", "one");
        assertValue("b", "two");
    }

    @Test
    void uncachedKeysAreGroupsThenBlocksThenCasThreeDoorbells()
    {
        assertEquals(Status.OK, other.put("a", "1"));
        assertEquals(Status.OK, other.put("b", "2"));
        assertEquals(Status.OK, lane.put("warm", "its first write ALLOCs the lane's extent"));

        final int mark = lane.mark();
        assertEquals(2, batch("a", "one", "b", "two"));

        assertEquals(List.of(
                String.join(" + ", WRITE, READ_GROUPS, WRITE, READ_GROUPS),
                String.join(" + ", READ_BLOCK, READ_BLOCK),
                String.join(" + ", CAS, CAS)),
            lane.doorbellsSince(mark));
        assertValue("a", "one");
        assertValue("b", "two");

        final int again = lane.mark();
        assertEquals(2, batch("a", "uno", "b", "dos"));
        assertEquals(List.of(String.join(" + ", WRITE, CAS, WRITE, CAS)), lane.doorbellsSince(again),
            "the batch cached the slots it wrote");
    }

    @Test
    void anAbsentKeyIsLeftToASinglePutAndItsUnusedBlockIsFreed()
    {
        assertEquals(Status.OK, lane.put("b", "2"));
        final int frees = lane.space().pendingFrees();

        assertEquals(2, batch("absent", "new", "b", "two"));

        assertEquals(Lane.BATCH_PENDING, lane.lane().putBatchOutcome(0), "insert needs the insert lock");
        assertEquals(Status.OK, lane.lane().putBatchOutcome(1));
        assertEquals(frees + 2, lane.space().pendingFrees(), "b's old block, and the absent key's unused one");
        assertEquals(Status.NOT_FOUND, other.get("absent"), "nothing names the unused block");
        assertEquals(Status.OK, lane.put("absent", "new"));
        assertValue("absent", "new");
        assertValue("b", "two");
    }

    @Test
    void aLostCasIsLeftToASinglePutWhoseBlockReusesTheSpace()
    {
        assertEquals(Status.OK, lane.put("k", "old"));
        assertEquals(Status.OK, other.put("k", "theirs"));
        final int frees = lane.space().pendingFrees();
        final long retries = lane.count(ClientCounter.CAS_RETRIES);

        assertEquals(1, batch("k", "mine"));

        assertEquals(Lane.BATCH_PENDING, lane.lane().putBatchOutcome(0), "the stale entry's CAS lost");
        assertEquals(retries + 1, lane.count(ClientCounter.CAS_RETRIES));
        assertEquals(frees, lane.space().pendingFrees(), "a trailing unused block is reused, not freed");
        assertValue("k", "theirs");
        assertEquals(Status.OK, lane.put("k", "mine"));
        assertValue("k", "mine");
    }

    @Test
    void sameKeyTwiceInOneBatchOneCasWinsTheOtherIsPending()
    {
        assertEquals(Status.OK, lane.put("k", "0"));

        assertEquals(2, batch("k", "first", "k", "second"));

        assertEquals(Status.OK, lane.lane().putBatchOutcome(0));
        assertEquals(Lane.BATCH_PENDING, lane.lane().putBatchOutcome(1), "its CAS expected the old word");
        assertValue("k", "first");
    }

    @Test
    void aBatchStopsAtTheEndOfItsExtentAndTheRestAllocsAnother()
    {
        final String value = "v".repeat(3_900);
        final String[] pairs = new String[2 * LaneBuffers.BATCH];
        for (int i = 0; i < LaneBuffers.BATCH; i++)
        {
            assertEquals(Status.OK, lane.put("k" + i, "old"));
            pairs[2 * i] = "k" + i;
            pairs[2 * i + 1] = value + i;
        }
        for (int j = 0; j < 4; j++)
        {
            assertEquals(Status.OK, lane.put("big" + j, "b".repeat(60_000)));
        }

        final int taken = batch(pairs);

        assertTrue(taken >= 1 && taken < LaneBuffers.BATCH, "the extent holds only some: " + taken);
        final int mark = lane.mark();
        assertEquals(LaneBuffers.BATCH - taken, batch(Arrays.copyOfRange(pairs, 2 * taken, pairs.length)));
        assertEquals(Doorbells.ALLOC, lane.doorbellsSince(mark).get(0), "the rest goes in a new extent");
        for (int i = 0; i < LaneBuffers.BATCH; i++)
        {
            assertValue("k" + i, value + i);
        }
    }

    /** Stages key/value pairs as batch entries and runs the batch; returns what {@link Lane#putBatch} returns. */
    private int batch(final String... pairs)
    {
        for (int i = 0; i < pairs.length / 2; i++)
        {
            final byte[] k = NodeRegion.bytes(pairs[2 * i]);
            final byte[] v = NodeRegion.bytes(pairs[2 * i + 1]);
            lane.lane().batchEntry(i, MemorySegment.ofArray(k), 0, k.length, KeyHash.hash(k), KeyHash.WHOLE_INDEX,
                MemorySegment.ofArray(v),
                0, v.length);
        }
        return lane.lane().putBatch(pairs.length / 2);
    }

    private void assertValue(final String key, final String value)
    {
        assertEquals(Status.OK, other.get(key), key);
        assertEquals(value, other.value(), key);
    }
}
