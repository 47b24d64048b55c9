package io.rdmakv.verbs.ibverbs.layout;

import java.lang.foreign.StructLayout;

import static java.lang.foreign.ValueLayout.ADDRESS;

/**
 * Layout of {@code struct ibv_context_ops}: 32 function pointers, 256 bytes. The verbs that
 * {@code verbs.h} defines {@code static inline} ({@code ibv_poll_cq}, {@code ibv_req_notify_cq},
 * {@code ibv_post_send}, {@code ibv_post_recv}) are calls through these pointers; rdmakv reads the
 * pointer once per completion queue or queue pair and calls it with an address-less downcall handle.
 */
final class IbvContextOps
{
    static final StructLayout LAYOUT = CStruct.struct("ibv_context_ops",
        ADDRESS.withName("_compat_query_device"),
        ADDRESS.withName("_compat_query_port"),
        ADDRESS.withName("_compat_alloc_pd"),
        ADDRESS.withName("_compat_dealloc_pd"),
        ADDRESS.withName("_compat_reg_mr"),
        ADDRESS.withName("_compat_rereg_mr"),
        ADDRESS.withName("_compat_dereg_mr"),
        ADDRESS.withName("alloc_mw"),
        ADDRESS.withName("bind_mw"),
        ADDRESS.withName("dealloc_mw"),
        ADDRESS.withName("_compat_create_cq"),
        ADDRESS.withName("poll_cq"),
        ADDRESS.withName("req_notify_cq"),
        ADDRESS.withName("_compat_cq_event"),
        ADDRESS.withName("_compat_resize_cq"),
        ADDRESS.withName("_compat_destroy_cq"),
        ADDRESS.withName("_compat_create_srq"),
        ADDRESS.withName("_compat_modify_srq"),
        ADDRESS.withName("_compat_query_srq"),
        ADDRESS.withName("_compat_destroy_srq"),
        ADDRESS.withName("post_srq_recv"),
        ADDRESS.withName("_compat_create_qp"),
        ADDRESS.withName("_compat_query_qp"),
        ADDRESS.withName("_compat_modify_qp"),
        ADDRESS.withName("_compat_destroy_qp"),
        ADDRESS.withName("post_send"),
        ADDRESS.withName("post_recv"),
        ADDRESS.withName("_compat_create_ah"),
        ADDRESS.withName("_compat_destroy_ah"),
        ADDRESS.withName("_compat_attach_mcast"),
        ADDRESS.withName("_compat_detach_mcast"),
        ADDRESS.withName("_compat_async_event"));

    static final long POLL_CQ = CStruct.offset(LAYOUT, "poll_cq");
    static final long REQ_NOTIFY_CQ = CStruct.offset(LAYOUT, "req_notify_cq");
    static final long POST_SEND = CStruct.offset(LAYOUT, "post_send");
    static final long POST_RECV = CStruct.offset(LAYOUT, "post_recv");

    private IbvContextOps()
    {
    }
}
