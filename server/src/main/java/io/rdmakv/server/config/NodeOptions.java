package io.rdmakv.server.config;

import io.rdmakv.server.ServerConfig;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

import java.nio.file.Path;

/** Who this node is and how clients reach it: listen address, node id, cluster map, auth token. */
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

    @Option(names = "--auth-token", paramLabel = "TOKEN",
        description = "Token clients must present; prefer $RDMAKV_AUTH_TOKEN or the config file (a command line " +
            "is visible to other users). Default: none (any client).")
    private String authToken;

    /** Sets listen address, node id, cluster map and token; refuses a malformed address or a negative id. */
    public void configure(final ServerConfig.Builder builder, final CommandSpec spec)
    {
        final int colon = listen.lastIndexOf(':');
        if (colon <= 0)
        {
            throw Invalid.value(spec, "--listen", listen, "HOST:PORT");
        }
        final int port;
        try
        {
            port = Integer.parseInt(listen.substring(colon + 1));
        }
        catch (final NumberFormatException e)
        {
            throw Invalid.value(spec, "--listen", listen, "HOST:PORT with a numeric port");
        }
        if (port < 0 || port > 65535)
        {
            throw Invalid.value(spec, "--listen", listen, "HOST:PORT with a port in 0..65535");
        }
        if (nodeId < 0)
        {
            throw Invalid.value(spec, "--node-id", nodeId, "a node id of 0 or more");
        }
        builder.listen(listen.substring(0, colon), port).nodeId(nodeId).clusterFile(cluster)
            .authToken(authToken == null ? "" : authToken);
    }
}
