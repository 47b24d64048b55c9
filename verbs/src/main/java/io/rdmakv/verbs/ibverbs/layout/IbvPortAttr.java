package io.rdmakv.verbs.ibverbs.layout;

import java.lang.foreign.StructLayout;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * Layout of {@code struct ibv_port_attr}: 52 bytes, align 4.
 *
 * <p>{@code ibv_query_port} is a macro in {@code verbs.h}; the exported symbol of that name is the
 * compatibility entry point, which fills only the first 48 bytes ({@code struct _compat_ibv_port_attr}).
 * rdmakv calls it on a zeroed buffer of this full size, so {@code port_cap_flags2} reads as 0.
 */
public final class IbvPortAttr
{
    public static final StructLayout LAYOUT = CStruct.struct("ibv_port_attr",
        JAVA_INT.withName("state"),
        JAVA_INT.withName("max_mtu"),
        JAVA_INT.withName("active_mtu"),
        JAVA_INT.withName("gid_tbl_len"),
        JAVA_INT.withName("port_cap_flags"),
        JAVA_INT.withName("max_msg_sz"),
        JAVA_INT.withName("bad_pkey_cntr"),
        JAVA_INT.withName("qkey_viol_cntr"),
        JAVA_SHORT.withName("pkey_tbl_len"),
        JAVA_SHORT.withName("lid"),
        JAVA_SHORT.withName("sm_lid"),
        JAVA_BYTE.withName("lmc"),
        JAVA_BYTE.withName("max_vl_num"),
        JAVA_BYTE.withName("sm_sl"),
        JAVA_BYTE.withName("subnet_timeout"),
        JAVA_BYTE.withName("init_type_reply"),
        JAVA_BYTE.withName("active_width"),
        JAVA_BYTE.withName("active_speed"),
        JAVA_BYTE.withName("phys_state"),
        JAVA_BYTE.withName("link_layer"),
        JAVA_BYTE.withName("flags"),
        JAVA_SHORT.withName("port_cap_flags2"));

    public static final long STATE = CStruct.offset(LAYOUT, "state");
    static final long MAX_MTU = CStruct.offset(LAYOUT, "max_mtu");
    public static final long ACTIVE_MTU = CStruct.offset(LAYOUT, "active_mtu");
    public static final long GID_TBL_LEN = CStruct.offset(LAYOUT, "gid_tbl_len");
    static final long MAX_MSG_SZ = CStruct.offset(LAYOUT, "max_msg_sz");
    public static final long LID = CStruct.offset(LAYOUT, "lid");
    public static final long LINK_LAYER = CStruct.offset(LAYOUT, "link_layer");
    static final int SIZE = (int)LAYOUT.byteSize();

    private IbvPortAttr()
    {
    }
}
