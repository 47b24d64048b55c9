package io.rdmakv.verbs.ibverbs.layout;

import java.lang.foreign.StructLayout;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/** Layout of {@code struct ibv_pd}: 16 bytes ({@code context} ptr, {@code handle} u32, 4 bytes padding). */
final class IbvPd
{
    static final StructLayout LAYOUT = CStruct.struct("ibv_pd",
        ADDRESS.withName("context"),
        JAVA_INT.withName("handle"));

    static final long CONTEXT = CStruct.offset(LAYOUT, "context");
    static final long HANDLE = CStruct.offset(LAYOUT, "handle");

    private IbvPd()
    {
    }
}
