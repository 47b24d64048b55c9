package io.rdmakv.verbs.ibverbs.layout;

import java.lang.foreign.StructLayout;
import java.nio.ByteOrder;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * Layout of {@code struct ibv_device_attr}, what {@code ibv_query_device} fills: 232 bytes, align 8.
 * Every member is named so that the layout test checks the whole struct.
 */
public final class IbvDeviceAttr
{
    public static final StructLayout LAYOUT = CStruct.struct("ibv_device_attr",
        CStruct.chars("fw_ver", 64),
        JAVA_LONG.withOrder(ByteOrder.BIG_ENDIAN).withName("node_guid"),
        JAVA_LONG.withOrder(ByteOrder.BIG_ENDIAN).withName("sys_image_guid"),
        JAVA_LONG.withName("max_mr_size"),
        JAVA_LONG.withName("page_size_cap"),
        JAVA_INT.withName("vendor_id"),
        JAVA_INT.withName("vendor_part_id"),
        JAVA_INT.withName("hw_ver"),
        JAVA_INT.withName("max_qp"),
        JAVA_INT.withName("max_qp_wr"),
        JAVA_INT.withName("device_cap_flags"),
        JAVA_INT.withName("max_sge"),
        JAVA_INT.withName("max_sge_rd"),
        JAVA_INT.withName("max_cq"),
        JAVA_INT.withName("max_cqe"),
        JAVA_INT.withName("max_mr"),
        JAVA_INT.withName("max_pd"),
        JAVA_INT.withName("max_qp_rd_atom"),
        JAVA_INT.withName("max_ee_rd_atom"),
        JAVA_INT.withName("max_res_rd_atom"),
        JAVA_INT.withName("max_qp_init_rd_atom"),
        JAVA_INT.withName("max_ee_init_rd_atom"),
        JAVA_INT.withName("atomic_cap"),
        JAVA_INT.withName("max_ee"),
        JAVA_INT.withName("max_rdd"),
        JAVA_INT.withName("max_mw"),
        JAVA_INT.withName("max_raw_ipv6_qp"),
        JAVA_INT.withName("max_raw_ethy_qp"),
        JAVA_INT.withName("max_mcast_grp"),
        JAVA_INT.withName("max_mcast_qp_attach"),
        JAVA_INT.withName("max_total_mcast_qp_attach"),
        JAVA_INT.withName("max_ah"),
        JAVA_INT.withName("max_fmr"),
        JAVA_INT.withName("max_map_per_fmr"),
        JAVA_INT.withName("max_srq"),
        JAVA_INT.withName("max_srq_wr"),
        JAVA_INT.withName("max_srq_sge"),
        JAVA_SHORT.withName("max_pkeys"),
        JAVA_BYTE.withName("local_ca_ack_delay"),
        JAVA_BYTE.withName("phys_port_cnt"));

    static final long FW_VER = CStruct.offset(LAYOUT, "fw_ver");
    static final long NODE_GUID = CStruct.offset(LAYOUT, "node_guid");
    public static final long MAX_MR_SIZE = CStruct.offset(LAYOUT, "max_mr_size");
    public static final long VENDOR_ID = CStruct.offset(LAYOUT, "vendor_id");
    public static final long VENDOR_PART_ID = CStruct.offset(LAYOUT, "vendor_part_id");
    public static final long MAX_QP_WR = CStruct.offset(LAYOUT, "max_qp_wr");
    public static final long MAX_SGE = CStruct.offset(LAYOUT, "max_sge");
    public static final long MAX_CQE = CStruct.offset(LAYOUT, "max_cqe");
    public static final long MAX_QP_RD_ATOM = CStruct.offset(LAYOUT, "max_qp_rd_atom");
    public static final long MAX_QP_INIT_RD_ATOM = CStruct.offset(LAYOUT, "max_qp_init_rd_atom");
    public static final long ATOMIC_CAP = CStruct.offset(LAYOUT, "atomic_cap");
    public static final long PHYS_PORT_CNT = CStruct.offset(LAYOUT, "phys_port_cnt");

    private IbvDeviceAttr()
    {
    }
}
