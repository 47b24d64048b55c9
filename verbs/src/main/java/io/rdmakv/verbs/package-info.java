/**
 * The verbs API: ibverbs semantics with Java names. Devices ({@link io.rdmakv.verbs.Context}),
 * protection domains, memory regions, completion queues, RC queue pairs and preallocated work
 * requests. Providers: {@code tcp} (a software RC transport) and {@code ibverbs} (Panama FFM).
 */
package io.rdmakv.verbs;
