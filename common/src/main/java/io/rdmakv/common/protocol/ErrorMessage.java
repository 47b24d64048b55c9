package io.rdmakv.common.protocol;

/**
 * ERROR, either way: a request failed, and why (the request id is the failed request's).
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
public record ErrorMessage(long requestId, int code, String text) implements ControlMessage
{
    public ErrorMessage
    {
        text = CodedText.truncate(text, CodedText.MAX_TEXT_LENGTH);
    }

    public ErrorMessage(final long requestId, final ReasonCode reason, final String text)
    {
        this(requestId, reason.code(), text);
    }

    @Override
    public MessageType type()
    {
        return MessageType.ERROR;
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

    static ErrorMessage decode(final MessageReader reader, final long requestId)
    {
        final int code = reader.u32("code");
        return new ErrorMessage(requestId, code, CodedText.decodeText(reader));
    }
}
