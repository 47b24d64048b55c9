package io.rdmakv.client.internal.op;

import io.rdmakv.common.hash.KeyHash;
import io.rdmakv.common.layout.MovedHeader;
import io.rdmakv.common.layout.SlotWord;
import io.rdmakv.peer.Status;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.rdmakv.client.internal.op.Doorbells.READ_GROUPS;
import static io.rdmakv.client.internal.op.Doorbells.READ_BLOCK;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A partition frozen for a move ({@link SlotWord#MOVING} on its slots) and one that has left the node's group
 * (the {@link MovedHeader MOVED} mark): reads go on through frozen words, writes never CAS from one and wait,
 * a frozen partition is never "table full", and a MOVED mark turns every operation back before it reads or
 * changes anything (docs/growth.md §6).
 */
class FrozenPathTest extends TwoLanes
{
    @Test
    void aGetReadsThroughAFrozenWordAndReturnsTheVersionWithoutTheBit()
    {
        assertEquals(Status.OK, lane.put("k", "v"));
        final long word = lane.version();
        node.freeze("k");

        assertEquals(Status.OK, other.get("k"));
        assertEquals("v", other.value());
        assertEquals(word, other.version(), "the version is the same before the freeze and during it");

        final int mark = other.mark();
        assertEquals(Status.OK, other.get("k"));
        assertEquals(List.of(READ_GROUPS, READ_BLOCK), other.doorbellsSince(mark), "a frozen word is never cached");

        final int cached = lane.mark();
        assertEquals(Status.OK, lane.get("k"));
        assertEquals("v", lane.value());
        assertEquals(List.of(Doorbells.READ_SLOT_BLOCK, READ_GROUPS, READ_BLOCK), lane.doorbellsSince(cached),
            "the cached word no longer matches the frozen slot: the GET falls back to the groups");
    }

    @Test
    void writesToAFrozenKeyChangeNothingAndGoOnOnceItOpens()
    {
        assertEquals(Status.OK, lane.put("k", "v"));
        final long word = lane.version();
        final int candidate = node.candidateHolding("k", word);
        node.freeze("k");

        assertEquals(Status.FROZEN, lane.put("k", "blind"), "the fresh cached entry's CAS fails on the bit");
        assertEquals(Status.FROZEN, other.put("k", "w"));
        assertEquals(Status.FROZEN, other.delete("k"));
        assertEquals(Status.FROZEN, other.compareAndSet("k", "c", word), "the version frozen is not a conflict yet");
        assertEquals(word | SlotWord.MOVING, node.slot("k", candidate), "no write took the frozen slot");

        node.unfreeze("k");
        assertEquals(Status.OK, other.compareAndSet("k", "c", word));
        assertEquals(Status.OK, other.get("k"));
        assertEquals("c", other.value());
    }

    @Test
    void aVersionWithTheBitIsNoVersion()
    {
        assertEquals(Status.OK, lane.put("k", "v"));
        final long word = lane.version();
        assertEquals(Status.CONFLICT, other.compareAndSet("k", "c", word | SlotWord.MOVING));
        assertEquals(word, node.slot("k", node.candidateHolding("k", word)));
    }

    @Test
    void anInsertIntoAFrozenPartitionWaitsInsteadOfFindingTheTableFull()
    {
        node.freeze("new");
        for (final long word : node.slots("new"))
        {
            assertEquals(SlotWord.FROZEN_EMPTY, word);
        }
        assertEquals(Status.NOT_FOUND, other.get("new"), "frozen empty slots name no block");
        assertEquals(Status.FROZEN, other.put("new", "v"));
        assertEquals(Status.FROZEN, other.compareAndSet("new", "v", 0L));
        assertEquals(0L, node.lockWord("new"), "the insert lock was given back");

        node.unfreeze("new");
        assertEquals(Status.OK, other.put("new", "v"));
        assertEquals(Status.OK, lane.get("new"));
        assertEquals("v", lane.value());
    }

    /** The bare bit has fingerprint 0: a key whose fingerprint is 0 must not take it for a (damaged) block. */
    @Test
    void aFrozenEmptySlotIsNoBlockEvenForAKeyOfFingerprintZero()
    {
        String key = null;
        for (int i = 0; key == null; i++)
        {
            final String candidate = "fp0-" + i;
            if (KeyHash.fingerprint(KeyHash.hash(NodeRegion.bytes(candidate))) == 0)
            {
                key = candidate;
            }
        }
        node.freeze(key);
        assertEquals(Status.NOT_FOUND, other.get(key));
        assertEquals(Status.FROZEN, other.put(key, "v"));
        node.unfreeze(key);
        assertEquals(Status.OK, other.put(key, "v"));
        node.freeze(key);
        assertEquals(Status.OK, lane.get(key));
        assertEquals("v", lane.value());
    }

    @Test
    void aMovedMarkTurnsEveryOperationBackBeforeItReadsOrChangesAnything()
    {
        assertEquals(Status.OK, lane.put("k", "v"));
        final long word = lane.version();
        final int candidate = node.candidateHolding("k", word);
        for (int group = 0; group < 2; group++)
        {
            node.movedHeader("k", group, MovedHeader.moved(12));
            final int mark = other.mark();
            assertEquals(Status.MOVED, other.get("k"), "group " + group);
            assertEquals(List.of(READ_GROUPS), other.doorbellsSince(mark), "no block is read");
            assertEquals(Status.MOVED, other.put("k", "w"));
            assertEquals(Status.MOVED, other.delete("k"));
            assertEquals(Status.MOVED, other.compareAndSet("k", "c", word));
            assertEquals(word, node.slot("k", candidate));
            node.movedHeader("k", group, 0L);
        }
        assertEquals(Status.OK, other.get("k"));
        assertEquals("v", other.value());
    }

    @Test
    void aMovedMarkNamesItsSwitchEpoch()
    {
        final long header = MovedHeader.moved(0x1_0000_0007L);
        assertTrue(MovedHeader.isMoved(header));
        assertEquals(7L, MovedHeader.switchEpochLow(header));
        assertEquals(0L, header & MovedHeader.RESERVED_MASK);
        assertTrue(!MovedHeader.isMoved(0L));
    }
}
