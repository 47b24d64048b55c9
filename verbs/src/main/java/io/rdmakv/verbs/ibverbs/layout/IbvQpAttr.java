package io.rdmakv.verbs.ibverbs.layout;

import io.rdmakv.verbs.ibverbs.bindings.IbvConstants;

import java.lang.foreign.StructLayout;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * Layout of {@code struct ibv_qp_attr}, what {@code ibv_modify_qp} reads and {@code ibv_query_qp}
 * fills: 144 bytes, align 8. Which members count is given by the {@code IBV_QP_*} attribute mask
 * ({@link IbvConstants}).
 */
public final class IbvQpAttr
{
    public static final StructLayout LAYOUT = CStruct.struct("ibv_qp_attr",
        JAVA_INT.withName("qp_state"),
        JAVA_INT.withName("cur_qp_state"),
        JAVA_INT.withName("path_mtu"),
        JAVA_INT.withName("path_mig_state"),
        JAVA_INT.withName("qkey"),
        JAVA_INT.withName("rq_psn"),
        JAVA_INT.withName("sq_psn"),
        JAVA_INT.withName("dest_qp_num"),
        JAVA_INT.withName("qp_access_flags"),
        IbvQpCap.LAYOUT.withName("cap"),
        IbvAhAttr.LAYOUT.withName("ah_attr"),
        IbvAhAttr.LAYOUT.withName("alt_ah_attr"),
        JAVA_SHORT.withName("pkey_index"),
        JAVA_SHORT.withName("alt_pkey_index"),
        JAVA_BYTE.withName("en_sqd_async_notify"),
        JAVA_BYTE.withName("sq_draining"),
        JAVA_BYTE.withName("max_rd_atomic"),
        JAVA_BYTE.withName("max_dest_rd_atomic"),
        JAVA_BYTE.withName("min_rnr_timer"),
        JAVA_BYTE.withName("port_num"),
        JAVA_BYTE.withName("timeout"),
        JAVA_BYTE.withName("retry_cnt"),
        JAVA_BYTE.withName("rnr_retry"),
        JAVA_BYTE.withName("alt_port_num"),
        JAVA_BYTE.withName("alt_timeout"),
        JAVA_INT.withName("rate_limit"));

    public static final long QP_STATE = CStruct.offset(LAYOUT, "qp_state");
    public static final long PATH_MTU = CStruct.offset(LAYOUT, "path_mtu");
    public static final long RQ_PSN = CStruct.offset(LAYOUT, "rq_psn");
    public static final long SQ_PSN = CStruct.offset(LAYOUT, "sq_psn");
    public static final long DEST_QP_NUM = CStruct.offset(LAYOUT, "dest_qp_num");
    public static final long QP_ACCESS_FLAGS = CStruct.offset(LAYOUT, "qp_access_flags");
    public static final long AH_ATTR_GRH_DGID = CStruct.offset(LAYOUT, "ah_attr.grh.dgid");
    public static final long AH_ATTR_GRH_SGID_INDEX = CStruct.offset(LAYOUT, "ah_attr.grh.sgid_index");
    public static final long AH_ATTR_GRH_HOP_LIMIT = CStruct.offset(LAYOUT, "ah_attr.grh.hop_limit");
    public static final long AH_ATTR_DLID = CStruct.offset(LAYOUT, "ah_attr.dlid");
    public static final long AH_ATTR_SL = CStruct.offset(LAYOUT, "ah_attr.sl");
    public static final long AH_ATTR_IS_GLOBAL = CStruct.offset(LAYOUT, "ah_attr.is_global");
    public static final long AH_ATTR_PORT_NUM = CStruct.offset(LAYOUT, "ah_attr.port_num");
    public static final long PKEY_INDEX = CStruct.offset(LAYOUT, "pkey_index");
    public static final long MAX_RD_ATOMIC = CStruct.offset(LAYOUT, "max_rd_atomic");
    public static final long MAX_DEST_RD_ATOMIC = CStruct.offset(LAYOUT, "max_dest_rd_atomic");
    public static final long MIN_RNR_TIMER = CStruct.offset(LAYOUT, "min_rnr_timer");
    public static final long PORT_NUM = CStruct.offset(LAYOUT, "port_num");
    public static final long TIMEOUT = CStruct.offset(LAYOUT, "timeout");
    public static final long RETRY_CNT = CStruct.offset(LAYOUT, "retry_cnt");
    public static final long RNR_RETRY = CStruct.offset(LAYOUT, "rnr_retry");

    private IbvQpAttr()
    {
    }
}
