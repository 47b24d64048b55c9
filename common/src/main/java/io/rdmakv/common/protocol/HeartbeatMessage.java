package io.rdmakv.common.protocol;

import io.rdmakv.common.protocol.wire.MalformedMessageException;
import io.rdmakv.common.protocol.wire.MessageHeaderDescriptor;
import io.rdmakv.common.protocol.wire.MessageReader;
import io.rdmakv.common.protocol.wire.MessageType;
import io.rdmakv.common.protocol.wire.MessageWriter;

import static io.rdmakv.common.protocol.wire.MalformedMessageException.Kind.BAD_FIELD;

/**
 * HEARTBEAT on the bootstrap connection (never over RDMA), both ways:
 * <ul>
 *   <li>client to node: the client is alive and keeps its session's lease. Sent every {@code
 *       heartbeat_interval_ms} the node gave in HELLO_OK; a node that reads no whole frame for its lease
 *       timeout fences the session and reclaims what it held. Its {@link #epoch()} is the oldest cluster map
 *       epoch under which an operation of this client may still be running on the node: the lowest epoch of the
 *       routers its operations in progress entered with, else its current map's;</li>
 *   <li>node to client: the answer, only while the node can confirm it is current in its cluster, with the
 *       client's {@code request_id}. It grants the client a <b>read lease</b>: the client trusts one-sided READs
 *       of this node until {@link #READ_LEASE_INTERVALS} heartbeat intervals after it <em>sent</em> the heartbeat
 *       answered (HELLO_OK grants the same from the HELLO's sending). The promotion wait of a replicated cluster
 *       covers this lease, so a deposed node is read by nobody once its successor serves. Its {@link #epoch()} is
 *       the epoch of the map the node has applied (its map area holds that map by then): a client whose map is
 *       older fetches the node's.</li>
 * </ul>
 *
 * <pre>
 *   16 epoch    u64   0 .. 2^63 - 1 (0: no map)
 * </pre>
 * {@code request_id} is the client's count of heartbeats on this connection; the answer carries the count it
 * answers.
 */
public record HeartbeatMessage(long requestId, long epoch) implements ControlMessage
{
    /**
     * The read lease, in heartbeat intervals from the sending of the HELLO or HEARTBEAT a node answered: three
     * intervals, so that one late or lost answer does not cost a lease. Nodes size their promotion wait with it.
     */
    public static final int READ_LEASE_INTERVALS = 3;
    public static final int EPOCH_OFFSET = MessageHeaderDescriptor.HEADER_LENGTH;
    /** The whole message: the header and the epoch. */
    public static final int LENGTH = EPOCH_OFFSET + Long.BYTES;

    public HeartbeatMessage
    {
        if (epoch < 0)
        {
            throw new IllegalArgumentException("heartbeat epoch " + Long.toUnsignedString(epoch) +
                " is over the limit of " + Long.MAX_VALUE);
        }
    }

    @Override
    public MessageType type()
    {
        return MessageType.HEARTBEAT;
    }

    @Override
    public int encodedLength()
    {
        return LENGTH;
    }

    void encodeBody(final MessageWriter writer)
    {
        writer.u64(epoch);
    }

    static HeartbeatMessage decode(final MessageReader reader, final long requestId)
    {
        final long epoch = reader.u64("epoch");
        if (epoch < 0)
        {
            throw new MalformedMessageException(BAD_FIELD, "HEARTBEAT epoch " + Long.toUnsignedString(epoch) +
                " is over the limit of " + Long.MAX_VALUE);
        }
        return new HeartbeatMessage(requestId, epoch);
    }
}
