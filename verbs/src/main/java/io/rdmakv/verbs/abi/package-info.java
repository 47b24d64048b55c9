/**
 * Byte layouts of the libibverbs structures that both providers share (work requests, scatter-gather
 * elements, work completions), one descriptor class per C struct, checked against the real header.
 */
package io.rdmakv.verbs.abi;
