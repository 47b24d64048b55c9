package io.rdmakv.common.protocol;

import io.rdmakv.common.protocol.wire.MalformedMessageException;
import io.rdmakv.common.protocol.wire.MessageHeaderDescriptor;
import io.rdmakv.common.protocol.wire.MessageReader;
import io.rdmakv.common.protocol.wire.MessageType;
import io.rdmakv.common.protocol.wire.MessageWriter;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

import static io.rdmakv.common.protocol.wire.MalformedMessageException.Kind.BAD_FIELD;
import static io.rdmakv.common.protocol.wire.MalformedMessageException.Kind.BAD_LENGTH;
import static io.rdmakv.common.protocol.wire.MalformedMessageException.Kind.BAD_TYPE;
import static io.rdmakv.common.protocol.wire.MalformedMessageException.Kind.TRUNCATED;

/**
 * Encodes {@link ControlMessage}s into, and decodes them from, memory segments and byte buffers at an
 * offset (header layout in {@link MessageHeaderDescriptor}, bodies in the message records).
 *
 * <p>Decoding trusts nothing: a wrong type, a length field that disagrees with the type or the bytes at
 * hand, a variable field or count over its limit, another protocol version, or a field value no valid
 * message has, each throws {@link MalformedMessageException} with a message saying which. Reading stops at
 * the header's length, so bytes after the message (the next message on a stream) are left alone.
 *
 * <p>This is control-path code: decoding allocates the record.
 */
public final class ControlCodec
{
    private ControlCodec()
    {
    }

    /**
     * Encodes {@code message} at {@code offset}.
     *
     * @return the bytes written (the message's length).
     * @throws IllegalArgumentException when the message does not fit in the segment from {@code offset}.
     */
    public static int encode(final ControlMessage message, final MemorySegment segment, final long offset)
    {
        final int length = message.encodedLength();
        if (length > message.type().maxLength())
        {
            throw new IllegalArgumentException(
                message.type() + " message of " + length + " bytes is over the limit of " + message.type().maxLength());
        }
        if (offset < 0 || offset > segment.byteSize() - length)
        {
            throw new IllegalArgumentException(
                message.type() + " message of " + length + " bytes does not fit at " + offset + " in " +
                segment.byteSize() + " bytes");
        }
        MessageHeaderDescriptor.write(segment, offset, message.type(), length, message.requestId());
        final MessageWriter writer = new MessageWriter(segment, offset + MessageHeaderDescriptor.HEADER_LENGTH);
        switch (message)
        {
            case HelloMessage m -> m.encodeBody(writer);
            case HelloOkMessage m -> m.encodeBody(writer);
            case CodedRefusalMessage m -> m.encodeBody(writer);
            case AllocMessage m -> m.encodeBody(writer);
            case AllocOkMessage m -> m.encodeBody(writer);
            case FreeMessage m -> m.encodeBody(writer);
            case StatsOkMessage m -> m.encodeBody(writer);
            case RepairMessage m -> m.encodeBody(writer);
            case RepairReplyMessage m -> m.encodeBody(writer);
            case DamageScanMessage m -> m.encodeBody(writer);
            case DamageScanOkMessage m -> m.encodeBody(writer);
            case HelpMessage m -> m.encodeBody(writer);
            case HelpReplyMessage m -> m.encodeBody(writer);
            case FenceWritersMessage m -> m.encodeBody(writer);
            case FenceWritersOkMessage m -> m.encodeBody(writer);
            case ScrubOkMessage m -> m.encodeBody(writer);
            case GrantMessage m -> m.encodeBody(writer);
            case GrantReplyMessage m -> m.encodeBody(writer);
            case SlotCasMessage m -> m.encodeBody(writer);
            case SlotCasReplyMessage m -> m.encodeBody(writer);
            case HeartbeatMessage m -> m.encodeBody(writer);
            case RebalanceMessage m -> m.encodeBody(writer);
            case RebalanceOkMessage m -> m.encodeBody(writer);
            case StatsMessage _, ByeMessage _, ShutdownMessage _, ScrubMessage _ ->
            {
                // header only
            }
        }
        if (writer.position() != offset + length)
        {
            throw new IllegalStateException(message.type() + " encoder wrote " + (writer.position() - offset) +
                " bytes, its length says " + length);
        }
        return length;
    }

    /** Encodes {@code message} at absolute index {@code offset} of {@code buffer} (position and limit ignored). */
    public static int encode(final ControlMessage message, final ByteBuffer buffer, final int offset)
    {
        return encode(message, MemorySegment.ofBuffer(buffer.duplicate().clear()), offset);
    }

    /** Encodes {@code message} into a new array (bootstrap connection, tests). */
    public static byte[] toBytes(final ControlMessage message)
    {
        final byte[] bytes = new byte[message.encodedLength()];
        encode(message, MemorySegment.ofArray(bytes), 0);
        return bytes;
    }

    /**
     * Checks the header at {@code offset} and returns the message's length: for a stream, how many bytes to
     * read before {@link #decode}. Needs only the {@value MessageHeaderDescriptor#HEADER_LENGTH} header bytes.
     *
     * @throws MalformedMessageException for fewer than 16 bytes, an unknown type or a length outside the
     *     type's bounds.
     */
    public static int checkHeader(final MemorySegment segment, final long offset, final long available)
    {
        checkRange(segment, offset, available);
        if (available < MessageHeaderDescriptor.HEADER_LENGTH)
        {
            throw new MalformedMessageException(
                TRUNCATED, "control message truncated: " + available + " bytes, a header has " +
                MessageHeaderDescriptor.HEADER_LENGTH);
        }
        final int code = MessageHeaderDescriptor.type(segment, offset);
        final MessageType type = MessageType.of(code);
        if (type == null)
        {
            throw new MalformedMessageException(BAD_TYPE, "unknown control message type " + code);
        }
        final long length = MessageHeaderDescriptor.length(segment, offset);
        if (length < type.minLength() || length > type.maxLength())
        {
            throw new MalformedMessageException(
                BAD_LENGTH, type + " message length " + length + (type.isFixedLength() ?
                ", must be " + type.minLength() : " outside " + type.minLength() + ".." + type.maxLength()));
        }
        return (int)length;
    }

    /**
     * Decodes the message at {@code offset}, of which {@code available} bytes are at hand (a RECV
     * completion's byte count, or what a stream has delivered).
     *
     * @throws MalformedMessageException for anything that is not a well-formed message.
     * @throws IllegalArgumentException when {@code offset} and {@code available} leave the segment (a
     *     caller's mistake, not the peer's).
     */
    public static ControlMessage decode(final MemorySegment segment, final long offset, final long available)
    {
        final int length = checkHeader(segment, offset, available);
        final MessageType type = MessageType.of(MessageHeaderDescriptor.type(segment, offset));
        if (length > available)
        {
            throw new MalformedMessageException(
                TRUNCATED, type + " message of " + length + " bytes truncated to " + available);
        }
        final long requestId = MessageHeaderDescriptor.requestId(segment, offset);
        final MessageReader reader = new MessageReader(segment, offset, length, type);
        final ControlMessage message;
        try
        {
            message = switch (type)
            {
                case HELLO -> HelloMessage.decode(reader, requestId);
                case HELLO_OK -> HelloOkMessage.decode(reader, requestId);
                case HELLO_REFUSED, ALLOC_FAILED, ERROR -> CodedRefusalMessage.decode(type, reader, requestId);
                case ALLOC -> AllocMessage.decode(reader, requestId);
                case ALLOC_OK -> AllocOkMessage.decode(reader, requestId);
                case FREE -> FreeMessage.decode(reader, requestId);
                case STATS -> new StatsMessage(requestId);
                case STATS_OK -> StatsOkMessage.decode(reader, requestId);
                case BYE -> new ByeMessage(requestId);
                case SHUTDOWN -> new ShutdownMessage(requestId);
                case HEARTBEAT -> HeartbeatMessage.decode(reader, requestId);
                case REPAIR -> RepairMessage.decode(reader, requestId);
                case REPAIR_REPLY -> RepairReplyMessage.decode(reader, requestId);
                case DAMAGE_SCAN -> DamageScanMessage.decode(reader, requestId);
                case DAMAGE_SCAN_OK -> DamageScanOkMessage.decode(reader, requestId);
                case HELP -> HelpMessage.decode(reader, requestId);
                case HELP_REPLY -> HelpReplyMessage.decode(reader, requestId);
                case FENCE_WRITERS -> FenceWritersMessage.decode(reader, requestId);
                case FENCE_WRITERS_OK -> FenceWritersOkMessage.decode(reader, requestId);
                case SCRUB -> new ScrubMessage(requestId);
                case SCRUB_OK -> ScrubOkMessage.decode(reader, requestId);
                case BIND_WINDOW, CHECK_GRANT, REVOKE_GRANT -> GrantMessage.decode(type, reader, requestId);
                case WINDOW_BOUND, GRANT_CHECKED, GRANT_REVOKED -> GrantReplyMessage.decode(type, reader, requestId);
                case SLOT_CAS -> SlotCasMessage.decode(reader, requestId);
                case SLOT_CAS_REPLY -> SlotCasReplyMessage.decode(reader, requestId);
                case REBALANCE -> RebalanceMessage.decode(reader, requestId);
                case REBALANCE_OK -> RebalanceOkMessage.decode(reader, requestId);
            };
        }
        catch (final IllegalArgumentException ex)
        {
            throw new MalformedMessageException(BAD_FIELD, type + ": " + ex.getMessage(), ex);
        }
        reader.expectEnd();
        return message;
    }

    /** Decodes the message at absolute index {@code offset} of {@code buffer} (position and limit ignored). */
    public static ControlMessage decode(final ByteBuffer buffer, final int offset, final int available)
    {
        return decode(MemorySegment.ofBuffer(buffer.duplicate().clear()), offset, available);
    }

    /** Decodes a message that fills {@code bytes}. */
    public static ControlMessage fromBytes(final byte[] bytes)
    {
        return decode(MemorySegment.ofArray(bytes), 0, bytes.length);
    }

    /**
     * Reads one whole message from {@code in} (its header, then as many bytes as the header's length says)
     * and returns its bytes; blocks as {@code in} does. For the bootstrap connection, never the data path.
     *
     * @throws java.io.EOFException when the stream ends first
     */
    public static byte[] readFrame(final InputStream in) throws IOException
    {
        final DataInputStream data = new DataInputStream(in);
        final byte[] header = new byte[MessageHeaderDescriptor.HEADER_LENGTH];
        data.readFully(header);
        final int length = checkHeader(MemorySegment.ofArray(header), 0, header.length);
        final byte[] message = new byte[length];
        System.arraycopy(header, 0, message, 0, header.length);
        data.readFully(message, header.length, length - header.length);
        return message;
    }

    /** Reads and decodes one message from {@code in} ({@link #readFrame}). */
    public static ControlMessage read(final InputStream in) throws IOException
    {
        return fromBytes(readFrame(in));
    }

    private static void checkRange(final MemorySegment segment, final long offset, final long available)
    {
        if (offset < 0 || available < 0 || offset > segment.byteSize() - available)
        {
            throw new IllegalArgumentException(
                available + " bytes at " + offset + " are outside a buffer of " + segment.byteSize() + " bytes");
        }
    }
}
