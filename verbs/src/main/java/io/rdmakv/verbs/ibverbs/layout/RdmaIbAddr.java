package io.rdmakv.verbs.ibverbs.layout;

import java.lang.foreign.StructLayout;

import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * Layout of {@code struct rdma_ib_addr}: 40 bytes, align 8 ({@code sgid} 0, {@code dgid} 16, {@code pkey}
 * be16 at 32, 6 bytes padding). The GIDs rdma_cm resolved for a connection.
 */
public final class RdmaIbAddr
{
    public static final String HEADER = RdmaCmId.HEADER;

    static final StructLayout LAYOUT = CStruct.struct("rdma_ib_addr",
        IbvGid.LAYOUT.withName("sgid"),
        IbvGid.LAYOUT.withName("dgid"),
        JAVA_SHORT.withName("pkey"));

    private RdmaIbAddr()
    {
    }
}
