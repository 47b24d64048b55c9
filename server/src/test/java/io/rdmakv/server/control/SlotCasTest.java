package io.rdmakv.server.control;

import io.rdmakv.common.layout.BucketDescriptor;
import io.rdmakv.common.layout.RegionGeometry;
import io.rdmakv.common.layout.SlotWord;
import io.rdmakv.common.protocol.CodedRefusalMessage;
import io.rdmakv.common.protocol.ControlCodec;
import io.rdmakv.common.protocol.ControlMessage;
import io.rdmakv.common.protocol.SlotCasMessage;
import io.rdmakv.common.protocol.SlotCasReplyMessage;
import io.rdmakv.common.protocol.wire.MessageType;
import io.rdmakv.common.protocol.wire.ReasonCode;
import io.rdmakv.server.space.CpuIndexAtomics;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The node's checks of SLOT_CAS as hostile input: a word outside the index, misaligned, a group's MOVED mark, a
 * word frozen for a move (from or to), a
 * slot swapped to a word naming no block, another session's insert lock, a malformed count: each refuses the whole
 * request with its reason and changes nothing. A good request runs in order and answers the words seen before.
 */
class SlotCasTest
{
    private static final long SESSION = 0x5E55_1000L;
    private static final long REQUEST = 0;
    private static final long REPLY = 4096;

    private final Arena arena = Arena.ofConfined();
    private final RegionGeometry geometry = RegionGeometry.forMemory(32L << 20);
    private final MemorySegment region = arena.allocate(geometry.headerAndIndexLength(), 4096);
    private final MemorySegment buffers = arena.allocate(8192, 64);
    private final ServerCounters counters = new ServerCounters();
    private final SlotCas cas = new SlotCas(new CpuIndexAtomics(region), geometry, counters, true);
    private final long block = SlotWord.encodeBlock(0x2A, 64 * 10, 128);

    @AfterEach
    void close()
    {
        arena.close();
    }

    private long slot(final long group, final int slot)
    {
        return geometry.slotRegionOffset(group, slot);
    }

    private long lock(final long group)
    {
        return geometry.groupRegionOffset(group) + BucketDescriptor.INSERT_LOCK_OFFSET;
    }

    private ControlMessage send(final long[] offsets, final long[] expected, final long[] swaps)
    {
        SlotCasMessage.begin(buffers, REQUEST, 9);
        for (int i = 0; i < offsets.length; i++)
        {
            SlotCasMessage.entry(buffers, REQUEST, i, offsets[i], expected[i], swaps[i]);
        }
        final int length = SlotCasMessage.finish(buffers, REQUEST, offsets.length);
        final int replyLength = cas.serve(SESSION, buffers, REQUEST, length, REPLY);
        return ControlCodec.decode(buffers, REPLY, replyLength);
    }

    private void refused(final ReasonCode reason, final String words, final long offset, final long expected,
        final long swap)
    {
        // a good first entry: refused with the bad one, nothing ran
        final ControlMessage reply = send(new long[] {slot(3, 1), offset}, new long[] {0, expected},
            new long[] {block, swap});
        final CodedRefusalMessage error = CodedRefusalMessage.as(MessageType.ERROR, reply);
        assertNotNull(error, "refused: " + reply);
        assertEquals(9, error.requestId());
        assertEquals(reason.code(), error.code(), error.text());
        assertTrue(error.text().contains(words), error.text());
        assertEquals(0L, region.get(ValueLayout.JAVA_LONG, slot(3, 1)), "nothing of the request ran");
    }

    @Test
    void swapsInOrderAndAnswersTheWordsSeen()
    {
        region.set(ValueLayout.JAVA_LONG, slot(5, 7), block);
        final long other = SlotWord.encodeBlock(0x2A, 64 * 20, 64);
        final ControlMessage reply = send(new long[] {lock(5), slot(5, 0), slot(5, 7), lock(5)},
            new long[] {0, 0, other, SESSION}, new long[] {SESSION, other, 0, 0});
        assertEquals(new SlotCasReplyMessage(9, new long[] {0, 0, block, SESSION}), reply);
        assertEquals(other, region.get(ValueLayout.JAVA_LONG, slot(5, 0)));
        assertEquals(block, region.get(ValueLayout.JAVA_LONG, slot(5, 7)), "lost: the expected word was not there");
        assertEquals(0L, region.get(ValueLayout.JAVA_LONG, lock(5)), "taken, then given back");
        assertEquals(1, counters.get(ServerCounter.SLOT_CAS_REQUESTS));
        assertEquals(3, counters.get(ServerCounter.SLOT_CAS_SWAPPED));
        assertEquals(1, counters.get(ServerCounter.SLOT_CAS_LOST));
        assertEquals(1, counters.get(ServerCounter.NODE_ASSISTED_WRITES));
    }

    @Test
    void refusesWordsThatAreNoSlotOrLockOfTheIndex()
    {
        refused(ReasonCode.BAD_SLOT_CAS, "not 8-byte aligned", slot(2, 3) + 4, 0, block);
        refused(ReasonCode.BAD_SLOT_CAS, "outside the index", 16, 0, block);
        refused(ReasonCode.BAD_SLOT_CAS, "outside the index", geometry.indexOffset() - 8, 0, block);
        refused(ReasonCode.BAD_SLOT_CAS, "outside the index", geometry.indexOffset() + geometry.indexLength(), 0,
            block);
        refused(ReasonCode.BAD_SLOT_CAS, "outside the index", geometry.dataOffset() + 64, 0, block);
        refused(ReasonCode.BAD_SLOT_CAS, "outside the index", -8, 0, block);
        refused(ReasonCode.BAD_SLOT_CAS, "MOVED mark", geometry.groupRegionOffset(7), 0, SESSION);
        refused(ReasonCode.BAD_SLOT_CAS, "names no block", slot(2, 3), 0, SlotWord.encode(0x2A, 2,
            geometry.dataLength() / SlotWord.UNIT));
        refused(ReasonCode.BAD_SLOT_CAS, "names no block", slot(2, 3), 0, SlotWord.pack(0x2A, 0, 4));
        refused(ReasonCode.BAD_SLOT_CAS, "frozen for a move", slot(2, 3), 0, block | SlotWord.MOVING);
        refused(ReasonCode.BAD_SLOT_CAS, "frozen for a move", slot(2, 3), block | SlotWord.MOVING, block);
        refused(ReasonCode.BAD_SLOT_CAS, "frozen for a move", slot(2, 3), 0, SlotWord.FROZEN_EMPTY);
        assertEquals(12 * 2, counters.get(ServerCounter.SLOT_CAS_REFUSED));
        assertEquals(0, counters.get(ServerCounter.SLOT_CAS_REQUESTS));
    }

    @Test
    void refusesAnotherSessionsInsertLock()
    {
        refused(ReasonCode.BAD_SLOT_CAS, "insert lock", lock(4), 0, SESSION + 1);
        region.set(ValueLayout.JAVA_LONG, lock(4), SESSION + 1);
        refused(ReasonCode.BAD_SLOT_CAS, "insert lock", lock(4), SESSION + 1, 0);
        refused(ReasonCode.BAD_SLOT_CAS, "insert lock", lock(4), 0, block);
        assertEquals(SESSION + 1, region.get(ValueLayout.JAVA_LONG, lock(4)), "the other's lock stays");
    }

    @Test
    void refusesAMalformedCount()
    {
        SlotCasMessage.begin(buffers, REQUEST, 9);
        SlotCasMessage.entry(buffers, REQUEST, 0, slot(1, 1), 0, block);
        final int length = SlotCasMessage.finish(buffers, REQUEST, 1);
        buffers.set(ValueLayout.JAVA_INT_UNALIGNED, REQUEST + SlotCasMessage.COUNT_OFFSET, 2);
        final ControlMessage reply = ControlCodec.decode(buffers, REPLY, cas.serve(SESSION, buffers, REQUEST, length,
            REPLY));
        assertEquals(ReasonCode.MALFORMED_MESSAGE.code(), CodedRefusalMessage.as(MessageType.ERROR, reply).code());
        assertEquals(0L, region.get(ValueLayout.JAVA_LONG, slot(1, 1)));
    }

    @Test
    void aOneSidedNodeRefusesSlotCasAsUnexpected()
    {
        final SlotCas oneSided = new SlotCas(new CpuIndexAtomics(region), geometry, counters, false);
        SlotCasMessage.begin(buffers, REQUEST, 9);
        SlotCasMessage.entry(buffers, REQUEST, 0, slot(1, 1), 0, block);
        final int length = SlotCasMessage.finish(buffers, REQUEST, 1);
        final ControlMessage reply = ControlCodec.decode(buffers, REPLY,
            oneSided.serve(SESSION, buffers, REQUEST, length, REPLY));
        assertEquals(ReasonCode.UNEXPECTED_MESSAGE.code(), CodedRefusalMessage.as(MessageType.ERROR, reply).code());
        assertEquals(0L, region.get(ValueLayout.JAVA_LONG, slot(1, 1)));
        assertEquals(0, counters.get(ServerCounter.NODE_ASSISTED_WRITES));
    }

    @Test
    void aBatchOfSixteenRuns()
    {
        final long[] offsets = new long[SlotCasMessage.MAX_ENTRIES];
        final long[] expected = new long[offsets.length];
        final long[] swaps = new long[offsets.length];
        for (int i = 0; i < offsets.length; i++)
        {
            offsets[i] = slot(100 + i, i % BucketDescriptor.SLOTS_PER_GROUP);
            swaps[i] = SlotWord.encodeBlock(i, 64 * (i + 1), 64);
        }
        assertEquals(new SlotCasReplyMessage(9, new long[offsets.length]), send(offsets, expected, swaps));
        for (int i = 0; i < offsets.length; i++)
        {
            assertEquals(swaps[i], region.get(ValueLayout.JAVA_LONG, offsets[i]));
        }
    }
}
