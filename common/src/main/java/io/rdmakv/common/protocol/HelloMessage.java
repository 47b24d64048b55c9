package io.rdmakv.common.protocol;

import io.rdmakv.common.protocol.wire.MalformedMessageException;
import io.rdmakv.common.protocol.wire.MessageHeaderDescriptor;
import io.rdmakv.common.protocol.wire.MessageReader;
import io.rdmakv.common.protocol.wire.MessageType;
import io.rdmakv.common.protocol.wire.MessageWriter;
import io.rdmakv.common.protocol.wire.ReasonCode;
import io.rdmakv.verbs.QueuePairEndpoint;

import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.Arrays;

import static io.rdmakv.common.protocol.wire.MalformedMessageException.Kind.BAD_FIELD;
import static io.rdmakv.common.protocol.wire.MalformedMessageException.Kind.BAD_VERSION;

/**
 * HELLO, client to server over the bootstrap connection: open a session.
 *
 * <pre>
 *  16 protocol_version  u32   {@link MessageHeaderDescriptor#PROTOCOL_VERSION}
 *  20 token_length      u16   at most {@value #MAX_TOKEN_LENGTH}
 *  22 endpoint_length   u16   at most {@value #MAX_ENDPOINT_LENGTH}
 *  24 writer_id         u64   not 0: the client's identity, the same in every session it opens ({@link #newWriterId})
 *  32 token             token_length bytes (authentication token)
 *  .. endpoint          endpoint_length bytes: the client's queue pair, {@link QueuePairEndpoint#toBytes()}
 * </pre>
 *
 * The writer id lets a primary have its backups fence a writer whose session it reclaimed ({@link
 * FenceWritersMessage}): the backups know the writer's sessions with them by it. It is drawn at random (64 bits of
 * {@link SecureRandom}) and told to no one but the nodes, so no other client can name it.
 *
 * <p>Decoding checks the version before anything else and throws {@link MalformedMessageException.Kind#BAD_VERSION}
 * for another one (answer it with HELLO_REFUSED {@link ReasonCode#UNSUPPORTED_VERSION}).
 */
public record HelloMessage(long requestId, int protocolVersion, long writerId, byte[] authToken,
    QueuePairEndpoint endpoint)
    implements ControlMessage
{
    public static final int PROTOCOL_VERSION_OFFSET = MessageHeaderDescriptor.HEADER_LENGTH;
    public static final int TOKEN_LENGTH_OFFSET = PROTOCOL_VERSION_OFFSET + Integer.BYTES;
    public static final int ENDPOINT_LENGTH_OFFSET = TOKEN_LENGTH_OFFSET + Short.BYTES;
    public static final int WRITER_ID_OFFSET = ENDPOINT_LENGTH_OFFSET + Short.BYTES;
    public static final int TOKEN_OFFSET = WRITER_ID_OFFSET + Long.BYTES;

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
        if (writerId == 0)
        {
            throw new IllegalArgumentException("HELLO needs a writer id other than 0");
        }
    }

    /** A HELLO of this build's protocol version from writer {@code writerId}. */
    public HelloMessage(final long requestId, final long writerId, final byte[] authToken,
        final QueuePairEndpoint endpoint)
    {
        this(requestId, MessageHeaderDescriptor.PROTOCOL_VERSION, writerId, authToken, endpoint);
    }

    /** A HELLO of this build's protocol version from a writer of its own ({@link #newWriterId}): one-off sessions. */
    public HelloMessage(final long requestId, final byte[] authToken, final QueuePairEndpoint endpoint)
    {
        this(requestId, newWriterId(), authToken, endpoint);
    }

    /** A new writer id: 64 random bits, never 0. One per client, for all of its sessions. */
    public static long newWriterId()
    {
        long id;
        do
        {
            id = WriterIds.RANDOM.nextLong();
        }
        while (id == 0);
        return id;
    }

    /** Holds the generator until the first id is drawn (seeding it costs a moment). */
    private static final class WriterIds
    {
        static final SecureRandom RANDOM = new SecureRandom();
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
        writer.u32(protocolVersion).u16(authToken.length).u16(endpointBytes.length).u64(writerId)
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
        final long writerId = reader.u64("writer id");
        if (writerId == 0)
        {
            throw new MalformedMessageException(BAD_FIELD, "HELLO of writer id 0: a client names itself by a non-zero id");
        }
        final byte[] token = reader.bytes(tokenLength, "auth token");
        final QueuePairEndpoint endpoint = decodeEndpoint(reader.bytes(endpointLength, "endpoint"), reader.type());
        return new HelloMessage(requestId, version, writerId, token, endpoint);
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
            writerId == m.writerId && Arrays.equals(authToken, m.authToken) && endpoint.equals(m.endpoint);
    }

    @Override
    public int hashCode()
    {
        return Long.hashCode(requestId) * 31 + Long.hashCode(writerId) * 7 + Arrays.hashCode(authToken) * 17 + endpoint.hashCode();
    }

    @Override
    public String toString()
    {
        return "HelloMessage{requestId=" + requestId + " protocolVersion=" + protocolVersion + " writerId=" +
            Long.toHexString(writerId) + " authToken=" +
            authToken.length + " bytes endpoint=" + endpoint + "}";
    }
}
