package io.rdmakv.verbs.ibverbs.layout;

import java.lang.foreign.StructLayout;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * Layout of {@code struct ibv_cq}: 128 bytes, align 8.
 *
 * <pre>
 *   0 context ptr   8 channel ptr   16 cq_context ptr   24 handle u32   28 cqe s32
 *  32 mutex (40, opaque)   72 cond (48, opaque)   120 comp_events_completed u32   124 async_events_completed u32
 * </pre>
 */
public final class IbvCq
{
    static final StructLayout LAYOUT = CStruct.struct("ibv_cq",
        ADDRESS.withName("context"),
        ADDRESS.withName("channel"),
        ADDRESS.withName("cq_context"),
        JAVA_INT.withName("handle"),
        JAVA_INT.withName("cqe"),
        CStruct.opaque("mutex", 40, 8),
        CStruct.opaque("cond", 48, 8),
        JAVA_INT.withName("comp_events_completed"),
        JAVA_INT.withName("async_events_completed"));

    public static final long CONTEXT = CStruct.offset(LAYOUT, "context");
    public static final long CQE = CStruct.offset(LAYOUT, "cqe");
    public static final long SIZE = LAYOUT.byteSize();

    private IbvCq()
    {
    }
}
