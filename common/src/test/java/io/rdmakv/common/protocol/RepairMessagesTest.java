package io.rdmakv.common.protocol;

import io.rdmakv.common.LittleEndian;
import io.rdmakv.common.protocol.wire.MalformedMessageException.Kind;
import io.rdmakv.common.protocol.wire.MalformedMessageException;
import io.rdmakv.common.protocol.wire.RepairRefusal;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;

import static io.rdmakv.common.protocol.WireEdits.malformed;
import static io.rdmakv.common.protocol.WireEdits.withU16;
import static io.rdmakv.common.protocol.WireEdits.withU32;
import static io.rdmakv.common.protocol.WireEdits.withU64;
import static io.rdmakv.common.protocol.WireEdits.resized;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** REPAIR, REPAIR_REPLY, DAMAGE_SCAN and DAMAGE_SCAN_OK: bytes where the diagrams say, and what is refused. */
class RepairMessagesTest
{
    private static final byte[] KEY = "victim".getBytes(StandardCharsets.UTF_8);

    @Test
    void encodesRepairByteForByte()
    {
        final byte[] bytes = ControlCodec.toBytes(new RepairMessage(9, 0x0102, 13, 0x2A00_4000_0000_0040L, KEY));
        assertEquals("0e00" + "0000" + "2e000000" + "0900000000000000" + "0201000000000000" + "0d00" + "0600" +
            "00000000" + "400000000040002a" + HexFormat.of().formatHex(KEY), HexFormat.of().formatHex(bytes));
        final RepairMessage back = (RepairMessage)ControlCodec.fromBytes(bytes);
        assertArrayEquals(KEY, back.key());
        assertEquals(0x2A00_4000_0000_0040L, back.word());
    }

    @Test
    void encodesRepairReplyFieldsWhereTheDiagramSays()
    {
        final MemorySegment s = MemorySegment.ofArray(ControlCodec.toBytes(
            RepairReplyMessage.retry(3, 4, 100, "later")));
        assertEquals(1, LittleEndian.u16(s, RepairReplyMessage.OUTCOME_OFFSET));
        assertEquals(4, LittleEndian.u16(s, RepairReplyMessage.DAMAGE_OFFSET));
        assertEquals(100, s.get(LittleEndian.U32, RepairReplyMessage.RETRY_AFTER_OFFSET));
        assertEquals(5, LittleEndian.u16(s, RepairReplyMessage.TEXT_LENGTH_OFFSET));
        final RepairReplyMessage refused = (RepairReplyMessage)ControlCodec.fromBytes(ControlCodec.toBytes(
            RepairReplyMessage.refused(4, 2, RepairRefusal.ANOTHER_KEYS_BLOCK, "it is k2's")));
        assertEquals(RepairRefusal.ANOTHER_KEYS_BLOCK, refused.refusal());
        assertEquals(6, RepairRefusal.ANOTHER_KEYS_BLOCK.code());
        assertEquals("code 99", RepairRefusal.describe(99));
    }

    @Test
    void encodesScanEntriesWhereTheDiagramSays()
    {
        final DamageScanOkMessage page = new DamageScanOkMessage(5, 10, 20, 4096, List.of(
            new DamageScanOkMessage.Entry(11, 3, 0x77L, 1, -1, new byte[0]),
            new DamageScanOkMessage.Entry(12, 4, 0x88L, 4, KEY.length, KEY)));
        final MemorySegment s = MemorySegment.ofArray(ControlCodec.toBytes(page));
        assertEquals(2, LittleEndian.u16(s, DamageScanOkMessage.COUNT_OFFSET));
        final int e0 = DamageScanOkMessage.ENTRIES_OFFSET;
        assertEquals(11, s.get(LittleEndian.U64, e0));
        assertEquals(0x77L, s.get(LittleEndian.U64, e0 + 8));
        assertEquals(DamageScanOkMessage.KEY_UNREADABLE, LittleEndian.u16(s, e0 + 20));
        final int e1 = e0 + DamageScanOkMessage.ENTRY_FIXED_LENGTH;
        assertEquals(4, LittleEndian.u16(s, e1 + 18));
        assertEquals(KEY.length, LittleEndian.u16(s, e1 + 22));
        assertEquals(e1 + DamageScanOkMessage.ENTRY_FIXED_LENGTH + KEY.length, page.encodedLength());
        assertEquals(page, ControlCodec.fromBytes(ControlCodec.toBytes(page)));
        assertTrue(new DamageScanOkMessage(1, 0, 4096, 4096, List.of()).done());
    }

    @Test
    void recordsRefuseWhatNoMessageHas()
    {
        assertThrows(IllegalArgumentException.class, () -> new RepairMessage(1, -1, 0, 5, KEY));
        assertThrows(IllegalArgumentException.class, () -> new RepairMessage(1, 0, 14, 5, KEY));
        assertThrows(IllegalArgumentException.class, () -> new RepairMessage(1, 0, 0, 0, KEY));
        assertThrows(IllegalArgumentException.class, () -> new RepairMessage(1, 0, 0, 5, new byte[1025]));
        assertThrows(IllegalArgumentException.class, () -> new DamageScanMessage(1, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> new DamageScanOkMessage(1, 5, 4, 9, List.of()));
        assertThrows(IllegalArgumentException.class, () -> new DamageScanOkMessage.Entry(1, 0, 5, 0, -1, new byte[0]));
        assertThrows(IllegalArgumentException.class, () -> new DamageScanOkMessage.Entry(1, 0, 5, 1, 3, new byte[2]));
        assertThrows(IllegalArgumentException.class, () -> RepairReplyMessage.retry(1, 0, -1, ""));
    }

    @Test
    void malformedRepairsAreRefusedByTheCodec()
    {
        final byte[] repair = ControlCodec.toBytes(new RepairMessage(1, 5, 2, 0x55L, KEY));
        malformed(withU16(repair, RepairMessage.SLOT_OFFSET, 14), Kind.BAD_FIELD);
        malformed(withU64(repair, RepairMessage.WORD_OFFSET, 0), Kind.BAD_FIELD);
        malformed(withU64(repair, RepairMessage.GROUP_OFFSET, -1), Kind.BAD_FIELD);
        malformed(withU16(repair, RepairMessage.KEY_LENGTH_OFFSET, 1025), Kind.OVERSIZED);
        malformed(withU16(repair, RepairMessage.KEY_LENGTH_OFFSET, KEY.length + 1), Kind.BAD_LENGTH);
        malformed(withU16(repair, RepairMessage.KEY_LENGTH_OFFSET, KEY.length - 1), Kind.BAD_LENGTH);
        malformed(resized(repair, RepairMessage.KEY_OFFSET - 1), Kind.BAD_LENGTH);
        malformed(resized(repair, RepairMessage.MAX_LENGTH + 1), Kind.BAD_LENGTH);
    }

    @Test
    void malformedRepliesAndScansAreRefusedByTheCodec()
    {
        final byte[] reply = ControlCodec.toBytes(RepairReplyMessage.repaired(1, 1, "ok"));
        malformed(withU16(reply, RepairReplyMessage.OUTCOME_OFFSET, 3), Kind.BAD_FIELD);
        malformed(withU32(reply, RepairReplyMessage.RETRY_AFTER_OFFSET, -1), Kind.BAD_FIELD);
        malformed(withU16(reply, RepairReplyMessage.TEXT_LENGTH_OFFSET, 1025), Kind.OVERSIZED);

        final byte[] scan = ControlCodec.toBytes(new DamageScanMessage(1, 0, 64));
        malformed(withU32(scan, DamageScanMessage.MAX_GROUPS_OFFSET, 0), Kind.BAD_FIELD);
        malformed(resized(scan, DamageScanMessage.LENGTH + 8), Kind.BAD_LENGTH);

        final byte[] page = ControlCodec.toBytes(new DamageScanOkMessage(1, 0, 2, 8, List.of(
            new DamageScanOkMessage.Entry(1, 3, 0x77L, 4, KEY.length, KEY))));
        malformed(withU16(page, DamageScanOkMessage.COUNT_OFFSET, 2), Kind.BAD_LENGTH);
        malformed(withU16(page, DamageScanOkMessage.COUNT_OFFSET, 0), Kind.BAD_LENGTH);
        malformed(withU64(page, DamageScanOkMessage.NEXT_GROUP_OFFSET, 9), Kind.BAD_FIELD);
        malformed(withU16(page, DamageScanOkMessage.ENTRIES_OFFSET + 18, 0), Kind.BAD_FIELD);
        malformed(withU16(page, DamageScanOkMessage.ENTRIES_OFFSET + 22, 300), Kind.OVERSIZED);
        malformed(withU16(page, DamageScanOkMessage.ENTRIES_OFFSET + 20, 2), Kind.BAD_FIELD);
    }
}
