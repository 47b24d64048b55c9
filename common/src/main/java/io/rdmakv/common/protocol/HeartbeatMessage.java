package io.rdmakv.common.protocol;

import io.rdmakv.common.protocol.wire.MessageHeaderDescriptor;
import io.rdmakv.common.protocol.wire.MessageType;

/**
 * HEARTBEAT on the bootstrap connection (never over RDMA), both ways:
 * <ul>
 *   <li>client to node: the client is alive and keeps its session's lease. Sent every {@code
 *       heartbeat_interval_ms} the node gave in HELLO_OK; a node that reads no whole frame for its lease
 *       timeout fences the session and reclaims what it held;</li>
 *   <li>node to client: the same frame sent back, only while the node can confirm it is current in its
 *       cluster. It grants the client a <b>read lease</b>: the client trusts one-sided READs of this node
 *       until {@link #READ_LEASE_INTERVALS} heartbeat intervals after it <em>sent</em> the heartbeat answered
 *       (HELLO_OK grants the same from the HELLO's sending). The promotion wait of a replicated cluster
 *       covers this lease, so a deposed node is read by nobody once its successor serves.</li>
 * </ul>
 * The header alone: no body; {@code request_id} is the client's count of heartbeats on this connection, and
 * the echo carries the count it answers.
 */
public record HeartbeatMessage(long requestId) implements ControlMessage
{
    /**
     * The read lease, in heartbeat intervals from the sending of the HELLO or HEARTBEAT a node answered: three
     * intervals, so that one late or lost answer does not cost a lease. Nodes size their promotion wait with it.
     */
    public static final int READ_LEASE_INTERVALS = 3;

    @Override
    public MessageType type()
    {
        return MessageType.HEARTBEAT;
    }

    @Override
    public int encodedLength()
    {
        return MessageHeaderDescriptor.HEADER_LENGTH;
    }
}
