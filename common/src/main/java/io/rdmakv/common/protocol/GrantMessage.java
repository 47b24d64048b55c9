package io.rdmakv.common.protocol;

import io.rdmakv.common.protocol.wire.MessageHeaderDescriptor;
import io.rdmakv.common.protocol.wire.MessageReader;
import io.rdmakv.common.protocol.wire.MessageType;
import io.rdmakv.common.protocol.wire.MessageWriter;

import java.util.Set;

/**
 * A grant of a replica group's primary, named: one class for the three messages that carry one, which give
 * memory windows on the other replicas of a group (backups and copying nodes) to the writer the primary granted
 * an extent ({@code docs/design.md}, "Windows in a replicated group"):
 * <ul>
 *   <li>BIND_WINDOW, client to a backup or copying node: bind me a window over this extent, which the primary
 *       granted my session {@code session_id} there under {@code secret} (from its ALLOC_OK); answered
 *       WINDOW_BOUND with the rkey, or ERROR. {@code writer_id} is zero: the node takes the writer from the
 *       session's HELLO.</li>
 *   <li>CHECK_GRANT, backup or copying node to its primary: is {@code session_id}, of writer {@code writer_id}, a
 *       live session whose latest grant is this extent under {@code secret}? Answered GRANT_CHECKED.</li>
 *   <li>REVOKE_GRANT, primary to a backup or copying node: deallocate every window bound for the grant of
 *       session {@code session_id} under {@code secret} (its session is being granted another extent, or is
 *       gone); answered GRANT_REVOKED once they are gone. Offset and length are zero.</li>
 * </ul>
 *
 * <pre>
 *  16 writer_id    u64   CHECK_GRANT: the writer asking for the window; else 0
 *  24 session_id   u64   the session on the primary that holds the grant
 *  32 offset       u64   the extent's offset in the data area (REVOKE_GRANT: 0)
 *  40 length       u64   the extent's length (REVOKE_GRANT: 0)
 *  48 secret       u64   the grant's secret (never 0): only the primary and the grantee know it
 * </pre>
 */
public record GrantMessage(MessageType type, long requestId, long writerId, long sessionId, long offset, long length,
    long secret) implements ControlMessage
{
    /** The message types this class carries. */
    public static final Set<MessageType> TYPES =
        Set.of(MessageType.BIND_WINDOW, MessageType.CHECK_GRANT, MessageType.REVOKE_GRANT);

    /**
     * The session id that names no client's session but the primary node's own grant of its data area to its
     * scrub, which writes blocks over a backup's damaged or forged copies, one block's window at a time (session
     * ids are never 0).
     */
    public static final long NODE_SESSION_ID = 0;

    private static final java.security.SecureRandom RANDOM = new java.security.SecureRandom();

    public static final int WRITER_ID_OFFSET = MessageHeaderDescriptor.HEADER_LENGTH;
    public static final int SESSION_ID_OFFSET = WRITER_ID_OFFSET + Long.BYTES;
    public static final int OFFSET_OFFSET = SESSION_ID_OFFSET + Long.BYTES;
    public static final int LENGTH_OFFSET = OFFSET_OFFSET + Long.BYTES;
    public static final int SECRET_OFFSET = LENGTH_OFFSET + Long.BYTES;
    public static final int LENGTH = SECRET_OFFSET + Long.BYTES;

    public GrantMessage
    {
        if (!TYPES.contains(type))
        {
            throw new IllegalArgumentException(type + " does not name a grant (" + TYPES + ")");
        }
        if (secret == 0)
        {
            throw new IllegalArgumentException(type + " with a zero secret (no grant has one)");
        }
        if (offset < 0 || length < 0 || (type == MessageType.REVOKE_GRANT ? offset != 0 || length != 0 : length == 0))
        {
            throw new IllegalArgumentException(type + " of " + length + " bytes at " + offset +
                (type == MessageType.REVOKE_GRANT ? ": a revocation names no extent" : ": an extent is not empty"));
        }
        if (type == MessageType.CHECK_GRANT ? writerId == 0 : writerId != 0)
        {
            throw new IllegalArgumentException(type + " with writer id " + writerId + (type == MessageType.CHECK_GRANT ?
                ": a check names the writer" : ": only a check names a writer"));
        }
    }

    /** A new grant secret: 64 random bits of {@link java.security.SecureRandom}, never 0. */
    public static long newSecret()
    {
        long secret;
        do
        {
            secret = RANDOM.nextLong();
        }
        while (secret == 0);
        return secret;
    }

    /** BIND_WINDOW for the extent {@code session} was granted on its primary under {@code secret}. */
    public static GrantMessage bind(final long requestId, final long session, final long offset, final long length,
        final long secret)
    {
        return new GrantMessage(MessageType.BIND_WINDOW, requestId, 0, session, offset, length, secret);
    }

    /** CHECK_GRANT: the primary is asked whether {@code writer}'s BIND_WINDOW names a grant it holds. */
    public static GrantMessage check(final long requestId, final long writer, final GrantMessage bind)
    {
        return new GrantMessage(MessageType.CHECK_GRANT, requestId, writer, bind.sessionId, bind.offset, bind.length,
            bind.secret);
    }

    /** REVOKE_GRANT of {@code session}'s grant under {@code secret}. */
    public static GrantMessage revoke(final long requestId, final long session, final long secret)
    {
        return new GrantMessage(MessageType.REVOKE_GRANT, requestId, 0, session, 0, 0, secret);
    }

    @Override
    public int encodedLength()
    {
        return LENGTH;
    }

    void encodeBody(final MessageWriter writer)
    {
        writer.u64(writerId).u64(sessionId).u64(offset).u64(length).u64(secret);
    }

    static GrantMessage decode(final MessageType type, final MessageReader reader, final long requestId)
    {
        final long writer = reader.u64("writer id");
        final long session = reader.u64("session id");
        final long offset = reader.u64("offset");
        final long length = reader.u64("length");
        final long secret = reader.u64("secret");
        return new GrantMessage(type, requestId, writer, session, offset, length, secret);
    }
}
