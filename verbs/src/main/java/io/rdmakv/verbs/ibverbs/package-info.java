/**
 * The {@code ibverbs} provider: hand-written Panama FFM bindings to {@code libibverbs.so.1}
 * (rdma-core), no JNI and no C shim.
 *
 * <ul>
 *   <li>{@link io.rdmakv.verbs.ibverbs.IbverbsProvider}, {@link io.rdmakv.verbs.ibverbs.IbvContext},
 *       {@link io.rdmakv.verbs.ibverbs.IbvProtectionDomain}, {@link io.rdmakv.verbs.ibverbs.IbvMemoryRegion},
 *       {@link io.rdmakv.verbs.ibverbs.IbvMemoryWindow}, {@link io.rdmakv.verbs.ibverbs.IbvCompletionQueue},
 *       {@link io.rdmakv.verbs.ibverbs.IbvQueuePair}: the API's objects (this package), with what they need
 *       besides the bindings (the RC state transitions, the GID choice, the memlock limit, the inline-data
 *       probe, memory window binds).</li>
 *   <li>{@link io.rdmakv.verbs.ibverbs.bindings}: the downcalls. {@code LibIbverbs} (device and context),
 *       {@code LibIbverbsPd} (protection domain, memory region), {@code LibIbverbsCq} (completion channel and
 *       queue), {@code LibIbverbsQp} (queue pair), {@code LibIbverbsMw} (memory windows): the exported verbs,
 *       one static final downcall handle each; control-path calls capture {@code errno} and their callers
 *       throw {@link io.rdmakv.verbs.resource.VerbsException} naming the call, the errno and the object.
 *       {@code InlineVerbs}: {@code ibv_poll_cq}, {@code ibv_req_notify_cq}, {@code ibv_post_send},
 *       {@code ibv_post_recv}, which {@code verbs.h} defines static inline, called through the provider's
 *       function pointers in {@code struct ibv_context.ops}; data path: no allocation, no errno capture,
 *       return codes instead of exceptions. {@code LibC} and the header's constants ({@code
 *       IbvConstants}). {@code LibRdmacm} and {@code LibRdmacmConn}: the RDMA connection manager
 *       ({@code librdmacm.so.1}, loaded only when used: {@code RdmacmLibrary}), with
 *       {@code RdmaCmConstants}.</li>
 *   <li>rdma_cm connections of an {@link io.rdmakv.verbs.ibverbs.IbvQueuePair}:
 *       {@link io.rdmakv.verbs.ibverbs.RdmaCmConnector}, {@link io.rdmakv.verbs.ibverbs.RdmaCmListener},
 *       {@link io.rdmakv.verbs.ibverbs.RdmaCmConnection}.</li>
 *   <li>{@link io.rdmakv.verbs.ibverbs.layout}: one descriptor class per C struct ({@code IbvQpAttr} for
 *       {@code struct ibv_qp_attr}, ...), a {@link java.lang.foreign.MemoryLayout} with the C member names laid
 *       out by {@code CStruct}, checked against the installed headers by {@code IbverbsLayoutTest} and
 *       {@code RdmacmLayoutTest}.</li>
 * </ul>
 *
 * <p>Layouts are those of x86_64 Linux with glibc (rdma-core 44.0 checked); on another architecture
 * the layout test says what differs.
 */
package io.rdmakv.verbs.ibverbs;
