package io.rdmakv.server.config;

import io.rdmakv.server.ServerConfig;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

/**
 * Membership through ZooKeeper: the ensemble, the cluster's name, the replication factor a new cluster is
 * created with and the session timeout. Without {@code --zookeeper} none of the others may be set (they
 * would be silently ignored), and {@code --zookeeper} excludes {@code --cluster FILE} (checked by the command:
 * the two are different ways to learn the map).
 */
public final class ZooKeeperOptions
{
    @Option(names = "--zookeeper", paramLabel = "HOST:PORT[,HOST:PORT...]",
        description = "Join the cluster kept in this ZooKeeper ensemble: the node registers there, the map (replica " +
            "groups, epoch) comes from there, and it is served to clients in HELLO_OK. Needs --cluster-name; " +
            "excludes --cluster. Default: none (a single node, or the static map of --cluster).")
    private String zookeeper;

    @Option(names = "--cluster-name", paramLabel = "NAME",
        description = "The cluster's name, its znodes live under /rdmakv/NAME; " +
            ServerConfig.ZooKeeper.CLUSTER_NAME_PATTERN + ". Required with --zookeeper. Default: none.")
    private String clusterName;

    @Option(names = "--replicas", paramLabel = "N",
        description = "Replication factor, 1.." + ServerConfig.ZooKeeper.MAX_REPLICAS + ", used when this node " +
            "creates the cluster (a cluster that exists keeps its own, with a warning). Only with --zookeeper. " +
            "Default: " + ServerConfig.ZooKeeper.DEFAULT_REPLICAS + ".")
    private Integer replicas;

    @Option(names = "--zk-session-timeout-ms", paramLabel = "MS",
        description = "ZooKeeper session timeout: a node cut off from ZooKeeper this long is counted gone and its " +
            "groups fail over; " + ServerConfig.ZooKeeper.MIN_SESSION_TIMEOUT_MS + ".." +
            ServerConfig.ZooKeeper.MAX_SESSION_TIMEOUT_MS + ". Only with --zookeeper. Default: " +
            ServerConfig.ZooKeeper.DEFAULT_SESSION_TIMEOUT_MS + ".")
    private Integer sessionTimeoutMs;

    /** Sets the ZooKeeper settings, or none; refuses a value out of range or one that needs --zookeeper. */
    public void configure(final ServerConfig.Builder builder, final CommandSpec spec)
    {
        if (zookeeper == null)
        {
            final String stray = clusterName != null ? "--cluster-name" : replicas != null ? "--replicas" :
                sessionTimeoutMs != null ? "--zk-session-timeout-ms" : null;
            if (stray != null)
            {
                throw Invalid.because(spec, stray, stray.equals("--cluster-name") ? clusterName :
                    stray.equals("--replicas") ? replicas : sessionTimeoutMs, "only with --zookeeper");
            }
            builder.zookeeper(null);
            return;
        }
        if (!validConnect(zookeeper))
        {
            throw Invalid.value(spec, "--zookeeper", zookeeper, "HOST:PORT[,HOST:PORT...] with ports in 1..65535");
        }
        if (clusterName == null)
        {
            throw Invalid.because(spec, "--zookeeper", zookeeper, "needs --cluster-name NAME");
        }
        if (!clusterName.matches(ServerConfig.ZooKeeper.CLUSTER_NAME_PATTERN))
        {
            throw Invalid.value(spec, "--cluster-name", clusterName, ServerConfig.ZooKeeper.CLUSTER_NAME_PATTERN);
        }
        final int r = replicas == null ? ServerConfig.ZooKeeper.DEFAULT_REPLICAS : replicas;
        if (r < 1 || r > ServerConfig.ZooKeeper.MAX_REPLICAS)
        {
            throw Invalid.value(spec, "--replicas", r, "1.." + ServerConfig.ZooKeeper.MAX_REPLICAS);
        }
        final int timeout = sessionTimeoutMs == null ? ServerConfig.ZooKeeper.DEFAULT_SESSION_TIMEOUT_MS :
            sessionTimeoutMs;
        if (timeout < ServerConfig.ZooKeeper.MIN_SESSION_TIMEOUT_MS ||
            timeout > ServerConfig.ZooKeeper.MAX_SESSION_TIMEOUT_MS)
        {
            throw Invalid.value(spec, "--zk-session-timeout-ms", timeout, ServerConfig.ZooKeeper.MIN_SESSION_TIMEOUT_MS +
                ".." + ServerConfig.ZooKeeper.MAX_SESSION_TIMEOUT_MS + " milliseconds");
        }
        builder.zookeeper(new ServerConfig.ZooKeeper(zookeeper, clusterName, r, timeout));
    }

    /** Every comma-separated element is HOST:PORT with a non-empty host and a port in 1..65535. */
    private static boolean validConnect(final String connect)
    {
        for (final String server : connect.split(",", -1))
        {
            final int colon = server.lastIndexOf(':');
            if (colon <= 0)
            {
                return false;
            }
            try
            {
                final int port = Integer.parseInt(server.substring(colon + 1));
                if (port < 1 || port > 65535)
                {
                    return false;
                }
            }
            catch (final NumberFormatException e)
            {
                return false;
            }
        }
        return true;
    }
}
