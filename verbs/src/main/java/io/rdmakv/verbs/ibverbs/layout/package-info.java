/**
 * The C structs the {@code ibverbs} bindings touch, one descriptor class per struct ({@code IbvQpAttr} for
 * {@code struct ibv_qp_attr}, ...): a {@link java.lang.foreign.MemoryLayout} named after the struct, with the C
 * member names, laid out by {@code CStruct}, and the offsets the bindings use. Every class here with a
 * {@code LAYOUT} is checked against the installed headers by the verbs tests, which find them by listing
 * this package: against {@code <infiniband/verbs.h>} by {@code IbverbsLayoutTest}, or, for the classes whose
 * {@code HEADER} is {@code "rdma/rdma_cma.h"} (rdma_cm's structs and the socket addresses), against that
 * header by {@code RdmacmLayoutTest}.
 */
package io.rdmakv.verbs.ibverbs.layout;
