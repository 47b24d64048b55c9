package io.rdmakv.common.protocol;

/**
 * ALLOC_FAILED, server to client: no space was granted, and why.
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
public record AllocFailedMessage(long requestId, int code, String text) implements ControlMessage
{
    public AllocFailedMessage
    {
        text = CodedText.truncate(text, CodedText.MAX_TEXT_LENGTH);
    }

    public AllocFailedMessage(final long requestId, final ReasonCode reason, final String text)
    {
        this(requestId, reason.code(), text);
    }

    @Override
    public MessageType type()
    {
        return MessageType.ALLOC_FAILED;
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

    static AllocFailedMessage decode(final MessageReader reader, final long requestId)
    {
        final int code = reader.u32("code");
        return new AllocFailedMessage(requestId, code, CodedText.decodeText(reader));
    }
}
