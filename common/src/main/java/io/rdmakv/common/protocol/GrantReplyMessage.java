package io.rdmakv.common.protocol;

import io.rdmakv.common.protocol.wire.MessageHeaderDescriptor;
import io.rdmakv.common.protocol.wire.MessageReader;
import io.rdmakv.common.protocol.wire.MessageType;
import io.rdmakv.common.protocol.wire.MessageWriter;

import java.util.Set;

/**
 * The answer to a {@link GrantMessage}: one class for the three, whose body is one value.
 * <ul>
 *   <li>WINDOW_BOUND: the rkey of the window now bound over the extent on the session's queue pair (or, on a node
 *       without memory windows, the data area's own rkey);</li>
 *   <li>GRANT_CHECKED: 1 when the session holds that grant, 0 when not;</li>
 *   <li>GRANT_REVOKED: how many windows were deallocated.</li>
 * </ul>
 *
 * <pre>
 *  16 value      u32
 *  20 reserved   u32   zero
 * </pre>
 */
public record GrantReplyMessage(MessageType type, long requestId, int value) implements ControlMessage
{
    /** The message types this class carries. */
    public static final Set<MessageType> TYPES =
        Set.of(MessageType.WINDOW_BOUND, MessageType.GRANT_CHECKED, MessageType.GRANT_REVOKED);

    public static final int VALUE_OFFSET = MessageHeaderDescriptor.HEADER_LENGTH;
    public static final int LENGTH = VALUE_OFFSET + Long.BYTES;

    public GrantReplyMessage
    {
        if (!TYPES.contains(type))
        {
            throw new IllegalArgumentException(type + " is not a grant reply (" + TYPES + ")");
        }
        if (type == MessageType.GRANT_CHECKED && value != 0 && value != 1)
        {
            throw new IllegalArgumentException("GRANT_CHECKED of " + value + ", must be 0 or 1");
        }
        if (type == MessageType.GRANT_REVOKED && value < 0)
        {
            throw new IllegalArgumentException("GRANT_REVOKED of " + value + " windows");
        }
    }

    public static GrantReplyMessage bound(final long requestId, final int rkey)
    {
        return new GrantReplyMessage(MessageType.WINDOW_BOUND, requestId, rkey);
    }

    public static GrantReplyMessage checked(final long requestId, final boolean granted)
    {
        return new GrantReplyMessage(MessageType.GRANT_CHECKED, requestId, granted ? 1 : 0);
    }

    public static GrantReplyMessage revoked(final long requestId, final int windows)
    {
        return new GrantReplyMessage(MessageType.GRANT_REVOKED, requestId, windows);
    }

    /** {@code message} when it is a reply of type {@code type}, else null. */
    public static GrantReplyMessage as(final MessageType type, final ControlMessage message)
    {
        return message instanceof GrantReplyMessage reply && reply.type == type ? reply : null;
    }

    @Override
    public int encodedLength()
    {
        return LENGTH;
    }

    void encodeBody(final MessageWriter writer)
    {
        writer.u32(value).u32(0);
    }

    static GrantReplyMessage decode(final MessageType type, final MessageReader reader, final long requestId)
    {
        final int value = reader.u32("value");
        final int reserved = reader.u32("reserved");
        if (reserved != 0)
        {
            throw new IllegalArgumentException("reserved field is " + Integer.toUnsignedString(reserved) +
                ", must be 0");
        }
        return new GrantReplyMessage(type, requestId, value);
    }
}
