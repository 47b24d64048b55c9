/**
 * {@code kvctl}, the command-line tool: get, put and delete keys, node statistics, ping and the cluster map,
 * over {@link io.rdmakv.client.KvClient}'s public API (Picocli stays here, out of the client library).
 */
package io.rdmakv.kvctl;
