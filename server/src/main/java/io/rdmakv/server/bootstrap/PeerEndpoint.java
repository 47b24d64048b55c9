package io.rdmakv.server.bootstrap;

import io.rdmakv.verbs.QueuePairEndpoint;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;

/**
 * Which queue pair endpoint a node connects a session's queue pair to. A {@code tcp} endpoint names a
 * host and port that the node opens a TCP connection to at RTR, so a HELLO could aim the node at any
 * address and read the refusal as a port scan through it. The node therefore connects only to the host
 * the HELLO came from (the bootstrap connection's remote address), by that address (a name in the
 * endpoint is resolved once, here, and must denote it), and refuses with the same few words whatever
 * went wrong ({@link #NOT_HELLO_HOST}, {@link #CANNOT_CONNECT}): nothing about the named host or port.
 */
public final class PeerEndpoint
{
    public static final String NOT_HELLO_HOST = "the queue pair endpoint must be on the host the HELLO came from";
    public static final String CANNOT_CONNECT = "cannot connect to the queue pair endpoint the HELLO named";

    private PeerEndpoint()
    {
    }

    /**
     * The endpoint to connect to: {@code endpoint} with its host replaced by {@code helloFrom}'s address, or
     * null when it names another host (or none, or a name that does not resolve to {@code helloFrom}).
     */
    public static QueuePairEndpoint pin(final QueuePairEndpoint endpoint, final InetAddress helloFrom)
    {
        if (!"tcp".equals(endpoint.provider()))
        {
            // ibverbs endpoints name a GID and LID, not an IP host: RTR programs the local NIC and opens no
            // connection, and the fabric (not this node) routes to the GID. No host check applies.
            return endpoint;
        }
        return denotes(endpoint.host(), helloFrom) ? endpoint.withHost(helloFrom.getHostAddress()) : null;
    }

    private static boolean denotes(final String host, final InetAddress address)
    {
        if (host.isEmpty())
        {
            return false;
        }
        try
        {
            return address.equals(InetAddress.ofLiteral(host));
        }
        catch (final IllegalArgumentException notALiteral)
        {
            try
            {
                return Arrays.asList(InetAddress.getAllByName(host)).contains(address);
            }
            catch (final UnknownHostException | SecurityException e)
            {
                return false;
            }
        }
    }
}
