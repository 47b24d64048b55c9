package io.rdmakv.peer;

import io.rdmakv.common.protocol.wire.MessageHeaderDescriptor;


/**
 * Layout of a session's control buffers, at an offset of its registered memory that the owner chooses:
 *
 * <pre>
 *   0                     SEND      one outgoing control message
 *   CONTROL_LENGTH        RECV[0]   RECV_BUFFERS incoming control messages (notices and replies)
 *   ...
 *   LENGTH
 * </pre>
 */
public final class ControlArea
{
    /** The longest control message. */
    public static final int CONTROL_LENGTH = MessageHeaderDescriptor.MAX_MESSAGE_LENGTH;
    /** Receive buffers posted at once: replies and notices in flight. */
    public static final int RECV_BUFFERS = 4;
    /** Where the outgoing message is, from the area's start. */
    public static final int SEND = 0;
    /** The area's length. */
    public static final int LENGTH = (1 + RECV_BUFFERS) * CONTROL_LENGTH;

    private ControlArea()
    {
    }

    /** Where receive buffer {@code i} is, from the area's start. */
    public static int recv(final int i)
    {
        return CONTROL_LENGTH * (1 + i);
    }
}
