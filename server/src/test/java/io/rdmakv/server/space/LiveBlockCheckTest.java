package io.rdmakv.server.space;

import io.rdmakv.common.layout.KvBlockDescriptor;
import io.rdmakv.common.layout.SlotWord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.ValueLayout;

import static io.rdmakv.server.space.TestRegion.GEOMETRY;
import static io.rdmakv.server.space.TestRegion.group1;
import static io.rdmakv.server.space.TestRegion.group2;
import static io.rdmakv.server.space.TestRegion.key;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Which FREE ranges the node refuses: those that overlap a block (its start or any part of it) that a
 * slot in one of its key's two candidate groups points at. Anything else (superseded blocks, torn or
 * foreign bytes) may be freed, as far as this check goes.
 */
class LiveBlockCheckTest
{
    private static final int UNIT = KvBlockDescriptor.ALIGNMENT;

    private final TestRegion region = new TestRegion();
    private final LiveBlockCheck check = new LiveBlockCheck(region.segment(), GEOMETRY);

    @AfterEach
    void close()
    {
        region.close();
    }

    @Test
    void aBlockItsFirstCandidateGroupPointsAtIsLive()
    {
        final byte[] k = key("first");
        region.insert(k, 4096, 10, group1(k), 4);
        assertTrue(check.containsLiveBlock(4096, UNIT));
        assertTrue(check.containsLiveBlock(4096 - UNIT, 2 * UNIT), "a range that holds the block's start");
        assertFalse(check.containsLiveBlock(4096 - UNIT, UNIT), "the unit before it");
    }

    @Test
    void aBlockItsSecondCandidateGroupPointsAtIsLive()
    {
        final byte[] k = key("second");
        region.insert(k, 8192, 10, group2(k), 13);
        assertTrue(check.containsLiveBlock(8192, UNIT));
    }

    @Test
    void aSupersededBlockMayBeFreedAndItsSuccessorMayNot()
    {
        final byte[] k = key("updated");
        final long group = group1(k);
        region.insert(k, 4096, 10, group, 2);
        region.insert(k, 8192, 10, group, 2); // the update swung the slot to the new block
        assertFalse(check.containsLiveBlock(4096, UNIT), "no slot points at the old block any more");
        assertTrue(check.containsLiveBlock(8192, UNIT));
    }

    @Test
    void aDeletedBlockMayBeFreed()
    {
        final byte[] k = key("deleted");
        region.insert(k, 4096, 10, group1(k), 0);
        region.slot(group1(k), 0, SlotWord.EMPTY);
        assertFalse(check.containsLiveBlock(4096, UNIT));
    }

    @Test
    void aRangeOverLiveBlocksTailIsLiveToo()
    {
        final byte[] k = key("long");
        region.insert(k, 4096, 500, group1(k), 1);
        final int length = KvBlockDescriptor.blockLength(k.length, 500);
        assertTrue(length > UNIT);
        assertTrue(check.containsLiveBlock(4096 + UNIT, length - UNIT), "the tail holds no block start, still live");
        assertTrue(check.containsLiveBlock(4096 + length - UNIT, UNIT), "its last unit alone");
        assertTrue(check.containsLiveBlock(4096, length));
        assertFalse(check.containsLiveBlock(4096 + length, UNIT), "the unit after it");
        assertFalse(check.containsLiveBlock(4096 - UNIT, UNIT), "the unit before it");
    }

    @Test
    void theLookBackIsBoundedByTheFloorAndCounted()
    {
        final byte[] k = key("floored");
        region.insert(k, 4096, 500, group1(k), 1);
        final long before = check.unitsExamined();
        assertFalse(check.overlapsLiveBlock(4096 + 2 * UNIT, 4096 + 3 * UNIT, 4096 + 2 * UNIT),
            "a floor after the block's start hides it: the caller floors at the granted range's start");
        assertEquals(1, check.unitsExamined() - before);
        assertEquals(1L << 20, LiveBlockCheck.lookbackStart((1L << 20) + SlotWord.MAX_BLOCK_LENGTH - UNIT, 0),
            "one largest block back");
        assertEquals(4096, LiveBlockCheck.lookbackStart(4096 + 2 * UNIT, 4096));
    }

    @Test
    void aSlotOutsideTheKeysCandidateGroupsDoesNotMakeABlockLive()
    {
        final byte[] k = key("elsewhere");
        long stranger = 0;
        while (stranger == group1(k) || stranger == group2(k))
        {
            stranger++;
        }
        region.insert(k, 4096, 10, stranger, 0);
        assertFalse(check.containsLiveBlock(4096, UNIT));
    }

    @Test
    void bytesThatAreNoBlockAreNotLiveEvenWhenASlotPointsThere()
    {
        final byte[] k = key("torn");
        region.insert(k, 4096, 10, group1(k), 0);
        // a key length over the limit: the header is not sane, so the key cannot be hashed
        region.segment().set(ValueLayout.JAVA_SHORT_UNALIGNED,
            GEOMETRY.dataOffset() + 4096 + KvBlockDescriptor.KEY_LENGTH_OFFSET, (short)0x7fff);
        assertFalse(check.containsLiveBlock(4096, UNIT));
    }

    @Test
    void theEndOfTheDataAreaIsCheckedWithoutReadingPastIt()
    {
        assertFalse(check.containsLiveBlock(GEOMETRY.dataLength() - UNIT, UNIT));
        final byte[] k = key("last");
        region.insert(k, GEOMETRY.dataLength() - UNIT, 0, group1(k), 0);
        assertTrue(check.containsLiveBlock(GEOMETRY.dataLength() - UNIT, UNIT));
    }
}
