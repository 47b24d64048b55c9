/**
 * The control protocol: two-sided messages for session set-up, space grants and frees, statistics and
 * shutdown, with their codec. Binary and little-endian; every message starts with the header of {@link
 * io.rdmakv.common.protocol.wire.MessageHeaderDescriptor}. The message records, their sealed interface {@link
 * io.rdmakv.common.protocol.ControlMessage} and {@link io.rdmakv.common.protocol.ControlCodec} are here; the
 * wire pieces they are made of (header, types, reader and writer, shared bodies, coded values) are in {@code
 * io.rdmakv.common.protocol.wire}.
 */
package io.rdmakv.common.protocol;
