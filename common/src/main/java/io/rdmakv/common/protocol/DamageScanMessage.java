package io.rdmakv.common.protocol;

import io.rdmakv.common.protocol.wire.MessageHeaderDescriptor;
import io.rdmakv.common.protocol.wire.MessageReader;
import io.rdmakv.common.protocol.wire.MessageType;
import io.rdmakv.common.protocol.wire.MessageWriter;

/**
 * DAMAGE_SCAN, client to node: "list the damaged slots of up to {@code max_groups} bucket groups from
 * {@code from_group}" (answered by DAMAGE_SCAN_OK). A tool walks the whole index page by page, each request
 * starting where the last reply's {@code next_group} says; the node bounds the work of one page itself.
 *
 * <pre>
 *  16 from_group   u64   the first group to look at
 *  24 max_groups   u32   at least 1; the node may look at fewer
 *  28 reserved     u32   zero
 * </pre>
 */
public record DamageScanMessage(long requestId, long fromGroup, int maxGroups) implements ControlMessage
{
    public static final int FROM_GROUP_OFFSET = MessageHeaderDescriptor.HEADER_LENGTH;
    public static final int MAX_GROUPS_OFFSET = FROM_GROUP_OFFSET + Long.BYTES;
    public static final int RESERVED_OFFSET = MAX_GROUPS_OFFSET + Integer.BYTES;
    public static final int LENGTH = RESERVED_OFFSET + Integer.BYTES;

    public DamageScanMessage
    {
        if (fromGroup < 0 || maxGroups < 1)
        {
            throw new IllegalArgumentException(
                "DAMAGE_SCAN from group " + fromGroup + " of " + maxGroups + " groups: from at least 0, at least 1 group");
        }
    }

    @Override
    public MessageType type()
    {
        return MessageType.DAMAGE_SCAN;
    }

    @Override
    public int encodedLength()
    {
        return LENGTH;
    }

    void encodeBody(final MessageWriter writer)
    {
        writer.u64(fromGroup).u32(maxGroups).u32(0);
    }

    static DamageScanMessage decode(final MessageReader reader, final long requestId)
    {
        final long from = reader.u64("from group");
        final int max = reader.u32("max groups");
        reader.u32("reserved");
        return new DamageScanMessage(requestId, from, max);
    }
}
