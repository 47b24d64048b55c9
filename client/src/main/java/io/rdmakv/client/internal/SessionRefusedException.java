package io.rdmakv.client.internal;

import java.net.InetSocketAddress;

/** The node refused the session (HELLO_REFUSED): wrong token, unsupported protocol version, shutting down. */
public final class SessionRefusedException extends RuntimeException
{
    private final int code;

    public SessionRefusedException(final InetSocketAddress address, final int code, final String reason)
    {
        super("node " + address.getHostString() + ":" + address.getPort() + " refused the session: " + reason);
        this.code = code;
    }

    /** The {@link io.rdmakv.common.protocol.ReasonCode} number. */
    public int code()
    {
        return code;
    }
}
