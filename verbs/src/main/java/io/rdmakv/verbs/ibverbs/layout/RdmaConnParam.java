package io.rdmakv.verbs.ibverbs.layout;

import java.lang.foreign.StructLayout;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * Layout of {@code struct rdma_conn_param}: 24 bytes, align 8. What {@code rdma_connect} and
 * {@code rdma_accept} send, and what a connect request or response event carries ({@code param.conn} of
 * {@link RdmaCmEvent}). {@code srq} and {@code qp_num} count only when no QP was created on the id.
 *
 * <pre>
 *   0 private_data ptr   8 private_data_len u8   9 responder_resources u8   10 initiator_depth u8
 *  11 flow_control u8   12 retry_count u8   13 rnr_retry_count u8   14 srq u8   16 qp_num u32
 * </pre>
 */
public final class RdmaConnParam
{
    public static final String HEADER = RdmaCmId.HEADER;

    public static final StructLayout LAYOUT = CStruct.struct("rdma_conn_param",
        ADDRESS.withName("private_data"),
        JAVA_BYTE.withName("private_data_len"),
        JAVA_BYTE.withName("responder_resources"),
        JAVA_BYTE.withName("initiator_depth"),
        JAVA_BYTE.withName("flow_control"),
        JAVA_BYTE.withName("retry_count"),
        JAVA_BYTE.withName("rnr_retry_count"),
        JAVA_BYTE.withName("srq"),
        JAVA_INT.withName("qp_num"));

    public static final long PRIVATE_DATA = CStruct.offset(LAYOUT, "private_data");
    public static final long PRIVATE_DATA_LEN = CStruct.offset(LAYOUT, "private_data_len");
    public static final long RESPONDER_RESOURCES = CStruct.offset(LAYOUT, "responder_resources");
    public static final long INITIATOR_DEPTH = CStruct.offset(LAYOUT, "initiator_depth");
    public static final long FLOW_CONTROL = CStruct.offset(LAYOUT, "flow_control");
    public static final long RETRY_COUNT = CStruct.offset(LAYOUT, "retry_count");
    public static final long RNR_RETRY_COUNT = CStruct.offset(LAYOUT, "rnr_retry_count");
    public static final long SRQ = CStruct.offset(LAYOUT, "srq");
    public static final long QP_NUM = CStruct.offset(LAYOUT, "qp_num");

    private RdmaConnParam()
    {
    }
}
