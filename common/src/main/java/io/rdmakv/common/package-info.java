/**
 * Everything the server and its clients must agree on, byte for byte.
 *
 * <ul>
 *   <li>{@link io.rdmakv.common.layout}: the region a server node exposes (header, index buckets and slot
 *       words, key-value blocks) with their descriptors and flyweights.</li>
 *   <li>{@link io.rdmakv.common.hash}: XXH64 and how a key is placed (partition, fingerprint, candidate
 *       bucket groups).</li>
 *   <li>{@link io.rdmakv.common.protocol}: the control messages and their codec.</li>
 *   <li>{@link io.rdmakv.common.cluster}: the cluster map.</li>
 * </ul>
 *
 * All layouts are little-endian ({@link io.rdmakv.common.LittleEndian}).
 */
package io.rdmakv.common;
