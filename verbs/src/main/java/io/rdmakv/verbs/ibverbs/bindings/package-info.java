/**
 * The {@code ibverbs} provider's downcalls: the functions {@code libibverbs.so.1} exports ({@code LibIbverbs*},
 * one static final downcall handle each, control-path calls capturing {@code errno} through {@code CallState}),
 * the verbs {@code verbs.h} defines static inline ({@code InlineVerbs}, through {@code struct ibv_context.ops}:
 * the data path, no allocation), the few libc calls ({@code LibC}: ppoll, eventfd, getrlimit), the header's
 * constants ({@code IbvConstants}) and loading the library ({@code IbverbsLibrary}). The structs they read and
 * write are described in {@link io.rdmakv.verbs.ibverbs.layout}.
 */
package io.rdmakv.verbs.ibverbs.bindings;
