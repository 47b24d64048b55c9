/**
 * The C structs the {@code ibverbs} bindings touch, one descriptor class per struct ({@code IbvQpAttr} for
 * {@code struct ibv_qp_attr}, ...): a {@link java.lang.foreign.MemoryLayout} named after the struct, with the C
 * member names, laid out by {@code CStruct}, and the offsets the bindings use. Every class here with a
 * {@code LAYOUT} is checked against the installed {@code <infiniband/verbs.h>} by {@code IbverbsLayoutTest}
 * (verbs tests), which finds them by listing this package.
 */
package io.rdmakv.verbs.ibverbs.layout;
