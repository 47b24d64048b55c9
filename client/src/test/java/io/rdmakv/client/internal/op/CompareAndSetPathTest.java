package io.rdmakv.client.internal.op;

import io.rdmakv.client.internal.lane.ClientCounter;
import io.rdmakv.peer.Status;
import io.rdmakv.client.KvClient;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.rdmakv.client.internal.op.Doorbells.CAS_SLOT;
import static io.rdmakv.client.internal.op.Doorbells.READ_GROUPS;
import static io.rdmakv.client.internal.op.Doorbells.READ_GROUPS_BLOCK;
import static io.rdmakv.client.internal.op.Doorbells.WRITE_READ_SLOT_BLOCK;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/** Compare-and-set on a version: succeeds only on the current version, never silently on a stale one. */
class CompareAndSetPathTest extends TwoLanes
{
    @Test
    void withTheCurrentVersionItSucceeds()
    {
        assertEquals(Status.OK, lane.put("k", "v1"));
        final long v1 = lane.version();

        assertEquals(Status.OK, lane.compareAndSet("k", "v2", v1));

        final long v2 = lane.version();
        assertNotEquals(v1, v2);
        assertEquals(List.of(v2), node.slotsHolding("k"));
        assertEquals("v2", node.value(v2));
    }

    @Test
    void withTheCurrentVersionItSucceedsFromAColdLane()
    {
        assertEquals(Status.OK, lane.put("k", "v1"));

        assertEquals(Status.OK, other.compareAndSet("k", "v2", lane.version()));

        assertEquals(List.of(other.version()), node.slotsHolding("k"));
        assertEquals("v2", node.value(other.version()));
    }

    @Test
    void withAStaleVersionItIsAConflictAndChangesNothing()
    {
        assertEquals(Status.OK, lane.put("k", "v1"));
        final long v1 = lane.version();
        assertEquals(Status.OK, lane.put("k", "v2"));
        final long[] before = node.slots("k");

        assertEquals(Status.CONFLICT, lane.compareAndSet("k", "v3", v1));
        assertEquals(Status.CONFLICT, other.compareAndSet("k", "v3", v1));

        assertArrayEquals(before, node.slots("k"));
        assertEquals(1, node.slotsHolding("k").size());
        assertEquals("v2", node.value(node.slotsHolding("k").getFirst()));
        assertEquals(1, lane.count(ClientCounter.CONFLICTS));
    }

    @Test
    void withACachedVersionThatAnotherWriterReplacedItIsAConflict()
    {
        assertEquals(Status.OK, lane.put("k", "v1"));
        final long v1 = lane.version();
        assertEquals(Status.OK, other.compareAndSet("k", "theirs", v1));
        final long[] before = node.slots("k");

        assertEquals(Status.CONFLICT, lane.compareAndSet("k", "ours", v1));

        assertArrayEquals(before, node.slots("k"));
        assertEquals("theirs", node.value(node.slotsHolding("k").getFirst()));
    }

    @Test
    void aCachedVersionConfirmedTooSlowlyIsLookedUpInTheGroupsNotCalledAConflict()
    {
        assertEquals(Status.OK, lane.put("k", "v1"));
        final long v1 = lane.version();
        clock.advance(TestLane.TRUST_NANOS);
        lane.nic().beforeNext(WRITE_READ_SLOT_BLOCK, () -> clock.advance(TestLane.TRUST_NANOS));

        final int mark = lane.mark();
        assertEquals(Status.OK, lane.compareAndSet("k", "v2", v1), "the slot still held v1");

        assertEquals(List.of(WRITE_READ_SLOT_BLOCK, READ_GROUPS_BLOCK, CAS_SLOT), lane.doorbellsSince(mark),
            "the block the version names comes with the groups: no round trip more");
        assertEquals(List.of(lane.version()), node.slotsHolding("k"));
        assertEquals("v2", node.value(lane.version()));
    }

    @Test
    void aVersionWhoseBlockSpaceAnotherKeyReusedIsAConflictAndSwingsNoSlot()
    {
        assertEquals(Status.OK, lane.put("k", "v1"));
        final long v1 = lane.version();
        // another writer replaced k; k's old block was freed and its space reused, at the same offset and length, by
        // a key of k's fingerprint whose slot lies in k's groups: that slot now holds k's old word
        final int kSlot = node.candidateHolding("k", v1);
        node.slot("k", kSlot, node.writeBlock("k", "v2"));
        node.block(v1).write(NodeRegion.bytes("j"), NodeRegion.bytes("jj"));
        final int jSlot = kSlot == 0 ? 1 : 0;
        node.slot("k", jSlot, v1);
        final long[] before = node.slots("k");

        assertEquals(Status.CONFLICT, other.compareAndSet("k", "v3", v1), "from the groups");
        assertEquals(Status.CONFLICT, lane.compareAndSet("k", "v3", v1), "from a cache entry that no longer holds");

        assertArrayEquals(before, node.slots("k"), "the other key's slot still names its own block");
        assertEquals("jj", node.value(v1));
        assertEquals("v2", node.value(node.slotsHolding("k").getFirst()));
    }

    @Test
    void absentOnAnExistingKeyIsAConflictAndReleasesTheLock()
    {
        assertEquals(Status.OK, lane.put("k", "v1"));
        final long[] before = node.slots("k");

        assertEquals(Status.CONFLICT, other.compareAndSet("k", "v2", KvClient.ABSENT));

        assertArrayEquals(before, node.slots("k"));
        assertEquals(0L, node.lockWord("k"));
        assertEquals("v1", node.value(node.slotsHolding("k").getFirst()));
    }

    @Test
    void absentOnANewKeyInsertsIt()
    {
        assertEquals(Status.OK, lane.compareAndSet("k", "v1", KvClient.ABSENT));

        assertEquals(List.of(lane.version()), node.slotsHolding("k"));
        assertEquals("v1", node.value(lane.version()));
        assertEquals(0L, node.lockWord("k"));
    }
}
