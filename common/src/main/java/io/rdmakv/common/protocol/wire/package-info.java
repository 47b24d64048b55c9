/**
 * The wire form control messages share: the 16-byte header ({@link
 * io.rdmakv.common.protocol.wire.MessageHeaderDescriptor}) and its type codes with each type's length bounds
 * ({@link io.rdmakv.common.protocol.wire.MessageType}); the field reader and writer the message records' codecs
 * use ({@code MessageReader}, which never reads past a message's length, and {@code MessageWriter}); the body
 * pieces several messages share ({@code CodedText}: a reason code and a line of text; {@code SlotKeyPrefix}:
 * REPAIR's and HELP's slot and key length); the values messages carry ({@code ReasonCode}, {@code RepairRefusal},
 * {@code RemoteRegion}) and the cluster map's binary form ({@code ClusterMapCodec}); {@code FreeBatch}, which
 * builds a FREE in place in a send buffer; and {@code MalformedMessageException}, what decoding throws.
 *
 * <p>The messages themselves, and {@code ControlCodec}, are in {@code io.rdmakv.common.protocol}. {@code
 * MessageReader}, {@code MessageWriter}, {@code CodedText} and {@code SlotKeyPrefix} are public only because the
 * records' codecs there use them: building blocks of this protocol's codec, not for code outside it. This package and the messages' refer to each other: every record is written with the header,
 * type and reader here, and {@code MessageType} takes each type's length bounds from the records' constants
 * ({@code FreeBatch}, FREE's layout from {@code FreeMessage}). The records cannot be split any further: their
 * {@code ControlMessage} is sealed, and without a module-info a sealed type's permitted subtypes share its package.
 */
package io.rdmakv.common.protocol.wire;
