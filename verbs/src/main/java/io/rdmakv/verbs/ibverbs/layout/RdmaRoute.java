package io.rdmakv.verbs.ibverbs.layout;

import java.lang.foreign.StructLayout;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * Layout of {@code struct rdma_route}: 312 bytes, align 8 ({@code addr} 0, {@code path_rec} ptr 296,
 * {@code num_paths} s32 304, 4 bytes padding).
 */
public final class RdmaRoute
{
    public static final String HEADER = RdmaCmId.HEADER;

    static final StructLayout LAYOUT = CStruct.struct("rdma_route",
        RdmaAddr.LAYOUT.withName("addr"),
        ADDRESS.withName("path_rec"),
        JAVA_INT.withName("num_paths"));

    private RdmaRoute()
    {
    }
}
