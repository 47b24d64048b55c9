package io.rdmakv.server.config;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;

/**
 * Protected mode: a node with authentication off (no auth token, no client certificates) would give anyone
 * who reaches its port every key and the rkeys to read and write its whole region, so it listens only on
 * loopback unless told {@code --insecure}. A node that does start without authentication, or with a token
 * but without TLS on a non-loopback address, says so at start.
 */
public final class ProtectedMode
{
    /** The node cannot start as configured: a configuration error (kvserver exits 2). */
    public static final class RefusedException extends IllegalArgumentException
    {
        private static final long serialVersionUID = 1L;

        RefusedException(final String message)
        {
            super(message);
        }
    }

    private ProtectedMode()
    {
    }

    /** Throws {@link RefusedException} when {@code config} listens beyond loopback with authentication off. */
    public static void check(final ServerConfig config)
    {
        if (!config.authenticates() && !config.insecure() && !isLoopback(config.listenHost()))
        {
            throw new RefusedException(refusal(config.listenHost()));
        }
    }

    /** The one-line refusal: what is wrong and both ways out. */
    public static String refusal(final String host)
    {
        return "refusing to listen on " + host + " with authentication off (anyone who reaches the port could read " +
            "and write every key): set an auth token (--auth-token or $RDMAKV_AUTH_TOKEN) or require client " +
            "certificates (--tls-client-ca), or start with --insecure to accept that";
    }

    /** The warnings a node with {@code config} prints at start (none when authenticated with TLS). */
    public static List<String> warnings(final ServerConfig config, final int port)
    {
        final List<String> lines = new ArrayList<>();
        final String where = config.listenHost() + ":" + port;
        if (!config.authenticates())
        {
            lines.add("warning: authentication is off: any client that reaches " + where + " may open a session " +
                "and read and write every key (" + (isLoopback(config.listenHost()) ? "loopback only" :
                "--insecure") + "); set --auth-token or --tls-client-ca to require one");
        }
        else if (config.tls() == null && !isLoopback(config.listenHost()))
        {
            lines.add("warning: no TLS on " + where + ": the auth token and the region's keys and addresses cross " +
                "the network in cleartext; set --tls-cert and --tls-key");
        }
        return lines;
    }

    /** Whether {@code host} names only loopback addresses (a name that does not resolve is not loopback). */
    static boolean isLoopback(final String host)
    {
        try
        {
            final InetAddress[] addresses = InetAddress.getAllByName(host);
            for (final InetAddress a : addresses)
            {
                if (!a.isLoopbackAddress())
                {
                    return false;
                }
            }
            return addresses.length > 0;
        }
        catch (final UnknownHostException | SecurityException e)
        {
            return false;
        }
    }
}
