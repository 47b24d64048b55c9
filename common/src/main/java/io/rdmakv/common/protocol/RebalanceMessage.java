package io.rdmakv.common.protocol;

import io.rdmakv.common.protocol.wire.MessageHeaderDescriptor;
import io.rdmakv.common.protocol.wire.MessageReader;
import io.rdmakv.common.protocol.wire.MessageType;
import io.rdmakv.common.protocol.wire.MessageWriter;

import java.nio.charset.StandardCharsets;

/**
 * REBALANCE, client to any node of a ZooKeeper cluster ({@code kvctl rebalance}): the operator's move request, as the
 * JSON the node writes to {@code rebalance/request} ({@code {"moves": [{"partitions": [..], "target": g, "groups":
 * n}], "cancel": [ids]}}, docs/growth.md §14). The node answers REBALANCE_OK, or ERROR for a request it cannot parse
 * or take (a static cluster, ZooKeeper unreachable). With {@link #dryRun} the node writes nothing and says whether
 * the coordinator could act on the request now.
 *
 * <pre>
 *  16 flags         u16   bit 0: dry run; the others zero
 *  18 json_length   u16   1..{@value #MAX_JSON_LENGTH}
 *  20 reserved      u32   zero
 *  24 json          json_length bytes of UTF-8
 * </pre>
 *
 * The JSON is not parsed here (the codec carries it; the node judges it).
 */
public record RebalanceMessage(long requestId, boolean dryRun, String json) implements ControlMessage
{
    public static final int FLAGS_OFFSET = MessageHeaderDescriptor.HEADER_LENGTH;
    public static final int JSON_LENGTH_OFFSET = FLAGS_OFFSET + Short.BYTES;
    public static final int JSON_OFFSET = JSON_LENGTH_OFFSET + Short.BYTES + Integer.BYTES;
    /** The longest request, in UTF-8 bytes: what fits in a receive buffer after the fields. */
    public static final int MAX_JSON_LENGTH = MessageHeaderDescriptor.MAX_MESSAGE_LENGTH - JSON_OFFSET;
    public static final int MAX_LENGTH = JSON_OFFSET + MAX_JSON_LENGTH;
    /** Flag bit 0. */
    public static final int DRY_RUN = 1;

    public RebalanceMessage
    {
        final int length = json == null ? 0 : json.getBytes(StandardCharsets.UTF_8).length;
        if (length == 0 || length > MAX_JSON_LENGTH)
        {
            throw new IllegalArgumentException("a rebalance request of " + length + " bytes of JSON: it must have 1.." +
                MAX_JSON_LENGTH);
        }
    }

    @Override
    public MessageType type()
    {
        return MessageType.REBALANCE;
    }

    @Override
    public int encodedLength()
    {
        return JSON_OFFSET + json.getBytes(StandardCharsets.UTF_8).length;
    }

    void encodeBody(final MessageWriter writer)
    {
        final byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        writer.u16(dryRun ? DRY_RUN : 0).u16(bytes.length).u32(0).bytes(bytes);
    }

    static RebalanceMessage decode(final MessageReader reader, final long requestId)
    {
        final int flags = reader.u16("flags");
        if ((flags & ~DRY_RUN) != 0)
        {
            throw new IllegalArgumentException("flags 0x" + Integer.toHexString(flags) + " has bits other than dry run");
        }
        final int length = reader.length(reader.u16("json length"), MAX_JSON_LENGTH, "json");
        if (reader.u32("reserved") != 0)
        {
            throw new IllegalArgumentException("reserved field is not zero");
        }
        return new RebalanceMessage(requestId, (flags & DRY_RUN) != 0,
            new String(reader.bytes(length, "json"), StandardCharsets.UTF_8));
    }
}
