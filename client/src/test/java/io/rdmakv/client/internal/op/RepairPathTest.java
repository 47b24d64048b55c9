package io.rdmakv.client.internal.op;

import io.rdmakv.client.internal.lane.ClientCounter;
import io.rdmakv.common.protocol.wire.RepairRefusal;
import io.rdmakv.peer.Status;
import io.rdmakv.common.hash.KeyHash;
import io.rdmakv.common.layout.SlotWord;
import io.rdmakv.common.protocol.RepairMessage;
import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A key whose block is damaged (or whose slot points outside the data area): a GET reports it
 * {@link Status#CORRUPTED} and asks nothing of the node; a PUT or DELETE reaches the same verdict, has the
 * node clear the slot (REPAIR) and then succeeds.
 */
class RepairPathTest
{
    private static final String REPAIR = "SEND REPAIR";

    private final CachedNanoClock clock = new CachedNanoClock();
    private final NodeRegion node = new NodeRegion();
    private final TestLane writer = new TestLane(node, clock, 7);
    private final TestLane other = new TestLane(node, clock, 8);

    @AfterEach
    void close()
    {
        writer.close();
        other.close();
        node.close();
    }

    private long damagedKey()
    {
        assertEquals(Status.OK, writer.put("k", "the old value"));
        final long word = writer.version();
        node.damage(word);
        return word;
    }

    private long outsideKey()
    {
        final long word = SlotWord.encode(KeyHash.fingerprint(KeyHash.hash(NodeRegion.bytes("k"))), 1,
            node.geometry().dataLength() >> SlotWord.UNIT_SHIFT);
        node.slot("k", 16, word);
        return word;
    }

    @Test
    void aGetOfADamagedKeyIsCorruptedAndAsksNoRepair()
    {
        damagedKey();
        assertEquals(Status.CORRUPTED, other.get("k"));
        assertEquals(Status.CORRUPTED, writer.get("k"));
        assertEquals(List.of(), node.repairs(), "a reader never changes the index");
    }

    @Test
    void aPutOfADamagedKeySucceedsAfterTheNodesRepairAndTheNewValueReadsBack()
    {
        final long word = damagedKey();
        final int candidate = node.candidateHolding("k", word);
        assertEquals(Status.CORRUPTED, other.get("k"), "before the repair");

        final int mark = other.mark();
        assertEquals(Status.OK, other.put("k", "repaired"));

        assertEquals(1, node.repairs().size());
        final RepairMessage repair = node.repairs().getFirst();
        assertEquals(word, repair.word());
        assertEquals(candidate % 14, repair.slot());
        assertArrayEquals(NodeRegion.bytes("k"), repair.key());
        assertEquals(1, other.doorbellsSince(mark).stream().filter(REPAIR::equals).count());
        assertEquals(1, other.count(ClientCounter.REPAIRED_SLOTS));
        assertEquals(1, node.slotsHolding("k").size(), "inserted afresh, once");
        assertEquals(Status.OK, other.get("k"));
        assertEquals("repaired", other.value());
        assertEquals(Status.OK, writer.get("k"));
        assertEquals("repaired", writer.value(), "a stale cached slot is not trusted");
    }

    @Test
    void aPutOfAKeyWhoseSlotPointsOutsideTheDataAreaSucceeds()
    {
        final long word = outsideKey();
        assertEquals(Status.CORRUPTED, other.get("k"));
        assertEquals(Status.OK, other.put("k", "v2"));
        assertEquals(word, node.repairs().getFirst().word());
        assertEquals(16 - 14, node.repairs().getFirst().slot(), "candidate 16 is slot 2 of the second group");
        assertTrue(node.slot("k", 16) != word, "the damaged word is gone");
        assertEquals(Status.OK, writer.get("k"));
        assertEquals("v2", writer.value());
    }

    @Test
    void aDeleteOfADamagedKeySucceedsAndTheKeyIsGone()
    {
        final long word = damagedKey();
        final int candidate = node.candidateHolding("k", word);
        assertEquals(Status.OK, other.delete("k"), "the key existed, damaged");
        assertEquals(SlotWord.EMPTY, node.slot("k", candidate));
        assertEquals(1, node.repairs().size());
        assertEquals(Status.NOT_FOUND, other.get("k"));
        assertEquals(Status.NOT_FOUND, writer.get("k"));
        assertEquals(Status.NOT_FOUND, other.delete("k"), "a second DELETE finds nothing");
        assertTrue(node.frees().stream().noneMatch(f -> f.offset() == SlotWord.blockOffset(word)),
            "a damaged block is not FREEd by the client");
    }

    @Test
    void whenTheNodeSaysRetryTheWriterWaitsAndAsksAgain()
    {
        damagedKey();
        node.retryRepairs(2);
        assertEquals(Status.OK, other.put("k", "after the grace period"));
        assertEquals(3, node.repairs().size());
        assertEquals(Status.OK, other.get("k"));
        assertEquals("after the grace period", other.value());
    }

    @Test
    void aRefusedRepairLeavesTheSlotAndTheWriteFailsCorruptedSayingWhy()
    {
        final long word = damagedKey();
        final int candidate = node.candidateHolding("k", word);
        node.refuseRepairs(RepairRefusal.ANOTHER_KEYS_BLOCK);
        assertEquals(Status.CORRUPTED, other.put("k", "v2"));
        assertEquals(Status.CORRUPTED, other.delete("k"));
        assertEquals(word, node.slot("k", candidate));
        assertTrue(other.lane().lastRepairRefusal().contains("ANOTHER_KEYS_BLOCK"), other.lane().lastRepairRefusal());
        assertEquals(Status.CORRUPTED, other.get("k"));
        assertEquals("", other.lane().lastRepairRefusal(), "a new operation forgets the last refusal");
        assertTrue(Arrays.stream(node.slots("k")).anyMatch(w -> w == word));
    }
}
