package io.rdmakv.common.protocol;

import io.rdmakv.common.LittleEndian;
import io.rdmakv.common.protocol.wire.MalformedMessageException;
import io.rdmakv.common.protocol.wire.MessageHeaderDescriptor;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** SLOT_CAS and its reply written and read in place (the data path) agree with the records the codec decodes. */
class SlotCasMessagesTest
{
    @Test
    void writtenInPlaceDecodesToTheRecord()
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment s = arena.allocate(4096);
            SlotCasMessage.begin(s, 100, 77);
            SlotCasMessage.entry(s, 100, 0, 4096 + 8, 0, 0x2A00_4000_0000_0040L);
            SlotCasMessage.entry(s, 100, 1, 4096 + 64, 5, 0);
            final int length = SlotCasMessage.finish(s, 100, 2);
            assertEquals(SlotCasMessage.lengthOf(2), length);
            assertEquals(new SlotCasMessage(77, new long[] {4096 + 8, 4096 + 64}, new long[] {0, 5},
                new long[] {0x2A00_4000_0000_0040L, 0}), ControlCodec.decode(s, 100, length));
            assertEquals(2, SlotCasMessage.count(s, 100, length));
            assertEquals(4096 + 64, SlotCasMessage.regionOffset(s, 100, 1));
            assertEquals(5, SlotCasMessage.expected(s, 100, 1));
            assertEquals(0x2A00_4000_0000_0040L, SlotCasMessage.swap(s, 100, 0));
            assertEquals(-1, SlotCasMessage.count(s, 100, length - 8), "a length that disagrees with the count");
            s.set(LittleEndian.U32, 100 + SlotCasMessage.COUNT_OFFSET, 0);
            assertEquals(-1, SlotCasMessage.count(s, 100, length), "a count of 0");
            assertThrows(IllegalArgumentException.class, () -> SlotCasMessage.finish(s, 100, 17));

            final int replyLength = SlotCasReplyMessage.begin(s, 1000, 77, 2);
            SlotCasReplyMessage.seen(s, 1000, 0, 0);
            SlotCasReplyMessage.seen(s, 1000, 1, -1L);
            assertEquals(new SlotCasReplyMessage(77, new long[] {0, -1L}), ControlCodec.decode(s, 1000, replyLength));
            assertEquals(2, SlotCasReplyMessage.count(s, 1000, replyLength, 2));
            assertEquals(-1, SlotCasReplyMessage.count(s, 1000, replyLength, 1), "not the count asked");
            assertEquals(-1L, SlotCasReplyMessage.seen(s, 1000, 1));
            MessageHeaderDescriptor.write(s, 2000, io.rdmakv.common.protocol.wire.MessageType.ERROR, replyLength, 77);
            assertEquals(-1, SlotCasReplyMessage.count(s, 2000, replyLength, 2), "another type");
        }
    }

    @Test
    void helloOkCarriesTheWritePathAndRefusesUnknownFlags()
    {
        assertFalse(Samples.helloOk().nodeAssistedWrites());
        final HelloOkMessage assisted = Samples.helloOkNodeAssisted();
        assertTrue(assisted.nodeAssistedWrites());
        final byte[] bytes = ControlCodec.toBytes(assisted);
        assertEquals(assisted, ControlCodec.fromBytes(bytes));
        assertEquals(HelloOkMessage.NODE_ASSISTED_WRITES, LittleEndian.u16(MemorySegment.ofArray(bytes), 22));
        LittleEndian.u16(MemorySegment.ofArray(bytes), 22, 3);
        assertThrows(MalformedMessageException.class, () -> ControlCodec.fromBytes(bytes));
    }
}
