package io.rdmakv.common.protocol;

import io.rdmakv.common.protocol.wire.CodedText;
import io.rdmakv.common.protocol.wire.MessageReader;
import io.rdmakv.common.protocol.wire.MessageType;
import io.rdmakv.common.protocol.wire.MessageWriter;
import io.rdmakv.common.protocol.wire.ReasonCode;
import java.util.Set;

/**
 * A refusal with a reason: one class for the three message types whose body is a {@link ReasonCode} code and
 * a line of text (laid out by {@link CodedText}):
 * <ul>
 *   <li>HELLO_REFUSED, node to client over the bootstrap connection: no session, and why;</li>
 *   <li>ALLOC_FAILED, node to client: no space was granted, and why;</li>
 *   <li>ERROR, either way: a request failed, and why (the request id is the failed request's).</li>
 * </ul>
 *
 * <pre>
 *  16 code          u32   a {@link ReasonCode} code
 *  20 text_length   u16   at most 1024
 *  22 reserved      u16   zero
 *  24 text          text_length bytes of UTF-8
 * </pre>
 *
 * Text longer than 1024 bytes of UTF-8 is cut at a character boundary.
 */
public record CodedRefusalMessage(MessageType type, long requestId, int code, String text) implements ControlMessage
{
    /** The message types this class carries. */
    public static final Set<MessageType> TYPES =
        Set.of(MessageType.HELLO_REFUSED, MessageType.ALLOC_FAILED, MessageType.ERROR);

    public CodedRefusalMessage
    {
        if (!TYPES.contains(type))
        {
            throw new IllegalArgumentException(type + " is not a coded refusal (" + TYPES + ")");
        }
        text = CodedText.truncate(text, CodedText.MAX_TEXT_LENGTH);
    }

    /** HELLO_REFUSED with a wire code. */
    public static CodedRefusalMessage helloRefused(final long requestId, final int code, final String text)
    {
        return new CodedRefusalMessage(MessageType.HELLO_REFUSED, requestId, code, text);
    }

    public static CodedRefusalMessage helloRefused(final long requestId, final ReasonCode reason, final String text)
    {
        return helloRefused(requestId, reason.code(), text);
    }

    /** ALLOC_FAILED with a wire code. */
    public static CodedRefusalMessage allocFailed(final long requestId, final int code, final String text)
    {
        return new CodedRefusalMessage(MessageType.ALLOC_FAILED, requestId, code, text);
    }

    public static CodedRefusalMessage allocFailed(final long requestId, final ReasonCode reason, final String text)
    {
        return allocFailed(requestId, reason.code(), text);
    }

    /** ERROR with a wire code. */
    public static CodedRefusalMessage error(final long requestId, final int code, final String text)
    {
        return new CodedRefusalMessage(MessageType.ERROR, requestId, code, text);
    }

    public static CodedRefusalMessage error(final long requestId, final ReasonCode reason, final String text)
    {
        return error(requestId, reason.code(), text);
    }

    /** {@code message} when it is a refusal of type {@code type}, else null. */
    public static CodedRefusalMessage as(final MessageType type, final ControlMessage message)
    {
        return message instanceof CodedRefusalMessage refusal && refusal.type == type ? refusal : null;
    }

    /** {@code message} as a refusal of type {@code type}; throws IllegalArgumentException naming it otherwise. */
    public static CodedRefusalMessage expect(final MessageType type, final ControlMessage message)
    {
        final CodedRefusalMessage refusal = as(type, message);
        if (refusal == null)
        {
            throw new IllegalArgumentException("expected " + type + ", got " + message);
        }
        return refusal;
    }

    /** The reason, or null for a code this build does not know. */
    public ReasonCode reason()
    {
        return ReasonCode.of(code);
    }

    @Override
    public int encodedLength()
    {
        return CodedText.encodedLength(text);
    }

    void encodeBody(final MessageWriter writer)
    {
        CodedText.encode(writer, code, text);
    }

    static CodedRefusalMessage decode(final MessageType type, final MessageReader reader, final long requestId)
    {
        final int code = reader.u32("code");
        return new CodedRefusalMessage(type, requestId, code, CodedText.decodeText(reader));
    }
}
