package io.rdmakv.server.config;

import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

import java.nio.file.Path;

/**
 * Who this node is and how clients reach it: listen address, node id, cluster map, auth token, how many
 * connections it holds.
 */
public final class NodeOptions
{
    @Option(names = "--listen", paramLabel = "HOST:PORT",
        defaultValue = ServerConfig.DEFAULT_LISTEN_HOST + ":" + ServerConfig.DEFAULT_PORT,
        description = "Address of the bootstrap listener clients connect to (0.0.0.0 for every interface). " +
            "Default: ${DEFAULT-VALUE}.")
    private String listen;

    @Option(names = "--node-id", paramLabel = "ID", defaultValue = "0",
        description = "This node's id in the cluster map. Default: ${DEFAULT-VALUE}.")
    private int nodeId;

    @Option(names = "--cluster", paramLabel = "FILE",
        description = "Cluster map (JSON) listing every node. Default: none (a cluster of this node alone).")
    private Path cluster;

    @Option(names = "--advertise", paramLabel = "HOST:PORT",
        description = "The address clients are to use, as the cluster map lists this node, when it differs from " +
            "--listen (NAT, a proxy, a container port mapping). Default: the --listen address.")
    private String advertise;

    @Option(names = "--auth-token", paramLabel = "TOKEN",
        description = "Token clients must present; prefer $RDMAKV_AUTH_TOKEN or the config file (a command line " +
            "is visible to other users). Default: none (any client).")
    private String authToken;

    @Option(names = "--max-connections", paramLabel = "N",
        description = "The most bootstrap connections (handshakes waiting for their HELLO and client sessions) the " +
            "node holds at once; over it a new connection is closed as soon as it is accepted and counted " +
            "(rdmakv_connections_refused_total), and existing sessions go on being served. Default: derived from " +
            "the process's file descriptor limit: (limit - " + ConnectionDefaults.RESERVED_DESCRIPTORS + ") / " +
            ConnectionDefaults.DESCRIPTORS_PER_SESSION + ", at most " + ConnectionDefaults.MAX_DEFAULT + ".")
    private Integer maxConnections;

    /**
     * Sets listen and advertised address, node id, cluster map and token; refuses a malformed address or a
     * negative id. The cluster map itself is read and checked when the node starts (a usage error too).
     */
    public void configure(final ServerConfig.Builder builder, final CommandSpec spec)
    {
        final int colon = colonOf(spec, "--listen", listen);
        final String host = listen.substring(0, colon);
        final int port = portOf(spec, "--listen", listen, colon);
        if (nodeId < 0)
        {
            throw Invalid.value(spec, "--node-id", nodeId, "a node id of 0 or more");
        }
        String advertiseHost = null;
        int advertisePort = 0;
        if (advertise != null)
        {
            final int at = colonOf(spec, "--advertise", advertise);
            advertiseHost = advertise.substring(0, at);
            advertisePort = portOf(spec, "--advertise", advertise, at);
        }
        if (maxConnections != null && maxConnections < 1)
        {
            throw Invalid.value(spec, "--max-connections", maxConnections, "a positive number of connections");
        }
        builder.maxConnections(maxConnections == null ? 0 : maxConnections);
        builder.listen(host, port).advertise(advertiseHost, advertisePort).nodeId(nodeId).clusterFile(cluster)
            .authToken(authToken == null ? "" : authToken);
    }

    private static int colonOf(final CommandSpec spec, final String option, final String value)
    {
        final int colon = value.lastIndexOf(':');
        if (colon <= 0)
        {
            throw Invalid.value(spec, option, value, "HOST:PORT");
        }
        return colon;
    }

    private static int portOf(final CommandSpec spec, final String option, final String value, final int colon)
    {
        final int port;
        try
        {
            port = Integer.parseInt(value.substring(colon + 1));
        }
        catch (final NumberFormatException e)
        {
            throw Invalid.value(spec, option, value, "HOST:PORT with a numeric port");
        }
        if (port < 0 || port > 65535)
        {
            throw Invalid.value(spec, option, value, "HOST:PORT with a port in 0..65535");
        }
        return port;
    }
}
