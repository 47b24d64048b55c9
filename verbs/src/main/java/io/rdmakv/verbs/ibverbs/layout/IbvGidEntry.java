package io.rdmakv.verbs.ibverbs.layout;

import java.lang.foreign.StructLayout;

import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * Layout of {@code struct ibv_gid_entry}, what {@code _ibv_query_gid_ex} fills: 32 bytes, align 8.
 *
 * <pre>
 *   0 gid           union ibv_gid (16)
 *  16 gid_index     u32
 *  20 port_num      u32
 *  24 gid_type      u32 (enum ibv_gid_type: IB 0, RoCE v1 1, RoCE v2 2)
 *  28 ndev_ifindex  u32
 * </pre>
 */
public final class IbvGidEntry
{
    public static final StructLayout LAYOUT = CStruct.struct("ibv_gid_entry",
        IbvGid.LAYOUT.withName("gid"),
        JAVA_INT.withName("gid_index"),
        JAVA_INT.withName("port_num"),
        JAVA_INT.withName("gid_type"),
        JAVA_INT.withName("ndev_ifindex"));

    public static final long GID = CStruct.offset(LAYOUT, "gid");
    public static final long GID_INDEX = CStruct.offset(LAYOUT, "gid_index");
    public static final long PORT_NUM = CStruct.offset(LAYOUT, "port_num");
    public static final long GID_TYPE = CStruct.offset(LAYOUT, "gid_type");
    static final long NDEV_IFINDEX = CStruct.offset(LAYOUT, "ndev_ifindex");
    public static final int SIZE = (int)LAYOUT.byteSize();

    private IbvGidEntry()
    {
    }
}
