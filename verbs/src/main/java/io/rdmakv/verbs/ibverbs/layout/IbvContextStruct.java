package io.rdmakv.verbs.ibverbs.layout;

import io.rdmakv.verbs.ibverbs.IbvContext;

import java.lang.foreign.StructLayout;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * Layout of {@code struct ibv_context}: 328 bytes, align 8. (Called {@code IbvContextStruct} because
 * {@link IbvContext} is the {@link io.rdmakv.verbs.Context} implementation.)
 *
 * <pre>
 *   0 device            ptr
 *   8 ops               struct ibv_context_ops (256): poll_cq at 8 + 88 = 96, req_notify_cq 104,
 *                       post_send 208, post_recv 216, alloc_mw 64, dealloc_mw 80
 * 264 cmd_fd            s32
 * 268 async_fd          s32
 * 272 num_comp_vectors  s32, 4 bytes padding
 * 280 mutex             pthread_mutex_t (40, opaque)
 * 320 abi_compat        ptr
 * </pre>
 */
public final class IbvContextStruct
{
    static final StructLayout LAYOUT = CStruct.struct("ibv_context",
        ADDRESS.withName("device"),
        IbvContextOps.LAYOUT.withName("ops"),
        JAVA_INT.withName("cmd_fd"),
        JAVA_INT.withName("async_fd"),
        JAVA_INT.withName("num_comp_vectors"),
        CStruct.opaque("mutex", 40, 8),
        ADDRESS.withName("abi_compat"));

    public static final long DEVICE = CStruct.offset(LAYOUT, "device");
    public static final long OPS_POLL_CQ = CStruct.offset(LAYOUT, "ops.poll_cq");
    public static final long OPS_REQ_NOTIFY_CQ = CStruct.offset(LAYOUT, "ops.req_notify_cq");
    public static final long OPS_POST_SEND = CStruct.offset(LAYOUT, "ops.post_send");
    public static final long OPS_POST_RECV = CStruct.offset(LAYOUT, "ops.post_recv");
    public static final long OPS_ALLOC_MW = CStruct.offset(LAYOUT, "ops.alloc_mw");
    public static final long OPS_DEALLOC_MW = CStruct.offset(LAYOUT, "ops.dealloc_mw");
    public static final long ASYNC_FD = CStruct.offset(LAYOUT, "async_fd");
    static final long NUM_COMP_VECTORS = CStruct.offset(LAYOUT, "num_comp_vectors");
    public static final long SIZE = LAYOUT.byteSize();

    private IbvContextStruct()
    {
    }
}
