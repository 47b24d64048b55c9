package io.rdmakv.common.protocol.wire;

import java.nio.charset.StandardCharsets;

/**
 * The body of a {@link io.rdmakv.common.protocol.CodedRefusalMessage} (HELLO_REFUSED, ALLOC_FAILED and ERROR): a
 * reason code and a line of UTF-8 text. REPAIR_REPLY's text is cut and read the same way.
 *
 * <pre>
 *  16 code          u32   a {@link ReasonCode} code
 *  20 text_length   u16   at most {@value #MAX_TEXT_LENGTH}
 *  22 reserved      u16   zero
 *  24 text          text_length bytes of UTF-8
 * </pre>
 *
 * Text longer than {@value #MAX_TEXT_LENGTH} bytes is cut (at a character boundary) when a message is made,
 * so an error message never makes a reply unsendable.
 */
public final class CodedText
{
    public static final int CODE_OFFSET = MessageHeaderDescriptor.HEADER_LENGTH;
    public static final int TEXT_LENGTH_OFFSET = CODE_OFFSET + Integer.BYTES;
    static final int RESERVED_OFFSET = TEXT_LENGTH_OFFSET + Short.BYTES;
    public static final int TEXT_OFFSET = RESERVED_OFFSET + Short.BYTES;

    /** The longest text, in UTF-8 bytes. */
    public static final int MAX_TEXT_LENGTH = 1024;

    private CodedText()
    {
    }

    /** {@code text} (null as empty) cut to at most {@code maxBytes} bytes of UTF-8 without splitting a character. */
    public static String truncate(final String text, final int maxBytes)
    {
        if (text == null)
        {
            return "";
        }
        final byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        if (bytes.length <= maxBytes)
        {
            return text;
        }
        int cut = maxBytes;
        while (cut > 0 && (bytes[cut] & 0xC0) == 0x80)
        {
            cut--;
        }
        return new String(bytes, 0, cut, StandardCharsets.UTF_8);
    }

    public static int encodedLength(final String text)
    {
        return TEXT_OFFSET + text.getBytes(StandardCharsets.UTF_8).length;
    }

    public static void encode(final MessageWriter writer, final int code, final String text)
    {
        final byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        writer.u32(code).u16(bytes.length).u16(0).bytes(bytes);
    }

    /** Reads code and text; the caller makes the record. */
    public static String decodeText(final MessageReader reader)
    {
        final int length = reader.length(reader.u16("text length"), MAX_TEXT_LENGTH, "text");
        reader.u16("reserved");
        return reader.utf8(length, "text");
    }
}
