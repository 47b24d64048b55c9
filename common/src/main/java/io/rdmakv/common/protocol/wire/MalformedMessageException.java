package io.rdmakv.common.protocol.wire;

/**
 * A control message that cannot be decoded. Thrown by {@link io.rdmakv.common.protocol.ControlCodec} for any
 * bytes that are not a well-formed message of this protocol version, never an {@code
 * IndexOutOfBoundsException}; {@link #kind()} says what class of fault it was, so that a server can answer a
 * HELLO from another protocol version with HELLO_REFUSED and everything else with ERROR.
 */
public final class MalformedMessageException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    /** What is wrong with the message. */
    public enum Kind
    {
        /** Fewer bytes than the header or the header's length field says. */
        TRUNCATED,
        /** A type code this protocol does not have. */
        BAD_TYPE,
        /** A length field that disagrees with the message type or with the fields it frames. */
        BAD_LENGTH,
        /** A count or a variable field longer than its limit. */
        OVERSIZED,
        /** A protocol version this build does not speak. */
        BAD_VERSION,
        /** A field whose value is not valid (a bad endpoint, an impossible geometry, ...). */
        BAD_FIELD
    }

    private final Kind kind;

    public MalformedMessageException(final Kind kind, final String message)
    {
        super(message);
        this.kind = kind;
    }

    public MalformedMessageException(final Kind kind, final String message, final Throwable cause)
    {
        super(message, cause);
        this.kind = kind;
    }

    public Kind kind()
    {
        return kind;
    }
}
