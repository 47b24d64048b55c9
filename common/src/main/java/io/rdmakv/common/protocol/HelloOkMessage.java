package io.rdmakv.common.protocol;

import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.layout.RegionGeometry;
import io.rdmakv.verbs.QueuePairEndpoint;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import static io.rdmakv.common.protocol.MalformedMessageException.Kind.BAD_FIELD;
import static io.rdmakv.common.protocol.MalformedMessageException.Kind.BAD_VERSION;

/**
 * HELLO_OK, server to client over the bootstrap connection: the session is open. Says where the region
 * is, how it is laid out and what the cluster looks like; the client then connects its queue pair to the
 * server's and needs nothing more to start reading.
 *
 * <pre>
 *   16 protocol_version     u32
 *   20 node_id              u32
 *   24 index_mr_address     u64   memory region 1: header + index (REMOTE_READ | REMOTE_ATOMIC)
 *   32 index_mr_length      u64
 *   40 index_mr_rkey        u32
 *   44 data_mr_rkey         u32
 *   48 data_mr_address      u64   memory region 2: the data area (REMOTE_READ | REMOTE_WRITE)
 *   56 data_mr_length       u64
 *   64 region_length        u64   the geometry, as in the region header
 *   72 index_offset         u64
 *   80 index_length         u64
 *   88 bucket_count         u64
 *   96 data_offset          u64
 *  104 data_length          u64
 *  112 header_length        u32
 *  116 slots_per_bucket     u32
 *  120 buckets_per_group    u32
 *  124 chunk_size           u32
 *  128 max_key_length       u32
 *  132 max_value_length     u32
 *  136 session_id           u64   nonzero; the client's insert-lock word
 *  144 grace_nanos          u64   how long freed space waits before reuse (see SpaceTiming)
 *  152 endpoint_length      u16   at most {@value HelloMessage#MAX_ENDPOINT_LENGTH}
 *  154 reserved             u16   zero
 *  156 cluster_map_length   u32
 *  160 endpoint             the server's queue pair, {@link QueuePairEndpoint#toBytes()}
 *   .. cluster map          cluster_map_length bytes of UTF-8 JSON ({@link ClusterMap#toJson()})
 * </pre>
 *
 * The index memory region starts at the region's first byte (so a slot's remote address is {@code
 * index_mr_address + index_offset + slot offset}); the data memory region starts at the data area (so a
 * block's remote address is {@code data_mr_address + block offset}).
 */
public record HelloOkMessage(
    long requestId,
    int protocolVersion,
    int nodeId,
    QueuePairEndpoint serverEndpoint,
    RemoteRegion indexRegion,
    RemoteRegion dataRegion,
    RegionGeometry geometry,
    byte[] clusterMapJson,
    long sessionId,
    long graceNanos) implements ControlMessage
{
    public static final int PROTOCOL_VERSION_OFFSET = MessageHeaderDescriptor.HEADER_LENGTH;
    public static final int NODE_ID_OFFSET = PROTOCOL_VERSION_OFFSET + Integer.BYTES;
    public static final int INDEX_MR_ADDRESS_OFFSET = NODE_ID_OFFSET + Integer.BYTES;
    public static final int INDEX_MR_LENGTH_OFFSET = INDEX_MR_ADDRESS_OFFSET + Long.BYTES;
    public static final int INDEX_MR_RKEY_OFFSET = INDEX_MR_LENGTH_OFFSET + Long.BYTES;
    public static final int DATA_MR_RKEY_OFFSET = INDEX_MR_RKEY_OFFSET + Integer.BYTES;
    public static final int DATA_MR_ADDRESS_OFFSET = DATA_MR_RKEY_OFFSET + Integer.BYTES;
    public static final int DATA_MR_LENGTH_OFFSET = DATA_MR_ADDRESS_OFFSET + Long.BYTES;
    public static final int REGION_LENGTH_OFFSET = DATA_MR_LENGTH_OFFSET + Long.BYTES;
    public static final int INDEX_OFFSET_OFFSET = REGION_LENGTH_OFFSET + Long.BYTES;
    public static final int INDEX_LENGTH_OFFSET = INDEX_OFFSET_OFFSET + Long.BYTES;
    public static final int BUCKET_COUNT_OFFSET = INDEX_LENGTH_OFFSET + Long.BYTES;
    public static final int DATA_OFFSET_OFFSET = BUCKET_COUNT_OFFSET + Long.BYTES;
    public static final int DATA_LENGTH_OFFSET = DATA_OFFSET_OFFSET + Long.BYTES;
    public static final int HEADER_LENGTH_OFFSET = DATA_LENGTH_OFFSET + Long.BYTES;
    public static final int SLOTS_PER_BUCKET_OFFSET = HEADER_LENGTH_OFFSET + Integer.BYTES;
    public static final int BUCKETS_PER_GROUP_OFFSET = SLOTS_PER_BUCKET_OFFSET + Integer.BYTES;
    public static final int CHUNK_SIZE_OFFSET = BUCKETS_PER_GROUP_OFFSET + Integer.BYTES;
    public static final int MAX_KEY_LENGTH_OFFSET = CHUNK_SIZE_OFFSET + Integer.BYTES;
    public static final int MAX_VALUE_LENGTH_OFFSET = MAX_KEY_LENGTH_OFFSET + Integer.BYTES;
    public static final int SESSION_ID_OFFSET = MAX_VALUE_LENGTH_OFFSET + Integer.BYTES;
    public static final int GRACE_NANOS_OFFSET = SESSION_ID_OFFSET + Long.BYTES;
    public static final int ENDPOINT_LENGTH_OFFSET = GRACE_NANOS_OFFSET + Long.BYTES;
    public static final int RESERVED_OFFSET = ENDPOINT_LENGTH_OFFSET + Short.BYTES;
    public static final int CLUSTER_MAP_LENGTH_OFFSET = RESERVED_OFFSET + Short.BYTES;
    public static final int ENDPOINT_OFFSET = CLUSTER_MAP_LENGTH_OFFSET + Integer.BYTES;

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
        clusterMapJson = clusterMapJson == null ? new byte[0] : clusterMapJson.clone();
        if (clusterMapJson.length > MAX_CLUSTER_MAP_LENGTH)
        {
            throw new IllegalArgumentException(
                "cluster map of " + clusterMapJson.length + " bytes is over the limit of " + MAX_CLUSTER_MAP_LENGTH);
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
    }

    /** A HELLO_OK of this build's protocol version with the cluster map encoded. */
    public HelloOkMessage(
        final long requestId,
        final int nodeId,
        final QueuePairEndpoint serverEndpoint,
        final RemoteRegion indexRegion,
        final RemoteRegion dataRegion,
        final RegionGeometry geometry,
        final ClusterMap clusterMap,
        final long sessionId,
        final long graceNanos)
    {
        this(
            requestId, MessageHeaderDescriptor.PROTOCOL_VERSION, nodeId, serverEndpoint, indexRegion, dataRegion,
            geometry, clusterMap.toJson().getBytes(StandardCharsets.UTF_8), sessionId, graceNanos);
    }

    @Override
    public MessageType type()
    {
        return MessageType.HELLO_OK;
    }

    @Override
    public byte[] clusterMapJson()
    {
        return clusterMapJson.clone();
    }

    /** Parses the cluster map (allocates; session setup). */
    public ClusterMap clusterMap()
    {
        return ClusterMap.fromJson(clusterMapJson);
    }

    @Override
    public int encodedLength()
    {
        return ENDPOINT_OFFSET + serverEndpoint.encodedLength() + clusterMapJson.length;
    }

    void encodeBody(final MessageWriter writer)
    {
        final byte[] endpointBytes = serverEndpoint.toBytes();
        writer.u32(protocolVersion).u32(nodeId)
            .u64(indexRegion.address()).u64(indexRegion.length()).u32(indexRegion.rkey())
            .u32(dataRegion.rkey()).u64(dataRegion.address()).u64(dataRegion.length())
            .u64(geometry.regionLength()).u64(geometry.indexOffset()).u64(geometry.indexLength())
            .u64(geometry.bucketCount()).u64(geometry.dataOffset()).u64(geometry.dataLength())
            .u32(geometry.headerLength()).u32(geometry.slotsPerBucket()).u32(geometry.bucketsPerGroup())
            .u32(geometry.chunkSize()).u32(geometry.maxKeyLength()).u32(geometry.maxValueLength())
            .u64(sessionId).u64(graceNanos)
            .u16(endpointBytes.length).u16(0).u32(clusterMapJson.length)
            .bytes(endpointBytes).bytes(clusterMapJson);
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
        final int nodeId = reader.u32("node id");
        final long indexAddress = reader.u64("index region address");
        final long indexLength = reader.u64("index region length");
        final int indexRkey = reader.u32("index region rkey");
        final int dataRkey = reader.u32("data region rkey");
        final long dataAddress = reader.u64("data region address");
        final long dataLength = reader.u64("data region length");
        final long regionLength = reader.u64("region length");
        final long indexOffset = reader.u64("index offset");
        final long geometryIndexLength = reader.u64("index length");
        final long bucketCount = reader.u64("bucket count");
        final long dataOffset = reader.u64("data offset");
        final long geometryDataLength = reader.u64("data length");
        final int headerLength = reader.u32("header length");
        final int slotsPerBucket = reader.u32("slots per bucket");
        final int bucketsPerGroup = reader.u32("buckets per group");
        final int chunkSize = reader.u32("chunk size");
        final int maxKeyLength = reader.u32("max key length");
        final int maxValueLength = reader.u32("max value length");
        final long sessionId = reader.u64("session id");
        final long graceNanos = reader.u64("grace nanos");
        final int endpointLength = reader.length(
            reader.u16("endpoint length"), HelloMessage.MAX_ENDPOINT_LENGTH, "endpoint");
        reader.u16("reserved");
        final int mapLength = reader.length(reader.u32("cluster map length"), MAX_CLUSTER_MAP_LENGTH, "cluster map");
        final QueuePairEndpoint endpoint = HelloMessage.decodeEndpoint(
            reader.bytes(endpointLength, "endpoint"), reader.type());
        final byte[] clusterMap = reader.bytes(mapLength, "cluster map");
        try
        {
            final RegionGeometry geometry = new RegionGeometry(
                regionLength, headerLength, indexOffset, geometryIndexLength, bucketCount, slotsPerBucket,
                bucketsPerGroup, dataOffset, geometryDataLength, chunkSize, maxKeyLength, maxValueLength);
            return new HelloOkMessage(
                requestId, version, nodeId, endpoint, new RemoteRegion(indexAddress, indexLength, indexRkey),
                new RemoteRegion(dataAddress, dataLength, dataRkey), geometry, clusterMap, sessionId, graceNanos);
        }
        catch (final IllegalArgumentException ex)
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
            Arrays.equals(clusterMapJson, m.clusterMapJson) && sessionId == m.sessionId && graceNanos == m.graceNanos;
    }

    @Override
    public int hashCode()
    {
        return (Long.hashCode(requestId) * 31 + nodeId) * 31 + geometry.hashCode() + Arrays.hashCode(clusterMapJson);
    }

    @Override
    public String toString()
    {
        return "HelloOkMessage{requestId=" + requestId + " protocolVersion=" + protocolVersion + " nodeId=" + nodeId +
            " serverEndpoint=" + serverEndpoint + " indexRegion=" + indexRegion + " dataRegion=" + dataRegion +
            " geometry=" + geometry + " clusterMap=" + clusterMapJson.length + " bytes sessionId=" + sessionId + " graceNanos=" + graceNanos + "}";
    }
}
