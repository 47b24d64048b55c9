package io.rdmakv.verbs.ibverbs.layout;

import java.lang.foreign.StructLayout;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * Layout of {@code struct ibv_qp}: 160 bytes, align 8.
 *
 * <pre>
 *   0 context ptr   8 qp_context ptr   16 pd ptr   24 send_cq ptr   32 recv_cq ptr   40 srq ptr
 *  48 handle u32   52 qp_num u32   56 state u32   60 qp_type u32
 *  64 mutex (40, opaque)   104 cond (48, opaque)   152 events_completed u32, 4 bytes padding
 * </pre>
 */
public final class IbvQp
{
    static final StructLayout LAYOUT = CStruct.struct("ibv_qp",
        ADDRESS.withName("context"),
        ADDRESS.withName("qp_context"),
        ADDRESS.withName("pd"),
        ADDRESS.withName("send_cq"),
        ADDRESS.withName("recv_cq"),
        ADDRESS.withName("srq"),
        JAVA_INT.withName("handle"),
        JAVA_INT.withName("qp_num"),
        JAVA_INT.withName("state"),
        JAVA_INT.withName("qp_type"),
        CStruct.opaque("mutex", 40, 8),
        CStruct.opaque("cond", 48, 8),
        JAVA_INT.withName("events_completed"));

    public static final long CONTEXT = CStruct.offset(LAYOUT, "context");
    public static final long QP_NUM = CStruct.offset(LAYOUT, "qp_num");
    static final long STATE = CStruct.offset(LAYOUT, "state");
    public static final long SIZE = LAYOUT.byteSize();

    private IbvQp()
    {
    }
}
