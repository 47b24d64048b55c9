/**
 * The region a server node exposes, byte for byte: the region header, the index of buckets and slots, and
 * the key-value blocks, each with a {@code *Descriptor} (layout constants) and a flyweight.
 */
package io.rdmakv.common.layout;
