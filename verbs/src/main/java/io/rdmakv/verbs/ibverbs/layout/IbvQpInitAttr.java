package io.rdmakv.verbs.ibverbs.layout;

import java.lang.foreign.StructLayout;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * Layout of {@code struct ibv_qp_init_attr}: 64 bytes, align 8. {@code ibv_create_qp} writes the
 * capacities it actually granted back into {@code cap}.
 *
 * <pre>
 *   0 qp_context ptr     8 send_cq ptr     16 recv_cq ptr     24 srq ptr
 *  32 cap (struct ibv_qp_cap, 20)          52 qp_type u32     56 sq_sig_all s32, 4 bytes padding
 * </pre>
 */
public final class IbvQpInitAttr
{
    public static final StructLayout LAYOUT = CStruct.struct("ibv_qp_init_attr",
        ADDRESS.withName("qp_context"),
        ADDRESS.withName("send_cq"),
        ADDRESS.withName("recv_cq"),
        ADDRESS.withName("srq"),
        IbvQpCap.LAYOUT.withName("cap"),
        JAVA_INT.withName("qp_type"),
        JAVA_INT.withName("sq_sig_all"));

    public static final long SEND_CQ = CStruct.offset(LAYOUT, "send_cq");
    public static final long RECV_CQ = CStruct.offset(LAYOUT, "recv_cq");
    public static final long CAP_MAX_SEND_WR = CStruct.offset(LAYOUT, "cap.max_send_wr");
    public static final long CAP_MAX_RECV_WR = CStruct.offset(LAYOUT, "cap.max_recv_wr");
    public static final long CAP_MAX_SEND_SGE = CStruct.offset(LAYOUT, "cap.max_send_sge");
    public static final long CAP_MAX_RECV_SGE = CStruct.offset(LAYOUT, "cap.max_recv_sge");
    public static final long CAP_MAX_INLINE_DATA = CStruct.offset(LAYOUT, "cap.max_inline_data");
    public static final long QP_TYPE = CStruct.offset(LAYOUT, "qp_type");
    public static final long SQ_SIG_ALL = CStruct.offset(LAYOUT, "sq_sig_all");

    private IbvQpInitAttr()
    {
    }
}
