package io.rdmakv.common.protocol.wire;

/**
 * Reason codes carried by HELLO_REFUSED, ALLOC_FAILED and ERROR. Messages hold the code as a plain
 * {@code int} so that a peer may send codes this build does not know; {@link #of(int)} names the known ones.
 */
public enum ReasonCode
{
    /** HELLO from another protocol (or region layout) version. */
    UNSUPPORTED_VERSION(1),
    /** HELLO with a wrong authentication token. */
    AUTH_FAILED(2),
    /** The server holds as many sessions as it allows. */
    TOO_MANY_CLIENTS(3),
    /** The server is shutting down. */
    SHUTTING_DOWN(4),
    /** ALLOC: no free chunk in the data area. */
    OUT_OF_MEMORY(5),
    /** ALLOC: more than one grant may be. */
    REQUEST_TOO_LARGE(6),
    /** ALLOC: the client holds as much space as it may. */
    QUOTA_EXCEEDED(7),
    /** A message that did not decode. */
    MALFORMED_MESSAGE(8),
    /** A message that is valid but not expected now (ALLOC before HELLO, ...). */
    UNEXPECTED_MESSAGE(9),
    /** FREE of space that the client was not granted. */
    BAD_FREE(10),
    /** The server failed for a reason of its own. */
    INTERNAL(11),
    /** HELLO in plaintext to a node that speaks only TLS on its bootstrap port. */
    TLS_REQUIRED(12),
    /** HELLO to a node that is not (yet, or no longer) in its cluster's map: ask another node. */
    NOT_IN_CLUSTER(13),
    /**
     * HELLO to a node of a ZooKeeper cluster that cannot confirm it is current (its ZooKeeper session is
     * suspended or may have expired, or the map it holds no longer vouches for it): it may have been replaced,
     * so it serves nobody until it is back in a current map. Ask another node.
     */
    NOT_CURRENT(14),
    /**
     * BIND_WINDOW naming a grant that the node's replica group's primary does not hold for the session's writer
     * (never granted, another writer's, or already superseded or revoked).
     */
    GRANT_UNKNOWN(15),
    /**
     * SLOT_CAS naming a word that is no slot or insert lock of the node's index (misaligned, in the region header,
     * a bucket group's reserved word, outside the index), or an insert lock the asking session may not take or
     * give back that way; nothing of the request ran.
     */
    BAD_SLOT_CAS(16);

    private final int code;

    ReasonCode(final int code)
    {
        this.code = code;
    }

    public int code()
    {
        return code;
    }

    /** The reason with wire code {@code code}, or null when this build does not know it. */
    public static ReasonCode of(final int code)
    {
        for (final ReasonCode reason : values())
        {
            if (reason.code == code)
            {
                return reason;
            }
        }
        return null;
    }

    /** The reason's name, or {@code "code N"} for codes this build does not know. */
    public static String describe(final int code)
    {
        final ReasonCode reason = of(code);
        return reason == null ? "code " + code : reason.name();
    }
}
