package io.rdmakv.verbs.ibverbs.layout;

import java.lang.foreign.StructLayout;

import static java.lang.foreign.ValueLayout.JAVA_INT;

/** Layout of {@code struct ibv_qp_cap}: 20 bytes, align 4 (five u32). */
final class IbvQpCap
{
    static final StructLayout LAYOUT = CStruct.struct("ibv_qp_cap",
        JAVA_INT.withName("max_send_wr"),
        JAVA_INT.withName("max_recv_wr"),
        JAVA_INT.withName("max_send_sge"),
        JAVA_INT.withName("max_recv_sge"),
        JAVA_INT.withName("max_inline_data"));

    private IbvQpCap()
    {
    }
}
