package io.rdmakv.common.protocol;

/**
 * HEARTBEAT, client to server on the bootstrap connection (never over RDMA): the client is alive and keeps
 * its session's lease. Sent every {@code heartbeat_interval_ms} the node gave in HELLO_OK; a node that
 * reads no whole frame for its lease timeout fences the session and reclaims what it held. The header
 * alone: no body; {@code request_id} is the client's count of heartbeats on this connection (the node
 * ignores it, it helps a packet capture).
 */
public record HeartbeatMessage(long requestId) implements ControlMessage
{
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
