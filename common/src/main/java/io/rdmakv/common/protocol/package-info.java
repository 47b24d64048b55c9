/**
 * The control protocol: two-sided messages for session set-up, space grants and frees, statistics and
 * shutdown, with their codecs. Binary and little-endian; every message starts with the header of {@link
 * io.rdmakv.common.protocol.MessageHeaderDescriptor}.
 */
package io.rdmakv.common.protocol;
