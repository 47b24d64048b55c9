package io.rdmakv.verbs.ibverbs.layout;

import java.lang.foreign.StructLayout;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * Layout of {@code struct rdma_ud_param}: 56 bytes, align 8. Not read (rdmakv connects RC queue pairs);
 * described because it is the largest member of {@link RdmaCmEvent}'s {@code param} union.
 */
public final class RdmaUdParam
{
    public static final String HEADER = RdmaCmId.HEADER;

    static final StructLayout LAYOUT = CStruct.struct("rdma_ud_param",
        ADDRESS.withName("private_data"),
        JAVA_BYTE.withName("private_data_len"),
        IbvAhAttr.LAYOUT.withName("ah_attr"),
        JAVA_INT.withName("qp_num"),
        JAVA_INT.withName("qkey"));

    private RdmaUdParam()
    {
    }
}
