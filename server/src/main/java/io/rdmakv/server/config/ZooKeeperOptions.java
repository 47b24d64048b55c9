package io.rdmakv.server.config;

import io.rdmakv.server.cluster.zk.ZkCredentials;
import io.rdmakv.server.cluster.zk.ZkTls;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * Membership through ZooKeeper: the ensemble, the cluster's name, the replication factor a new cluster is
 * created with, the session timeout, the digest credential and TLS. Without {@code --zookeeper} none of the others may be set (they
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

    @Option(names = "--partitions", paramLabel = "N",
        description = "Partition count, " + ServerConfig.ZooKeeper.PARTITIONS_RULE + ", used when this node creates " +
            "the cluster (fixed for its life: a cluster that exists keeps its own, with a warning). Only with " +
            "--zookeeper. Default: " + ServerConfig.ZooKeeper.DEFAULT_PARTITIONS + ".")
    private Integer partitions;

    @Option(names = "--zk-session-timeout-ms", paramLabel = "MS",
        description = "ZooKeeper session timeout: a node cut off from ZooKeeper this long is counted gone and its " +
            "groups fail over; " + ServerConfig.ZooKeeper.MIN_SESSION_TIMEOUT_MS + ".." +
            ServerConfig.ZooKeeper.MAX_SESSION_TIMEOUT_MS + ". Only with --zookeeper. Default: " +
            ServerConfig.ZooKeeper.DEFAULT_SESSION_TIMEOUT_MS + ".")
    private Integer sessionTimeoutMs;

    @Option(names = "--move-stuck-ms", paramLabel = "MS",
        description = "When this node coordinates: a partition move batch that stays this long in one phase before " +
            "SWITCH (COPY or FREEZE) is aborted, as a failed copy is (the source keeps serving, the target zeroes its " +
            "copy); 0: never. 0.." + ServerConfig.ZooKeeper.MAX_MOVE_STUCK_MS + ". Only with --zookeeper. Default: " +
            ServerConfig.ZooKeeper.DEFAULT_MOVE_STUCK_MS + ".")
    private Long moveStuckMs;

    @Option(names = "--zk-auth-file", paramLabel = "FILE",
        description = "ZooKeeper digest credential: a file holding one line 'user:password', readable by its owner " +
            "only (refused when group or others have any permission, as ssh refuses a private key). The session " +
            "authenticates with it and every znode the node creates grants ALL to that identity and nothing to " +
            "anyone else; an open cluster is locked down. Without it, $" + ZK_AUTH_ENV + " (there is no flag " +
            "that takes the secret itself). Only with --zookeeper. Default: none (znodes open to anyone, warned).")
    private Path authFile;

    @Option(names = "--zk-tls-ca", paramLabel = "FILE",
        description = "TLS to ZooKeeper: PEM CA certificates that verify ZooKeeper's certificate (and its name " +
            "against the host in --zookeeper). Only with --zookeeper. Default: none (plaintext).")
    private Path tlsCa;

    @Option(names = "--zk-tls-cert", paramLabel = "FILE",
        description = "PEM certificate chain this node presents to ZooKeeper (when ZooKeeper asks for client " +
            "certificates); needs --zk-tls-key and --zk-tls-ca. Default: none.")
    private Path tlsCert;

    @Option(names = "--zk-tls-key", paramLabel = "FILE",
        description = "PEM private key (unencrypted PKCS#8, '-----BEGIN PRIVATE KEY-----') of --zk-tls-cert. " +
            "Default: none.")
    private Path tlsKey;

    /** The ZooKeeper credential may come from this variable, {@code user:password}, when no file is given. */
    public static final String ZK_AUTH_ENV = "RDMAKV_ZK_AUTH";

    /**
     * Sets the ZooKeeper settings, or none; refuses a value out of range or one that needs --zookeeper.
     *
     * @param environment the process environment ({@value #ZK_AUTH_ENV})
     */
    public void configure(final ServerConfig.Builder builder, final CommandSpec spec,
        final Map<String, String> environment)
    {
        if (zookeeper == null)
        {
            final String stray = clusterName != null ? "--cluster-name" : replicas != null ? "--replicas" :
                partitions != null ? "--partitions" :
                sessionTimeoutMs != null ? "--zk-session-timeout-ms" : moveStuckMs != null ? "--move-stuck-ms" :
                authFile != null ? "--zk-auth-file" :
                tlsCa != null ? "--zk-tls-ca" : tlsCert != null ? "--zk-tls-cert" : tlsKey != null ? "--zk-tls-key" :
                null;
            if (stray != null)
            {
                throw Invalid.because(spec, stray, switch (stray)
                {
                    case "--cluster-name" -> clusterName;
                    case "--replicas" -> replicas;
                    case "--partitions" -> partitions;
                    case "--zk-session-timeout-ms" -> sessionTimeoutMs;
                    case "--move-stuck-ms" -> moveStuckMs;
                    case "--zk-auth-file" -> authFile;
                    case "--zk-tls-ca" -> tlsCa;
                    case "--zk-tls-cert" -> tlsCert;
                    default -> tlsKey;
                }, "only with --zookeeper");
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
        final int p = partitions == null ? ServerConfig.ZooKeeper.DEFAULT_PARTITIONS : partitions;
        if (!ServerConfig.ZooKeeper.validPartitions(p))
        {
            throw Invalid.value(spec, "--partitions", p, ServerConfig.ZooKeeper.PARTITIONS_RULE);
        }
        final int timeout = sessionTimeoutMs == null ? ServerConfig.ZooKeeper.DEFAULT_SESSION_TIMEOUT_MS :
            sessionTimeoutMs;
        if (timeout < ServerConfig.ZooKeeper.MIN_SESSION_TIMEOUT_MS ||
            timeout > ServerConfig.ZooKeeper.MAX_SESSION_TIMEOUT_MS)
        {
            throw Invalid.value(spec, "--zk-session-timeout-ms", timeout, ServerConfig.ZooKeeper.MIN_SESSION_TIMEOUT_MS +
                ".." + ServerConfig.ZooKeeper.MAX_SESSION_TIMEOUT_MS + " milliseconds");
        }
        final long stuck = moveStuckMs == null ? ServerConfig.ZooKeeper.DEFAULT_MOVE_STUCK_MS : moveStuckMs;
        if (stuck < 0 || stuck > ServerConfig.ZooKeeper.MAX_MOVE_STUCK_MS)
        {
            throw Invalid.value(spec, "--move-stuck-ms", stuck, "0.." + ServerConfig.ZooKeeper.MAX_MOVE_STUCK_MS +
                " milliseconds (0: never abort a stuck move)");
        }
        builder.zookeeper(new ServerConfig.ZooKeeper(zookeeper, clusterName, r, p, timeout, credentials(spec, environment),
            tls(spec), stuck));
    }

    /** From --zk-auth-file, else $RDMAKV_ZK_AUTH, else none. */
    private ZkCredentials credentials(final CommandSpec spec, final Map<String, String> environment)
    {
        if (authFile != null)
        {
            try
            {
                return ZkCredentials.fromFile(authFile);
            }
            catch (final IllegalArgumentException e)
            {
                throw Invalid.because(spec, "--zk-auth-file", authFile, e.getMessage());
            }
        }
        final String fromEnvironment = environment.get(ZK_AUTH_ENV);
        if (fromEnvironment == null)
        {
            return null;
        }
        try
        {
            return ZkCredentials.parse(fromEnvironment, "$" + ZK_AUTH_ENV);
        }
        catch (final IllegalArgumentException e)
        {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    /** TLS from --zk-tls-ca (and --zk-tls-cert with --zk-tls-key), or none; every file must be readable. */
    private ZkTls tls(final CommandSpec spec)
    {
        if (tlsCert != null && tlsKey == null)
        {
            throw Invalid.because(spec, "--zk-tls-cert", tlsCert, "needs --zk-tls-key, the certificate's private key");
        }
        if (tlsKey != null && tlsCert == null)
        {
            throw Invalid.because(spec, "--zk-tls-key", tlsKey, "needs --zk-tls-cert, the certificate it belongs to");
        }
        if (tlsCa == null)
        {
            if (tlsCert != null)
            {
                throw Invalid.because(spec, "--zk-tls-cert", tlsCert, "TLS to ZooKeeper needs --zk-tls-ca, the CA " +
                    "that signed ZooKeeper's certificate");
            }
            return null;
        }
        readable(spec, "--zk-tls-ca", tlsCa);
        if (tlsCert != null)
        {
            readable(spec, "--zk-tls-cert", tlsCert);
            readable(spec, "--zk-tls-key", tlsKey);
        }
        return new ZkTls(tlsCa, tlsCert, tlsKey);
    }

    private static void readable(final CommandSpec spec, final String option, final Path file)
    {
        if (!Files.isRegularFile(file))
        {
            throw Invalid.because(spec, option, file, Files.exists(file) ? "not a file" : "no such file");
        }
        if (!Files.isReadable(file))
        {
            throw Invalid.because(spec, option, file, "cannot be read by this user");
        }
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
