package io.rdmakv.common.protocol;

import io.rdmakv.verbs.QueuePairEndpoint;

import java.nio.ByteBuffer;
import java.util.Arrays;

import static io.rdmakv.common.protocol.MalformedMessageException.Kind.BAD_FIELD;
import static io.rdmakv.common.protocol.MalformedMessageException.Kind.BAD_VERSION;

/**
 * HELLO, client to server over the bootstrap connection: open a session.
 *
 * <pre>
 *  16 protocol_version  u32   {@link MessageHeaderDescriptor#PROTOCOL_VERSION}
 *  20 token_length      u16   at most {@value #MAX_TOKEN_LENGTH}
 *  22 endpoint_length   u16   at most {@value #MAX_ENDPOINT_LENGTH}
 *  24 token             token_length bytes (authentication token)
 *  .. endpoint          endpoint_length bytes: the client's queue pair, {@link QueuePairEndpoint#toBytes()}
 * </pre>
 *
 * Decoding checks the version before anything else and throws {@link MalformedMessageException.Kind#BAD_VERSION}
 * for another one (answer it with HELLO_REFUSED {@link ReasonCode#UNSUPPORTED_VERSION}).
 */
public record HelloMessage(long requestId, int protocolVersion, byte[] authToken, QueuePairEndpoint endpoint)
    implements ControlMessage
{
    public static final int PROTOCOL_VERSION_OFFSET = MessageHeaderDescriptor.HEADER_LENGTH;
    public static final int TOKEN_LENGTH_OFFSET = PROTOCOL_VERSION_OFFSET + Integer.BYTES;
    public static final int ENDPOINT_LENGTH_OFFSET = TOKEN_LENGTH_OFFSET + Short.BYTES;
    public static final int TOKEN_OFFSET = ENDPOINT_LENGTH_OFFSET + Short.BYTES;

    public static final int MAX_TOKEN_LENGTH = 256;
    public static final int MAX_ENDPOINT_LENGTH = QueuePairEndpoint.MAX_LENGTH;

    public HelloMessage
    {
        authToken = authToken == null ? new byte[0] : authToken.clone();
        if (authToken.length > MAX_TOKEN_LENGTH)
        {
            throw new IllegalArgumentException(
                "auth token of " + authToken.length + " bytes is over the limit of " + MAX_TOKEN_LENGTH);
        }
        if (endpoint == null)
        {
            throw new IllegalArgumentException("HELLO needs the client's queue pair endpoint");
        }
    }

    /** A HELLO of this build's protocol version. */
    public HelloMessage(final long requestId, final byte[] authToken, final QueuePairEndpoint endpoint)
    {
        this(requestId, MessageHeaderDescriptor.PROTOCOL_VERSION, authToken, endpoint);
    }

    @Override
    public MessageType type()
    {
        return MessageType.HELLO;
    }

    @Override
    public byte[] authToken()
    {
        return authToken.clone();
    }

    @Override
    public int encodedLength()
    {
        return TOKEN_OFFSET + authToken.length + endpoint.encodedLength();
    }

    void encodeBody(final MessageWriter writer)
    {
        final byte[] endpointBytes = endpoint.toBytes();
        writer.u32(protocolVersion).u16(authToken.length).u16(endpointBytes.length)
            .bytes(authToken).bytes(endpointBytes);
    }

    static HelloMessage decode(final MessageReader reader, final long requestId)
    {
        final int version = reader.u32("protocol version");
        if (version != MessageHeaderDescriptor.PROTOCOL_VERSION)
        {
            throw new MalformedMessageException(
                BAD_VERSION, "HELLO of protocol version " + version + ": this build speaks version " +
                MessageHeaderDescriptor.PROTOCOL_VERSION);
        }
        final int tokenLength = reader.length(reader.u16("token length"), MAX_TOKEN_LENGTH, "auth token");
        final int endpointLength = reader.length(reader.u16("endpoint length"), MAX_ENDPOINT_LENGTH, "endpoint");
        final byte[] token = reader.bytes(tokenLength, "auth token");
        final QueuePairEndpoint endpoint = decodeEndpoint(reader.bytes(endpointLength, "endpoint"), reader.type());
        return new HelloMessage(requestId, version, token, endpoint);
    }

    /** Decodes endpoint bytes that must be exactly one {@link QueuePairEndpoint}. */
    static QueuePairEndpoint decodeEndpoint(final byte[] bytes, final MessageType type)
    {
        final ByteBuffer buffer = ByteBuffer.wrap(bytes);
        final QueuePairEndpoint endpoint;
        try
        {
            endpoint = QueuePairEndpoint.decode(buffer);
        }
        catch (final RuntimeException ex)
        {
            throw new MalformedMessageException(BAD_FIELD, type + " endpoint: " + ex.getMessage(), ex);
        }
        if (buffer.hasRemaining())
        {
            throw new MalformedMessageException(
                BAD_FIELD, type + " endpoint has " + buffer.remaining() + " bytes after its last field");
        }
        return endpoint;
    }

    @Override
    public boolean equals(final Object o)
    {
        return o instanceof HelloMessage m && requestId == m.requestId && protocolVersion == m.protocolVersion &&
            Arrays.equals(authToken, m.authToken) && endpoint.equals(m.endpoint);
    }

    @Override
    public int hashCode()
    {
        return Long.hashCode(requestId) * 31 + Arrays.hashCode(authToken) * 17 + endpoint.hashCode();
    }

    @Override
    public String toString()
    {
        return "HelloMessage{requestId=" + requestId + " protocolVersion=" + protocolVersion + " authToken=" +
            authToken.length + " bytes endpoint=" + endpoint + "}";
    }
}
