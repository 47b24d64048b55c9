package io.rdmakv.common.protocol;

import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.layout.MapAreaDescriptor;
import io.rdmakv.common.layout.RegionGeometry;
import io.rdmakv.common.layout.RegionHeader;
import io.rdmakv.common.layout.RegionHeaderDescriptor;
import io.rdmakv.common.layout.RegionLayoutException;
import io.rdmakv.common.protocol.wire.ClusterMapCodec;
import io.rdmakv.common.protocol.wire.MalformedMessageException;
import io.rdmakv.common.protocol.wire.MessageHeaderDescriptor;
import io.rdmakv.common.protocol.wire.MessageReader;
import io.rdmakv.common.protocol.wire.MessageType;
import io.rdmakv.common.protocol.wire.MessageWriter;
import io.rdmakv.common.protocol.wire.RemoteRegion;
import io.rdmakv.verbs.QueuePairEndpoint;

import java.lang.foreign.MemorySegment;

import static io.rdmakv.common.protocol.wire.MalformedMessageException.Kind.BAD_FIELD;
import static io.rdmakv.common.protocol.wire.MalformedMessageException.Kind.BAD_VERSION;

/**
 * HELLO_OK, server to client over the bootstrap connection: the session is open. Says where the region
 * is, how it is laid out and what the cluster looks like; the client then connects its queue pair to the
 * server's and needs nothing more to start reading.
 *
 * <pre>
 *   16 protocol_version     u32
 *   20 endpoint_length      u16   at most {@value HelloMessage#MAX_ENDPOINT_LENGTH}
 *   22 flags                u16   bit 0 ({@link #NODE_ASSISTED_WRITES}): clients cannot CAS this node's index (its
 *                                device has no remote atomics, or the operator said so): they send each index CAS
 *                                as SLOT_CAS ({@link SlotCasMessage}); other bits zero (a reader refuses them)
 *   24 index_mr_address     u64   memory region 1: header + index (REMOTE_READ | REMOTE_ATOMIC)
 *   32 index_mr_length      u64
 *   40 index_mr_rkey        u32
 *   44 data_mr_rkey         u32
 *   48 data_mr_address      u64   memory region 2: the data area (REMOTE_READ | REMOTE_WRITE)
 *   56 data_mr_length       u64
 *   64 session_id           u64   nonzero; the client's insert-lock word
 *   72 grace_nanos          u64   how long freed space waits before reuse (see SpaceTiming)
 *   80 cluster_map_length   u32
 *   84 heartbeat_interval_ms u32  how often the client sends HEARTBEAT on this connection; the node fences a
 *                                session that sends no whole frame for its lease timeout (0: send none)
 *   88 region_header        {@link RegionHeaderDescriptor#USED_LENGTH} bytes: the node's region header exactly as
 *                                it lies at the start of the region (magic, layout version, node id, geometry; see
 *                                {@link RegionHeaderDescriptor}): the one encoding of the geometry
 *  224 cm_port              u16   0: connect the queue pairs by exchanging their endpoints (the one below); else
 *                                the port of the node's rdma_cm listener: connect through rdma_cm ({@link CmTicket})
 *  226 reserved             u16   zero
 *  228 reserved             u32   zero
 *  232 cm_token             16 bytes: the token of the session's rdma_cm connect request (zero with cm_port 0)
 *  248 cm_address           16 bytes: the rdma_cm listener's IPv6 address, IPv4 as ::ffff:a.b.c.d (zero with
 *                                cm_port 0)
 *  264 map_area_address     u64   the node's map area ({@link MapAreaDescriptor}: REMOTE_READ only), where it
 *  272 map_area_length      u32   publishes the map it serves; {@link MapAreaDescriptor#LENGTH}, or all three
 *  276 map_area_rkey        u32   zero: none
 *  280 endpoint             the server's queue pair, {@link QueuePairEndpoint#toBytes()}
 *   .. cluster map          cluster_map_length bytes, the map in binary ({@link ClusterMapCodec}; no JSON parser
 *                                on a client's connect path)
 * </pre>
 *
 * The index memory region starts at the region's first byte (so a slot's remote address is {@code
 * index_mr_address + index_offset + slot offset}); the data memory region starts at the data area (so a
 * block's remote address is {@code data_mr_address + block offset}). A reader checks the header's magic
 * and layout version: a node of another layout version is refused with both versions named
 * ({@link MalformedMessageException.Kind#BAD_VERSION}).
 */
public record HelloOkMessage(
    long requestId,
    int protocolVersion,
    int nodeId,
    QueuePairEndpoint serverEndpoint,
    RemoteRegion indexRegion,
    RemoteRegion dataRegion,
    RegionGeometry geometry,
    ClusterMap clusterMap,
    long sessionId,
    long graceNanos,
    int heartbeatIntervalMs,
    int flags,
    CmTicket cmTicket,
    RemoteRegion mapArea) implements ControlMessage
{
    /** {@link #flags()}: clients must not CAS the index with RDMA atomics; they ask the node ({@link SlotCasMessage}). */
    public static final int NODE_ASSISTED_WRITES = 1;
    /** Every flag this build knows. */
    public static final int KNOWN_FLAGS = NODE_ASSISTED_WRITES;
    /** The rdma_cm part's fixed fields before the token: port u16, two reserved fields (u16, u32). */
    private static final int CM_FIELDS_LENGTH = 8;
    /** Where the map area's fields start (address u64, length u32, rkey u32). */
    public static final int MAP_AREA_OFFSET = MessageHeaderDescriptor.HEADER_LENGTH + 72 +
        RegionHeaderDescriptor.USED_LENGTH + CM_FIELDS_LENGTH + CmTicket.TOKEN_LENGTH + CmTicket.ADDRESS_LENGTH;
    private static final int MAP_AREA_FIELDS_LENGTH = 16;

    /** Where the variable part (endpoint, cluster map) starts: the fixed part's length. */
    public static final int ENDPOINT_OFFSET = MAP_AREA_OFFSET + MAP_AREA_FIELDS_LENGTH;

    /** The longest cluster map that fits beside the longest endpoint. */
    public static final int MAX_CLUSTER_MAP_LENGTH =
        MessageHeaderDescriptor.MAX_BOOTSTRAP_MESSAGE_LENGTH - ENDPOINT_OFFSET - HelloMessage.MAX_ENDPOINT_LENGTH;

    public HelloOkMessage
    {
        if (serverEndpoint == null || indexRegion == null || dataRegion == null || geometry == null)
        {
            throw new IllegalArgumentException("HELLO_OK needs an endpoint, both memory regions and a geometry");
        }
        if (sessionId == 0 || graceNanos < 0)
        {
            throw new IllegalArgumentException("HELLO_OK needs a nonzero session id and a grace period >= 0");
        }
        if (heartbeatIntervalMs < 0)
        {
            throw new IllegalArgumentException("heartbeat interval of " + Integer.toUnsignedString(heartbeatIntervalMs) +
                " ms is over the limit of " + Integer.MAX_VALUE);
        }
        if (clusterMap == null)
        {
            throw new IllegalArgumentException("HELLO_OK needs a cluster map");
        }
        if ((flags & ~KNOWN_FLAGS) != 0)
        {
            throw new IllegalArgumentException("HELLO_OK flags 0x" + Integer.toHexString(flags) + ": this build knows 0x" +
                Integer.toHexString(KNOWN_FLAGS));
        }
        final int mapLength = ClusterMapCodec.encodedLength(clusterMap);
        if (mapLength > MAX_CLUSTER_MAP_LENGTH)
        {
            throw new IllegalArgumentException(
                "cluster map of " + mapLength + " bytes is over the limit of " + MAX_CLUSTER_MAP_LENGTH);
        }
        if (indexRegion.length() < geometry.headerAndIndexLength())
        {
            throw new IllegalArgumentException(
                "index memory region of " + indexRegion.length() + " bytes does not cover the header and index (" +
                geometry.headerAndIndexLength() + " bytes)");
        }
        if (dataRegion.length() != geometry.dataLength())
        {
            throw new IllegalArgumentException(
                "data memory region of " + dataRegion.length() + " bytes is not the data area (" +
                geometry.dataLength() + " bytes)");
        }
        if (mapArea != null && mapArea.length() != MapAreaDescriptor.LENGTH)
        {
            throw new IllegalArgumentException("map area of " + mapArea.length() + " bytes: a map area has " +
                MapAreaDescriptor.LENGTH);
        }
    }

    /** As the canonical constructor, without a map area. */
    public HelloOkMessage(
        final long requestId,
        final int protocolVersion,
        final int nodeId,
        final QueuePairEndpoint serverEndpoint,
        final RemoteRegion indexRegion,
        final RemoteRegion dataRegion,
        final RegionGeometry geometry,
        final ClusterMap clusterMap,
        final long sessionId,
        final long graceNanos,
        final int heartbeatIntervalMs,
        final int flags,
        final CmTicket cmTicket)
    {
        this(requestId, protocolVersion, nodeId, serverEndpoint, indexRegion, dataRegion, geometry, clusterMap,
            sessionId, graceNanos, heartbeatIntervalMs, flags, cmTicket, null);
    }

    /** A HELLO_OK of this build's protocol version, for queue pairs connected by exchange (no rdma_cm ticket). */
    public HelloOkMessage(
        final long requestId,
        final int nodeId,
        final QueuePairEndpoint serverEndpoint,
        final RemoteRegion indexRegion,
        final RemoteRegion dataRegion,
        final RegionGeometry geometry,
        final ClusterMap clusterMap,
        final long sessionId,
        final long graceNanos,
        final int heartbeatIntervalMs)
    {
        this(requestId, MessageHeaderDescriptor.PROTOCOL_VERSION, nodeId, serverEndpoint, indexRegion, dataRegion,
            geometry, clusterMap, sessionId, graceNanos, heartbeatIntervalMs);
    }

    /** A HELLO_OK of {@code protocolVersion}: one-sided writes, queue pairs connected by exchange. */
    public HelloOkMessage(
        final long requestId,
        final int protocolVersion,
        final int nodeId,
        final QueuePairEndpoint serverEndpoint,
        final RemoteRegion indexRegion,
        final RemoteRegion dataRegion,
        final RegionGeometry geometry,
        final ClusterMap clusterMap,
        final long sessionId,
        final long graceNanos,
        final int heartbeatIntervalMs)
    {
        this(requestId, protocolVersion, nodeId, serverEndpoint, indexRegion, dataRegion, geometry, clusterMap,
            sessionId, graceNanos, heartbeatIntervalMs, 0, null);
    }

    /** Whether clients send this node's index CASes as SLOT_CAS instead of RDMA atomics. */
    public boolean nodeAssistedWrites()
    {
        return (flags & NODE_ASSISTED_WRITES) != 0;
    }

    @Override
    public MessageType type()
    {
        return MessageType.HELLO_OK;
    }

    @Override
    public int encodedLength()
    {
        return ENDPOINT_OFFSET + serverEndpoint.encodedLength() + ClusterMapCodec.encodedLength(clusterMap);
    }

    void encodeBody(final MessageWriter writer)
    {
        final byte[] endpointBytes = serverEndpoint.toBytes();
        final byte[] map = ClusterMapCodec.encode(clusterMap);
        final byte[] header = new byte[RegionHeaderDescriptor.USED_LENGTH];
        new RegionHeader().wrap(MemorySegment.ofArray(header)).initialise(geometry, nodeId);
        writer.u32(protocolVersion).u16(endpointBytes.length).u16(flags)
            .u64(indexRegion.address()).u64(indexRegion.length()).u32(indexRegion.rkey())
            .u32(dataRegion.rkey()).u64(dataRegion.address()).u64(dataRegion.length())
            .u64(sessionId).u64(graceNanos).u32(map.length).u32(heartbeatIntervalMs)
            .bytes(header)
            .u16(cmTicket == null ? 0 : cmTicket.port()).u16(0).u32(0)
            .bytes(cmTicket == null ? new byte[CmTicket.TOKEN_LENGTH] : cmTicket.token())
            .bytes(cmTicket == null ? new byte[CmTicket.ADDRESS_LENGTH] : CmTicket.addressBytes(cmTicket.address()))
            .u64(mapArea == null ? 0 : mapArea.address()).u32(mapArea == null ? 0 : (int)mapArea.length())
            .u32(mapArea == null ? 0 : mapArea.rkey())
            .bytes(endpointBytes).bytes(map);
    }

    static HelloOkMessage decode(final MessageReader reader, final long requestId)
    {
        final int version = reader.u32("protocol version");
        if (version != MessageHeaderDescriptor.PROTOCOL_VERSION)
        {
            throw new MalformedMessageException(
                BAD_VERSION, "HELLO_OK of protocol version " + version + ": this build speaks version " +
                MessageHeaderDescriptor.PROTOCOL_VERSION);
        }
        final int endpointLength = reader.length(
            reader.u16("endpoint length"), HelloMessage.MAX_ENDPOINT_LENGTH, "endpoint");
        final int flags = reader.u16("flags");
        final long indexAddress = reader.u64("index region address");
        final long indexLength = reader.u64("index region length");
        final int indexRkey = reader.u32("index region rkey");
        final int dataRkey = reader.u32("data region rkey");
        final long dataAddress = reader.u64("data region address");
        final long dataLength = reader.u64("data region length");
        final long sessionId = reader.u64("session id");
        final long graceNanos = reader.u64("grace nanos");
        final int mapLength = reader.length(reader.u32("cluster map length"), MAX_CLUSTER_MAP_LENGTH, "cluster map");
        final int heartbeatIntervalMs = reader.u32("heartbeat interval");
        final RegionHeader header = new RegionHeader().wrap(MemorySegment.ofArray(
            reader.bytes(RegionHeaderDescriptor.USED_LENGTH, "region header")));
        final int cmPort = reader.u16("cm port");
        if (reader.u16("reserved") != 0 || reader.u32("reserved") != 0)
        {
            throw new MalformedMessageException(BAD_FIELD, "HELLO_OK: reserved bytes after the cm port are not zero");
        }
        final byte[] cmToken = reader.bytes(CmTicket.TOKEN_LENGTH, "cm token");
        final byte[] cmAddress = reader.bytes(CmTicket.ADDRESS_LENGTH, "cm address");
        final long mapAreaAddress = reader.u64("map area address");
        final long mapAreaLength = Integer.toUnsignedLong(reader.u32("map area length"));
        final int mapAreaRkey = reader.u32("map area rkey");
        final boolean noMapArea = mapAreaAddress == 0 && mapAreaLength == 0 && mapAreaRkey == 0;
        if (!noMapArea && mapAreaLength != MapAreaDescriptor.LENGTH)
        {
            throw new MalformedMessageException(BAD_FIELD, "HELLO_OK: a map area of " + mapAreaLength +
                " bytes (a map area has " + MapAreaDescriptor.LENGTH + ", or none is all zero)");
        }
        final QueuePairEndpoint endpoint = HelloMessage.decodeEndpoint(
            reader.bytes(endpointLength, "endpoint"), reader.type());
        final byte[] mapBytes = reader.bytes(mapLength, "cluster map");
        try
        {
            header.checkVersion();
        }
        catch (final RegionLayoutException ex)
        {
            throw new MalformedMessageException(BAD_VERSION, "HELLO_OK: " + ex.getMessage(), ex);
        }
        final ClusterMap clusterMap = ClusterMapCodec.decode(mapBytes);
        try
        {
            return new HelloOkMessage(
                requestId, version, header.nodeId(), endpoint, new RemoteRegion(indexAddress, indexLength, indexRkey),
                new RemoteRegion(dataAddress, dataLength, dataRkey), header.geometry(), clusterMap, sessionId,
                graceNanos, heartbeatIntervalMs, flags,
                cmPort == 0 ? null : new CmTicket(CmTicket.address(cmAddress), cmPort, cmToken),
                noMapArea ? null : new RemoteRegion(mapAreaAddress, mapAreaLength, mapAreaRkey));
        }
        catch (final IllegalArgumentException | RegionLayoutException ex)
        {
            throw new MalformedMessageException(BAD_FIELD, "HELLO_OK: " + ex.getMessage(), ex);
        }
    }

    @Override
    public boolean equals(final Object o)
    {
        return o instanceof HelloOkMessage m && requestId == m.requestId && protocolVersion == m.protocolVersion &&
            nodeId == m.nodeId && serverEndpoint.equals(m.serverEndpoint) && indexRegion.equals(m.indexRegion) &&
            dataRegion.equals(m.dataRegion) && geometry.equals(m.geometry) &&
            clusterMap.equals(m.clusterMap) && sessionId == m.sessionId && graceNanos == m.graceNanos &&
            heartbeatIntervalMs == m.heartbeatIntervalMs && flags == m.flags &&
            java.util.Objects.equals(cmTicket, m.cmTicket) && java.util.Objects.equals(mapArea, m.mapArea);
    }

    @Override
    public int hashCode()
    {
        return (Long.hashCode(requestId) * 31 + nodeId) * 31 + geometry.hashCode() + clusterMap.hashCode();
    }

    @Override
    public String toString()
    {
        return "HelloOkMessage{requestId=" + requestId + " protocolVersion=" + protocolVersion + " nodeId=" + nodeId +
            " serverEndpoint=" + serverEndpoint + " indexRegion=" + indexRegion + " dataRegion=" + dataRegion +
            " geometry=" + geometry +  " clusterMap=" + clusterMap + " sessionId=" + sessionId + " graceNanos=" + graceNanos +
            " heartbeatIntervalMs=" + heartbeatIntervalMs + " flags=" + flags + " cmTicket=" + cmTicket + " mapArea=" + mapArea + "}";
    }
}
