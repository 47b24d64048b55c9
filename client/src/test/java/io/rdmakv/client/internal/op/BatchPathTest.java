package io.rdmakv.client.internal.op;

import io.rdmakv.client.internal.lane.ClientCounter;
import io.rdmakv.peer.Status;
import io.rdmakv.common.hash.KeyHash;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static io.rdmakv.client.internal.op.Doorbells.READ_BLOCK;
import static io.rdmakv.client.internal.op.Doorbells.READ_GROUPS;
import static io.rdmakv.client.internal.op.Doorbells.READ_SLOT_BLOCK;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/** A batched GET: two doorbells for the whole batch, the single GET's rules for every key. */
class BatchPathTest extends TwoLanes
{
    @Test
    void cachedUncachedAndAbsentKeysInTwoDoorbells()
    {
        assertEquals(Status.OK, lane.put("c1", "cached one"));
        assertEquals(Status.OK, lane.put("c2", "cached two"));
        assertEquals(Status.OK, other.put("u1", "uncached one"));
        assertEquals(Status.OK, other.put("u2", "uncached two"));
        final long gets = lane.count(ClientCounter.GETS);
        final long trips = lane.count(ClientCounter.GET_ROUND_TRIPS);

        final int mark = lane.mark();
        assertEquals(Status.OK, batch("c1", "u1", "absent", "c2", "u2"));

        assertEquals(List.of(
                READ_SLOT_BLOCK + " + " + READ_GROUPS + " + " + READ_GROUPS + " + " + READ_SLOT_BLOCK + " + " +
                    READ_GROUPS,
                READ_BLOCK + " + " + READ_BLOCK),
            lane.doorbellsSince(mark), "one chain of slots, blocks and groups; one of the groups' blocks");
        assertEquals("cached one", value(0));
        assertEquals("uncached one", value(1));
        assertEquals(Status.NOT_FOUND, lane.lane().batchOutcome(2));
        assertEquals("cached two", value(3));
        assertEquals("uncached two", value(4));
        assertEquals(5, lane.count(ClientCounter.GETS) - gets);
        assertEquals(2, lane.count(ClientCounter.GET_ROUND_TRIPS) - trips);
        assertEquals(1, lane.count(ClientCounter.NOT_FOUND));

        assertEquals(Status.OK, lane.get("u1"));
        assertEquals(lane.version(), lane.lane().batchVersion(1), "the batch's version is the single GET's");
    }

    @Test
    void keysTheBatchLearnedAreCachedSoTheNextBatchIsOneDoorbell()
    {
        assertEquals(Status.OK, other.put("a", "1"));
        assertEquals(Status.OK, other.put("b", "2"));
        assertEquals(Status.OK, batch("a", "b"));

        final int mark = lane.mark();
        assertEquals(Status.OK, batch("a", "b"));

        assertEquals(List.of(READ_SLOT_BLOCK + " + " + READ_SLOT_BLOCK), lane.doorbellsSince(mark));
        assertEquals("1", value(0));
        assertEquals("2", value(1));
        assertEquals(2, lane.count(ClientCounter.CACHE_HITS));
    }

    @Test
    void aStaleEntryIsLeftForASingleGetAndDropped()
    {
        assertEquals(Status.OK, lane.put("k", "old"));
        assertEquals(Status.OK, other.put("k", "new"));

        assertEquals(Status.OK, batch("k"));

        assertEquals(Lane.BATCH_PENDING, lane.lane().batchOutcome(0), "the batch does not guess");
        assertNotEquals(Status.NOT_FOUND, Lane.BATCH_PENDING, "a key left to a single GET is not an absent one");
        final int mark = lane.mark();
        assertEquals(Status.OK, lane.get("k"));
        assertEquals(List.of(READ_GROUPS, READ_BLOCK), lane.doorbellsSince(mark), "the stale entry was dropped");
        assertEquals("new", lane.value());
    }

    @Test
    void aReadSlowerThanHalfTheGracePeriodIsNotTrusted()
    {
        assertEquals(Status.OK, other.put("k", "v"));
        lane.nic().beforeNext(READ_BLOCK, () -> clock.advance(TestLane.TRUST_NANOS));

        assertEquals(Status.OK, batch("k"));

        assertEquals(Lane.BATCH_PENDING, lane.lane().batchOutcome(0));
    }

    private int batch(final String... keys)
    {
        for (int i = 0; i < keys.length; i++)
        {
            final byte[] k = NodeRegion.bytes(keys[i]);
            lane.lane().batchKey(i, MemorySegment.ofArray(k), 0, k.length, KeyHash.hash(k), KeyHash.WHOLE_INDEX);
        }
        return lane.lane().getBatch(keys.length);
    }

    private String value(final int i)
    {
        assertEquals(Status.OK, lane.lane().batchOutcome(i), "key " + i);
        final Lane l = lane.lane();
        return new String(l.batchValueSegment(i).asSlice(l.batchValueOffset(i), l.batchValueLength(i))
            .toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
    }
}
