package io.rdmakv.client.internal.op;

import io.rdmakv.client.internal.lane.ClientCounter;
import io.rdmakv.peer.Status;
import io.rdmakv.common.SpaceTiming;
import io.rdmakv.common.layout.SlotWord;
import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.rdmakv.client.internal.op.Doorbells.ALLOC;
import static io.rdmakv.client.internal.op.Doorbells.CAS_SLOT;
import static io.rdmakv.client.internal.op.Doorbells.CAS_SLOT_UNLOCK;
import static io.rdmakv.client.internal.op.Doorbells.LOCK_READ_GROUPS;
import static io.rdmakv.client.internal.op.Doorbells.READ_BLOCK;
import static io.rdmakv.client.internal.op.Doorbells.READ_GROUPS;
import static io.rdmakv.client.internal.op.Doorbells.UNLOCK;
import static io.rdmakv.client.internal.op.Doorbells.WRITE_READ_GROUPS;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Insert of a new key under its group's insert lock: round trips, the lock, and one slot per key. */
class InsertPathTest
{
    private static final long SESSION_ID = 7;
    private static final long OTHER_SESSION_ID = 99;

    private final CachedNanoClock clock = new CachedNanoClock();
    private final NodeRegion node = new NodeRegion();
    private final TestLane lane = new TestLane(node, clock, SESSION_ID);

    @AfterEach
    void close()
    {
        lane.close();
        node.close();
    }

    @Test
    void insertIsWriteAndReadGroupsThenLockAndReadGroupsThenCasAndUnlock()
    {
        final int first = lane.mark();
        assertEquals(Status.OK, lane.put("k1", "v1"));
        assertEquals(List.of(ALLOC, WRITE_READ_GROUPS, LOCK_READ_GROUPS, CAS_SLOT_UNLOCK), lane.doorbellsSince(first));
        assertEquals(4, lane.count(ClientCounter.ROUND_TRIPS));
        assertEquals(List.of(lane.version()), node.slotsHolding("k1"));
        assertEquals("v1", node.value(lane.version()));
        assertEquals(0L, node.lockWord("k1"));

        final int second = lane.mark();
        assertEquals(Status.OK, lane.put("k2", "v2"));
        assertEquals(List.of(WRITE_READ_GROUPS, LOCK_READ_GROUPS, CAS_SLOT_UNLOCK), lane.doorbellsSince(second));
        assertEquals(List.of(lane.version()), node.slotsHolding("k2"));
        assertEquals("v2", node.value(lane.version()));
        assertEquals(0L, node.lockWord("k2"));
    }

    @Test
    void insertWaitsWhileAnotherSessionHoldsTheLockAndCompletesOnceItIsReleased()
    {
        node.lockWord("k", OTHER_SESSION_ID);
        lane.nic().beforeEachDoorbell((number, shape) ->
        {
            if (node.lockWord("k") == OTHER_SESSION_ID)
            {
                assertEquals(List.of(), node.slotsHolding("k"), "no slot written while the lock is held");
                if (lane.count(ClientCounter.LOCK_RETRIES) == 3)
                {
                    node.lockWord("k", 0L);
                }
            }
        });

        assertEquals(Status.OK, lane.put("k", "v"));

        assertEquals(3, lane.count(ClientCounter.LOCK_RETRIES));
        assertEquals(List.of(lane.version()), node.slotsHolding("k"));
        assertEquals("v", node.value(lane.version()));
        assertEquals(0L, node.lockWord("k"));
    }

    @Test
    void aKeyInsertedByItsLockHolderWhileWeWaitMakesOurPutAnUpdateOfThatSlot()
    {
        node.lockWord("k", OTHER_SESSION_ID);
        final long[] theirs = new long[1];
        lane.nic().beforeEachDoorbell((number, shape) ->
        {
            if (theirs[0] == 0 && lane.count(ClientCounter.LOCK_RETRIES) == 2)
            {
                theirs[0] = node.writeBlock("k", "theirs");
                node.slot("k", 20, theirs[0]);
                node.lockWord("k", 0L);
            }
        });

        assertEquals(Status.OK, lane.put("k", "ours"));

        assertEquals(List.of(lane.version()), node.slotsHolding("k"), "one slot for the key, never two");
        assertEquals(lane.version(), node.slot("k", 20));
        assertEquals("ours", node.value(lane.version()));
        assertEquals(0L, node.lockWord("k"));

        clock.advance(SpaceTiming.FREE_FLUSH_NANOS);
        assertEquals(Status.OK, lane.put("other", "x"));
        assertEquals(List.of(freed(theirs[0])), node.frees());
    }

    @Test
    void aKeyThatAppearsBeforeWeTakeTheLockIsFoundUnderTheLockAndUpdated()
    {
        final long[] theirs = new long[1];
        lane.nic().beforeNext(LOCK_READ_GROUPS, () ->
        {
            theirs[0] = node.writeBlock("k", "theirs");
            node.slot("k", 3, theirs[0]);
        });

        final int mark = lane.mark();
        assertEquals(Status.OK, lane.put("k", "ours"));

        assertEquals(List.of(ALLOC, WRITE_READ_GROUPS, LOCK_READ_GROUPS, READ_BLOCK, UNLOCK, READ_GROUPS, READ_BLOCK,
            CAS_SLOT), lane.doorbellsSince(mark));
        assertEquals(List.of(lane.version()), node.slotsHolding("k"), "one slot for the key, never two");
        assertEquals(lane.version(), node.slot("k", 3));
        assertEquals(0L, node.lockWord("k"));
    }

    @Test
    void bothCandidateGroupsFullIsTableFullWithTheLockReleased()
    {
        node.fillCandidateGroups("k");
        final long[] before = node.slots("k");

        final int mark = lane.mark();
        assertEquals(Status.TABLE_FULL, lane.put("k", "v"));

        assertEquals(List.of(ALLOC, WRITE_READ_GROUPS, LOCK_READ_GROUPS, UNLOCK), lane.doorbellsSince(mark));
        assertEquals(0L, node.lockWord("k"));
        assertArrayEquals(before, node.slots("k"));
        assertTrue(node.frees().isEmpty());
    }

    static NodeRegion.Freed freed(final long word)
    {
        return new NodeRegion.Freed(SlotWord.blockOffset(word), SlotWord.blockLength(word));
    }
}
