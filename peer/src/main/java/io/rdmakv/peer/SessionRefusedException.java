package io.rdmakv.peer;

import java.net.InetSocketAddress;

/**
 * No session can be had with the node, and trying again will not help: it refused (HELLO_REFUSED: wrong
 * token, unsupported protocol version, shutting down, TLS required), or this client refuses it (its region
 * layout version is not the one this build reads), or TLS with it cannot work (its certificate not
 * trusted, TLS on one side only).
 */
public final class SessionRefusedException extends RuntimeException
{
    /** {@link #code()} of a node this client refuses. */
    public static final int INCOMPATIBLE = -1;
    /** {@link #code()} of a TLS connection that cannot work: untrusted certificate, no TLS on one side. */
    public static final int TLS = -2;

    private final int code;

    public SessionRefusedException(final InetSocketAddress address, final int code, final String reason)
    {
        this("node " + address.getHostString() + ":" + address.getPort() + " refused the session: " + reason, code);
    }

    private SessionRefusedException(final String message, final int code)
    {
        super(message);
        this.code = code;
    }

    /** This client cannot work with the node: {@code reason} says why (both versions named). */
    public static SessionRefusedException incompatible(final InetSocketAddress address, final String reason)
    {
        return new SessionRefusedException("node " + address.getHostString() + ":" + address.getPort() +
            " is incompatible with this client: " + reason, INCOMPATIBLE);
    }

    /** TLS with the node cannot work as configured: {@code reason} says why and where to look. */
    public static SessionRefusedException tls(final InetSocketAddress address, final String reason)
    {
        return new SessionRefusedException("TLS with node " + address.getHostString() + ":" + address.getPort() +
            " failed: " + reason, TLS);
    }

    /** The {@link io.rdmakv.common.protocol.wire.ReasonCode} number. */
    public int code()
    {
        return code;
    }

    /**
     * Whether the node refused only for now: it is in no map yet (or no more), cannot confirm it is current, or
     * is shutting down; another node, or this one later, may serve. Auth, TLS, version and limits are final.
     */
    public boolean forNow()
    {
        return code == io.rdmakv.common.protocol.wire.ReasonCode.NOT_IN_CLUSTER.code() ||
            code == io.rdmakv.common.protocol.wire.ReasonCode.NOT_CURRENT.code() ||
            code == io.rdmakv.common.protocol.wire.ReasonCode.SHUTTING_DOWN.code();
    }
}
