package io.rdmakv.common.protocol;

import io.rdmakv.common.protocol.wire.MessageHeaderDescriptor;
import io.rdmakv.common.protocol.wire.MessageReader;
import io.rdmakv.common.protocol.wire.MessageType;
import io.rdmakv.common.protocol.wire.MessageWriter;

/**
 * HELP_REPLY, primary node to client: what became of a HELP.
 *
 * <pre>
 *  16 outcome   u16   0 HELPED, 1 REFUSED, 2 CHANGED
 *  18 reserved  u16   zero
 *  20 reserved  u32   zero
 *  24 slot      u64   the primary's slot word after the node's look (or its CAS)
 * </pre>
 *
 * <ul>
 *   <li><b>HELPED</b>: the primary's slot holds the word now (the node CASed it, or its writer had).</li>
 *   <li><b>REFUSED</b>: the word's block is no live session's (its writer is gone and fenced, its space
 *       reclaimed), or it is not a whole block of this key: the writer can never finish, so the client puts
 *       the backups back to the expected word.</li>
 *   <li><b>CHANGED</b>: the primary's slot holds neither word: read again.</li>
 * </ul>
 */
public record HelpReplyMessage(long requestId, Outcome outcome, long slot) implements ControlMessage
{
    public static final int OUTCOME_OFFSET = MessageHeaderDescriptor.HEADER_LENGTH;
    public static final int SLOT_OFFSET = OUTCOME_OFFSET + Long.BYTES;
    public static final int LENGTH = SLOT_OFFSET + Long.BYTES;

    /** What became of the HELP; the wire value is the ordinal. */
    public enum Outcome
    {
        HELPED,
        REFUSED,
        CHANGED
    }

    private static final Outcome[] OUTCOMES = Outcome.values();

    @Override
    public MessageType type()
    {
        return MessageType.HELP_REPLY;
    }

    @Override
    public int encodedLength()
    {
        return LENGTH;
    }

    void encodeBody(final MessageWriter writer)
    {
        writer.u16(outcome.ordinal()).u16(0).u32(0).u64(slot);
    }

    static HelpReplyMessage decode(final MessageReader reader, final long requestId)
    {
        final int outcome = reader.u16("outcome");
        if (outcome >= OUTCOMES.length)
        {
            throw new IllegalArgumentException("HELP_REPLY outcome " + outcome + " is not 0, 1 or 2");
        }
        reader.u16("reserved");
        reader.u32("reserved");
        return new HelpReplyMessage(requestId, OUTCOMES[outcome], reader.u64("slot"));
    }
}
