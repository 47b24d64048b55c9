package io.rdmakv.common.protocol;

import io.rdmakv.common.protocol.wire.CodedText;
import io.rdmakv.common.protocol.wire.MessageHeaderDescriptor;
import io.rdmakv.common.protocol.wire.MessageReader;
import io.rdmakv.common.protocol.wire.MessageType;
import io.rdmakv.common.protocol.wire.MessageWriter;
import io.rdmakv.common.protocol.wire.RepairRefusal;
import java.nio.charset.StandardCharsets;

/**
 * REPAIR_REPLY, node to client: what became of a REPAIR.
 *
 * <pre>
 *  16 outcome       u16   0 REPAIRED, 1 RETRY, 2 REFUSED
 *  18 damage        u16   what the node found at the slot (a {@code SlotDamage} code; 0 when it did not look)
 *  20 code          u32   REFUSED: a {@link RepairRefusal} code; otherwise 0
 *  24 retry_after   u32   RETRY: milliseconds to wait before asking again; otherwise 0
 *  28 text_length   u16   at most 1024
 *  30 reserved      u16   zero
 *  32 text          text_length bytes of UTF-8: one line saying why, for logs and exceptions
 * </pre>
 *
 * <ul>
 *   <li><b>REPAIRED</b>: the node cleared the slot (compare-and-swap from the word to 0): the key is absent
 *       there now and the client carries on (a PUT inserts afresh, a DELETE is done).</li>
 *   <li><b>RETRY</b>: the block looks damaged but has not looked so for a grace period yet (or the node's
 *       own check was too slow to trust); ask again after {@code retry_after} ms.</li>
 *   <li><b>REFUSED</b>: the slot is not provably this key's damaged slot; {@code code} says why.</li>
 * </ul>
 */
public record RepairReplyMessage(long requestId, Outcome outcome, int damage, int code, int retryAfterMillis,
    String text) implements ControlMessage
{
    public static final int OUTCOME_OFFSET = MessageHeaderDescriptor.HEADER_LENGTH;
    public static final int DAMAGE_OFFSET = OUTCOME_OFFSET + Short.BYTES;
    public static final int CODE_OFFSET = DAMAGE_OFFSET + Short.BYTES;
    public static final int RETRY_AFTER_OFFSET = CODE_OFFSET + Integer.BYTES;
    public static final int TEXT_LENGTH_OFFSET = RETRY_AFTER_OFFSET + Integer.BYTES;
    public static final int TEXT_OFFSET = TEXT_LENGTH_OFFSET + Short.BYTES + Short.BYTES;
    public static final int MAX_LENGTH = TEXT_OFFSET + CodedText.MAX_TEXT_LENGTH;

    /** What became of the REPAIR; the wire value is the ordinal. */
    public enum Outcome
    {
        REPAIRED,
        RETRY,
        REFUSED
    }

    private static final Outcome[] OUTCOMES = Outcome.values();

    public RepairReplyMessage
    {
        text = CodedText.truncate(text, CodedText.MAX_TEXT_LENGTH);
        if (damage < 0 || damage > 0xFFFF || retryAfterMillis < 0)
        {
            throw new IllegalArgumentException(
                "REPAIR_REPLY damage " + damage + " outside 0..65535 or retry after " + retryAfterMillis + " ms");
        }
    }

    public static RepairReplyMessage repaired(final long requestId, final int damage, final String text)
    {
        return new RepairReplyMessage(requestId, Outcome.REPAIRED, damage, 0, 0, text);
    }

    public static RepairReplyMessage retry(final long requestId, final int damage, final int afterMillis,
        final String text)
    {
        return new RepairReplyMessage(requestId, Outcome.RETRY, damage, 0, afterMillis, text);
    }

    public static RepairReplyMessage refused(final long requestId, final int damage, final RepairRefusal why,
        final String text)
    {
        return new RepairReplyMessage(requestId, Outcome.REFUSED, damage, why.code(), 0, text);
    }

    /** REFUSED: why, or null for a code this build does not know (or another outcome). */
    public RepairRefusal refusal()
    {
        return outcome == Outcome.REFUSED ? RepairRefusal.of(code) : null;
    }

    @Override
    public MessageType type()
    {
        return MessageType.REPAIR_REPLY;
    }

    @Override
    public int encodedLength()
    {
        return TEXT_OFFSET + text.getBytes(StandardCharsets.UTF_8).length;
    }

    void encodeBody(final MessageWriter writer)
    {
        final byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        writer.u16(outcome.ordinal()).u16(damage).u32(code).u32(retryAfterMillis).u16(bytes.length).u16(0)
            .bytes(bytes);
    }

    static RepairReplyMessage decode(final MessageReader reader, final long requestId)
    {
        final int outcome = reader.u16("outcome");
        if (outcome >= OUTCOMES.length)
        {
            throw new IllegalArgumentException("outcome " + outcome + " is not 0..2");
        }
        final int damage = reader.u16("damage");
        final int code = reader.u32("code");
        final int retryAfter = reader.u32("retry after");
        if (retryAfter < 0)
        {
            throw new IllegalArgumentException("retry after " + (retryAfter & 0xFFFF_FFFFL) + " ms");
        }
        final String text = CodedText.decodeText(reader);
        return new RepairReplyMessage(requestId, OUTCOMES[outcome], damage, code, retryAfter, text);
    }
}
