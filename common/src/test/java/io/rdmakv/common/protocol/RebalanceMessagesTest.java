package io.rdmakv.common.protocol;

import io.rdmakv.common.LittleEndian;
import io.rdmakv.common.protocol.wire.MalformedMessageException.Kind;
import io.rdmakv.common.protocol.wire.MessageHeaderDescriptor;
import io.rdmakv.common.protocol.wire.MessageType;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

import static io.rdmakv.common.protocol.WireEdits.malformed;
import static io.rdmakv.common.protocol.WireEdits.resized;
import static io.rdmakv.common.protocol.WireEdits.withU16;
import static io.rdmakv.common.protocol.WireEdits.withU32;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** REBALANCE and REBALANCE_OK ({@code kvctl rebalance}): bytes where the diagrams say, and what is refused. */
class RebalanceMessagesTest
{
    private static final String JSON = "{\"moves\":[{\"partitions\":[3,5],\"target\":1}],\"cancel\":[]}";

    @Test
    void pinsTheLayouts()
    {
        assertEquals(16, RebalanceMessage.FLAGS_OFFSET);
        assertEquals(18, RebalanceMessage.JSON_LENGTH_OFFSET);
        assertEquals(24, RebalanceMessage.JSON_OFFSET);
        assertEquals(4072, RebalanceMessage.MAX_JSON_LENGTH);
        assertEquals(MessageHeaderDescriptor.MAX_MESSAGE_LENGTH, RebalanceMessage.MAX_LENGTH,
            "a request fills at most one receive buffer");
        assertEquals(16, RebalanceOkMessage.OUTCOME_OFFSET);
        assertEquals(18, RebalanceOkMessage.TEXT_LENGTH_OFFSET);
        assertEquals(24, RebalanceOkMessage.TEXT_OFFSET);
        assertEquals(32, MessageType.REBALANCE.code());
        assertEquals(33, MessageType.REBALANCE_OK.code());
    }

    @Test
    void encodesRebalanceByteForByte()
    {
        final byte[] bytes = ControlCodec.toBytes(new RebalanceMessage(9, true, "{}"));
        assertEquals("2000" + "0000" + "1a000000" + "0900000000000000" + "0100" + "0200" + "00000000" + "7b7d",
            HexFormat.of().formatHex(bytes));
        final RebalanceMessage request = (RebalanceMessage)ControlCodec.fromBytes(
            ControlCodec.toBytes(new RebalanceMessage(10, false, JSON)));
        assertFalse(request.dryRun());
        assertEquals(JSON, request.json());
        assertTrue(((RebalanceMessage)ControlCodec.fromBytes(bytes)).dryRun());
    }

    @Test
    void encodesRebalanceOkWhereTheDiagramSays()
    {
        final String text = "cannot move [3] -> group 9: group 9 does not exist";
        final MemorySegment s = MemorySegment.ofArray(ControlCodec.toBytes(
            new RebalanceOkMessage(4, RebalanceOkMessage.Outcome.WOULD_WAIT, text)));
        assertEquals(2, LittleEndian.u16(s, RebalanceOkMessage.OUTCOME_OFFSET));
        assertEquals(text.length(), LittleEndian.u16(s, RebalanceOkMessage.TEXT_LENGTH_OFFSET));
        final RebalanceOkMessage back = (RebalanceOkMessage)ControlCodec.fromBytes(ControlCodec.toBytes(
            new RebalanceOkMessage(5, RebalanceOkMessage.Outcome.REQUESTED, "requested")));
        assertEquals(RebalanceOkMessage.Outcome.REQUESTED, back.outcome());
        assertEquals("requested", back.text());
    }

    @Test
    void aRequestMustHaveJsonAndFitOneReceiveBuffer()
    {
        assertThrows(IllegalArgumentException.class, () -> new RebalanceMessage(1, false, ""));
        assertThrows(IllegalArgumentException.class, () -> new RebalanceMessage(1, false, null));
        final String longest = "x".repeat(RebalanceMessage.MAX_JSON_LENGTH);
        assertEquals(4096, ControlCodec.toBytes(new RebalanceMessage(1, false, longest)).length);
        final IllegalArgumentException over = assertThrows(IllegalArgumentException.class,
            () -> new RebalanceMessage(1, false, longest + "x"));
        assertTrue(over.getMessage().contains("4073 bytes"), over.getMessage());
        // counted in UTF-8 bytes, not characters
        assertThrows(IllegalArgumentException.class,
            () -> new RebalanceMessage(1, false, "é".repeat(RebalanceMessage.MAX_JSON_LENGTH / 2 + 1)));
    }

    @Test
    void aLongAnswerIsCutNotUnsendable()
    {
        final RebalanceOkMessage m = new RebalanceOkMessage(1, RebalanceOkMessage.Outcome.WOULD_WAIT, "y".repeat(5000));
        assertEquals(1024, m.text().getBytes(StandardCharsets.UTF_8).length);
        assertEquals(m, ControlCodec.fromBytes(ControlCodec.toBytes(m)));
        assertThrows(IllegalArgumentException.class, () -> new RebalanceOkMessage(1, null, "x"));
    }

    @Test
    void refusesMalformedRebalance()
    {
        final byte[] good = ControlCodec.toBytes(new RebalanceMessage(7, false, JSON));
        malformed(withU16(good, RebalanceMessage.FLAGS_OFFSET, 2), Kind.BAD_FIELD);
        malformed(withU32(good, RebalanceMessage.JSON_LENGTH_OFFSET + 2, 1), Kind.BAD_FIELD);
        malformed(withU16(good, RebalanceMessage.JSON_LENGTH_OFFSET, JSON.length() + 1), Kind.BAD_LENGTH);
        malformed(withU16(good, RebalanceMessage.JSON_LENGTH_OFFSET, JSON.length() - 1), Kind.BAD_LENGTH);
        malformed(withU16(good, RebalanceMessage.JSON_LENGTH_OFFSET, 0), Kind.BAD_FIELD);
        malformed(withU16(good, RebalanceMessage.JSON_LENGTH_OFFSET, RebalanceMessage.MAX_JSON_LENGTH + 1),
            Kind.OVERSIZED);
        malformed(resized(good, RebalanceMessage.JSON_OFFSET), Kind.BAD_LENGTH);
        malformed(resized(good, RebalanceMessage.MAX_LENGTH + 1), Kind.BAD_LENGTH);
        malformed(good, good.length - 1, Kind.TRUNCATED);
    }

    @Test
    void refusesMalformedRebalanceOk()
    {
        final byte[] good = ControlCodec.toBytes(
            new RebalanceOkMessage(8, RebalanceOkMessage.Outcome.WOULD_ACT, "the coordinator could act"));
        malformed(withU16(good, RebalanceOkMessage.OUTCOME_OFFSET, 3), Kind.BAD_FIELD);
        malformed(withU32(good, RebalanceOkMessage.TEXT_LENGTH_OFFSET + 2, 1), Kind.BAD_FIELD);
        malformed(withU16(good, RebalanceOkMessage.TEXT_LENGTH_OFFSET, 1025), Kind.OVERSIZED);
        malformed(withU16(good, RebalanceOkMessage.TEXT_LENGTH_OFFSET, 2), Kind.BAD_LENGTH);
        malformed(resized(good, RebalanceOkMessage.TEXT_OFFSET - 1), Kind.BAD_LENGTH);
    }
}
