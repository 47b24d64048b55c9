package io.rdmakv.peer;

import java.net.InetSocketAddress;

/** A session could not be opened: the node is unreachable, or the connection broke during set-up. */
public final class SessionFailedException extends RuntimeException
{
    public SessionFailedException(final InetSocketAddress address, final Throwable cause)
    {
        super("cannot open a session with node " + address.getHostString() + ":" + address.getPort() + ": " +
            cause.getMessage(), cause);
    }
}
