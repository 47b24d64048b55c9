package io.rdmakv.common.cluster;

import java.nio.charset.StandardCharsets;

/**
 * One server node of a cluster: its id (the {@code node_id} of its region header) and the host and port
 * of its TCP bootstrap listener.
 */
public record ClusterNode(int id, String host, int port)
{
    public static final int MAX_HOST_LENGTH = 255;

    public ClusterNode
    {
        if (id < 0)
        {
            throw new InvalidClusterMapException("node id " + id + " is negative");
        }
        if (host == null || host.isBlank())
        {
            throw new InvalidClusterMapException("node " + id + " has no host");
        }
        if (host.getBytes(StandardCharsets.UTF_8).length > MAX_HOST_LENGTH)
        {
            throw new InvalidClusterMapException("node " + id + " host is longer than " + MAX_HOST_LENGTH + " bytes");
        }
        if (port < 1 || port > 65535)
        {
            throw new InvalidClusterMapException("node " + id + " port " + port + " outside 1..65535");
        }
    }

    /** {@code host:port}, with brackets around an IPv6 literal. */
    public String address()
    {
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }
}
