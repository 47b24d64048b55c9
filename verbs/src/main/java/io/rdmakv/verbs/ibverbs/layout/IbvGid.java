package io.rdmakv.verbs.ibverbs.layout;

import java.lang.foreign.UnionLayout;
import java.nio.ByteOrder;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Layout of {@code union ibv_gid}: 16 bytes in network order, align 8 (because of the {@code __be64}
 * halves). rdmakv treats a GID as 16 raw bytes.
 *
 * <pre>
 *   0 raw[16] | global.subnet_prefix be64, global.interface_id be64
 * </pre>
 */
final class IbvGid
{
    static final UnionLayout LAYOUT = CStruct.union("ibv_gid",
        CStruct.chars("raw", 16),
        CStruct.struct("global",
            JAVA_LONG.withOrder(ByteOrder.BIG_ENDIAN).withName("subnet_prefix"),
            JAVA_LONG.withOrder(ByteOrder.BIG_ENDIAN).withName("interface_id")));

    static final long RAW = CStruct.offset(LAYOUT, "raw");
    static final int SIZE = (int)LAYOUT.byteSize();

    private IbvGid()
    {
    }
}
