package io.rdmakv.client.internal.op;

import io.rdmakv.client.internal.lane.ClientCounter;
import io.rdmakv.peer.Status;
import io.rdmakv.common.hash.KeyHash;
import io.rdmakv.common.layout.SlotWord;
import io.rdmakv.verbs.QpState;
import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.Collections;
import java.util.List;

import static io.rdmakv.client.internal.op.Doorbells.READ_BLOCK;
import static io.rdmakv.client.internal.op.Doorbells.READ_GROUPS;
import static io.rdmakv.client.internal.op.Doorbells.READ_SLOT_BLOCK;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/** GET: cached and cold round trips, reads too slow to trust, and blocks that never validate. */
class ReadPathTest
{
    private final CachedNanoClock clock = new CachedNanoClock();
    private final NodeRegion node = new NodeRegion();
    private final TestLane writer = new TestLane(node, clock, 7);
    private final TestLane reader = new TestLane(node, clock, 8);

    @AfterEach
    void close()
    {
        writer.close();
        reader.close();
        node.close();
    }

    @Test
    void getWithACachedSlotIsOneDoorbellOfSlotAndBlock()
    {
        assertEquals(Status.OK, writer.put("k", "v"));
        final long version = writer.version();

        final int mark = writer.mark();
        assertEquals(Status.OK, writer.get("k"));

        assertEquals(List.of(READ_SLOT_BLOCK), writer.doorbellsSince(mark));
        assertEquals("v", writer.value());
        assertEquals(version, writer.version());
        assertEquals(1, writer.count(ClientCounter.CACHE_HITS));
    }

    @Test
    void getFromAColdLaneIsTwoDoorbellsAndSeesTheSameValueAndVersion()
    {
        assertEquals(Status.OK, writer.put("k", "v"));

        final int mark = reader.mark();
        assertEquals(Status.OK, reader.get("k"));

        assertEquals(List.of(READ_GROUPS, READ_BLOCK), reader.doorbellsSince(mark));
        assertEquals("v", reader.value());
        assertEquals(writer.version(), reader.version());

        final int cached = reader.mark();
        assertEquals(Status.OK, reader.get("k"));
        assertEquals(List.of(READ_SLOT_BLOCK), reader.doorbellsSince(cached));
    }

    @Test
    void aReadThatTakesHalfTheGracePeriodIsNotTrustedAndIsRetried()
    {
        assertEquals(Status.OK, writer.put("k", "v"));
        reader.nic().beforeNext(READ_BLOCK, () -> clock.advance(TestLane.TRUST_NANOS));

        final int mark = reader.mark();
        assertEquals(Status.OK, reader.get("k"));

        assertEquals(List.of(READ_GROUPS, READ_BLOCK, READ_GROUPS, READ_BLOCK), reader.doorbellsSince(mark));
        assertEquals(1, reader.count(ClientCounter.VALIDATION_RETRIES));
        assertEquals("v", reader.value());
    }

    @Test
    void aReadJustUnderHalfTheGracePeriodIsTrusted()
    {
        assertEquals(Status.OK, writer.put("k", "v"));
        reader.nic().beforeNext(READ_BLOCK, () -> clock.advance(TestLane.TRUST_NANOS - 1));

        final int mark = reader.mark();
        assertEquals(Status.OK, reader.get("k"));

        assertEquals(List.of(READ_GROUPS, READ_BLOCK), reader.doorbellsSince(mark));
        assertEquals(0, reader.count(ClientCounter.VALIDATION_RETRIES));
    }

    @Test
    void aBlockWithABadChecksumIsCorruptedAfterExactlyTheVerdictsTriesAndItsValueIsNeverReturned()
    {
        assertEquals(Status.OK, writer.put("k", "v"));
        final long word = writer.version();
        node.damage(word);

        final int mark = reader.mark();
        assertEquals(Status.CORRUPTED, reader.get("k"));

        final List<String> doorbells = reader.doorbellsSince(mark);
        assertEquals(BlockSearch.CORRUPTION_VERDICT, Collections.frequency(doorbells, READ_BLOCK));
        assertEquals(BlockSearch.CORRUPTION_VERDICT, Collections.frequency(doorbells, READ_GROUPS));
        assertEquals(BlockSearch.CORRUPTION_VERDICT - 1, reader.count(ClientCounter.VALIDATION_RETRIES));
        assertNotEquals(word, reader.version(), "no version of a damaged block is reported");
        assertEquals(QpState.RTS, reader.nic().state(), "the lane still works");

        assertEquals(Status.CORRUPTED, writer.get("k"), "a cached slot does not bypass the check");
    }

    @Test
    void aSlotPointingOutsideTheDataAreaIsCorruptedWithoutReadingIt()
    {
        final int fingerprint = KeyHash.fingerprint(KeyHash.hash(NodeRegion.bytes("k")));
        final long outside = node.geometry().dataLength() >> SlotWord.UNIT_SHIFT;
        node.slot("k", 5, SlotWord.encode(fingerprint, 1, outside));

        final int mark = reader.mark();
        assertEquals(Status.CORRUPTED, reader.get("k"));

        final List<String> doorbells = reader.doorbellsSince(mark);
        assertEquals(Collections.nCopies(BlockSearch.CORRUPTION_VERDICT, READ_GROUPS), doorbells);
        assertEquals(QpState.RTS, reader.nic().state(), "no access outside the data region was attempted");
    }
}
