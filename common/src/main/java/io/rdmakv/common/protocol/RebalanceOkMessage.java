package io.rdmakv.common.protocol;

import io.rdmakv.common.protocol.wire.CodedText;
import io.rdmakv.common.protocol.wire.MessageHeaderDescriptor;
import io.rdmakv.common.protocol.wire.MessageReader;
import io.rdmakv.common.protocol.wire.MessageType;
import io.rdmakv.common.protocol.wire.MessageWriter;

import java.nio.charset.StandardCharsets;

/**
 * REBALANCE_OK, node to client: what became of a REBALANCE, with one line of text for the operator.
 *
 * <pre>
 *  16 outcome       u16   0 REQUESTED, 1 WOULD_ACT, 2 WOULD_WAIT
 *  18 text_length   u16   at most 1024
 *  20 reserved      u32   zero
 *  24 text          text_length bytes of UTF-8
 * </pre>
 *
 * <ul>
 *   <li><b>REQUESTED</b>: the node wrote the request to {@code rebalance/request} (replacing one there); the text
 *       says whether the coordinator can act on it now, as the node sees the map.</li>
 *   <li><b>WOULD_ACT</b> (dry run): the coordinator could act on it in its next map, as the node sees the map and
 *       the live members; nothing was written.</li>
 *   <li><b>WOULD_WAIT</b> (dry run): it could not now; the text says why. Nothing was written.</li>
 * </ul>
 */
public record RebalanceOkMessage(long requestId, Outcome outcome, String text) implements ControlMessage
{
    public static final int OUTCOME_OFFSET = MessageHeaderDescriptor.HEADER_LENGTH;
    public static final int TEXT_LENGTH_OFFSET = OUTCOME_OFFSET + Short.BYTES;
    public static final int TEXT_OFFSET = TEXT_LENGTH_OFFSET + Short.BYTES + Integer.BYTES;
    public static final int MAX_LENGTH = TEXT_OFFSET + CodedText.MAX_TEXT_LENGTH;

    /** What became of the REBALANCE; the wire value is the ordinal. */
    public enum Outcome
    {
        REQUESTED,
        WOULD_ACT,
        WOULD_WAIT
    }

    private static final Outcome[] OUTCOMES = Outcome.values();

    public RebalanceOkMessage
    {
        if (outcome == null)
        {
            throw new IllegalArgumentException("REBALANCE_OK needs an outcome");
        }
        text = CodedText.truncate(text, CodedText.MAX_TEXT_LENGTH);
    }

    @Override
    public MessageType type()
    {
        return MessageType.REBALANCE_OK;
    }

    @Override
    public int encodedLength()
    {
        return TEXT_OFFSET + text.getBytes(StandardCharsets.UTF_8).length;
    }

    void encodeBody(final MessageWriter writer)
    {
        final byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        writer.u16(outcome.ordinal()).u16(bytes.length).u32(0).bytes(bytes);
    }

    static RebalanceOkMessage decode(final MessageReader reader, final long requestId)
    {
        final int outcome = reader.u16("outcome");
        if (outcome >= OUTCOMES.length)
        {
            throw new IllegalArgumentException("outcome " + outcome + " is not 0.." + (OUTCOMES.length - 1));
        }
        final int length = reader.length(reader.u16("text length"), CodedText.MAX_TEXT_LENGTH, "text");
        if (reader.u32("reserved") != 0)
        {
            throw new IllegalArgumentException("reserved field is not zero");
        }
        return new RebalanceOkMessage(requestId, OUTCOMES[outcome],
            new String(reader.bytes(length, "text"), StandardCharsets.UTF_8));
    }
}
