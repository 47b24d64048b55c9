/**
 * The verbs API: ibverbs semantics with Java names. Devices ({@link io.rdmakv.verbs.Context}),
 * protection domains, memory regions, completion queues, RC queue pairs and preallocated work
 * requests. Providers: {@code tcp} (a software RC transport) and {@code ibverbs} (Panama FFM); what their
 * objects share, and the control path's {@code VerbsException}, is in {@link io.rdmakv.verbs.resource}.
 */
package io.rdmakv.verbs;
