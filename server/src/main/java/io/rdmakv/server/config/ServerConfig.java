package io.rdmakv.server.config;

import io.rdmakv.common.SpaceTiming;
import io.rdmakv.common.layout.RegionGeometry;
import io.rdmakv.verbs.ConnectionSetup;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Everything a {@link io.rdmakv.server.KvServer} needs, built once by the command line (or a test) and immutable.
 *
 * @param listenHost  address of the bootstrap listener
 * @param listenPort  port of the bootstrap listener (0 picks a free one: tests)
 * @param memoryBytes size of the region (index plus data area)
 * @param transport   {@code auto}, {@code tcp} or {@code ibverbs}
 * @param nodeId      this node's id in the cluster map
 * @param clusterFile the cluster map (JSON), or null for a single-node cluster of this node alone
 * @param authToken   the token clients must present; empty accepts any client
 * @param graceNanos  how long freed space waits before reuse
 * @param chunkSize   bytes granted to a client per ALLOC
 * @param device      the RDMA device to open ({@code mlx5_0}, {@code rxe0}); null picks the first with an
 *                    active port
 * @param devicePort  the device's port number (ibverbs; usually 1)
 * @param hugePages   whether to align the region to 2 MiB and ask for transparent huge pages
 * @param metricsHost address of the Prometheus endpoint
 * @param metricsPort port of the Prometheus endpoint; 0 turns it off
 * @param leaseTimeoutNanos     a session that sends no heartbeat for this long loses its lease (is fenced)
 * @param heartbeatIntervalNanos how often clients send a heartbeat (told to them in HELLO_OK)
 * @param sessionQuotaBytes     the most data space one session may hold granted; 0 means the default,
 *                              {@link #DEFAULT_QUOTA_FRACTION} of the data area
 * @param advertiseHost the host clients are to use, as the cluster map lists this node (behind NAT or a
 *                      proxy); null: {@code listenHost}
 * @param advertisePort the port clients are to use; 0: the port the node listens on
 * @param memoryWindows whether each grant is written through a memory window of its own session's
 *                      ({@link MemoryWindowMode}; null: {@link MemoryWindowMode#AUTO})
 * @param tls           TLS on the bootstrap port (certificate, key, optional client CA), or null for none
 * @param insecure      whether to listen on a non-loopback address with authentication off (protected mode
 *                      refuses that otherwise, see {@link ProtectedMode})
 * @param zookeeper     the ZooKeeper ensemble whose cluster this node joins ({@code --zookeeper}), or null: a
 *                      single node or a static map ({@code clusterFile})
 * @param maxConnections the most bootstrap connections (handshakes and sessions) held at once; 0: derived
 *                      from the process's descriptor limit ({@link #effectiveMaxConnections})
 * @param scrubIntervalNanos how often a primary scrubs its backups (compares and mends their index words and
 *                      blocks); 0: never
 * @param writePath     how clients change the index: their own RDMA CAS or SLOT_CAS to the node ({@link WritePath};
 *                      null: {@link WritePath#AUTO}, from the device's atomic capability)
 * @param connectionSetup how the sessions' queue pairs are connected after the bootstrap ({@code --cm}): by
 *                      exchanging their endpoints, through rdma_cm, or {@code auto} (rdma_cm on iWARP devices)
 * @param cmAddress     the address the rdma_cm listener binds and clients connect to ({@code --cm-address}); null:
 *                      the listen host, or where that is a loopback or wildcard address the device's own
 */
public record ServerConfig(
    String listenHost,
    int listenPort,
    long memoryBytes,
    String transport,
    int nodeId,
    Path clusterFile,
    String authToken,
    long graceNanos,
    int chunkSize,
    String device,
    int devicePort,
    boolean hugePages,
    String metricsHost,
    int metricsPort,
    long leaseTimeoutNanos,
    long heartbeatIntervalNanos,
    long sessionQuotaBytes,
    String advertiseHost,
    int advertisePort,
    MemoryWindowMode memoryWindows,
    ServerTls tls,
    boolean insecure,
    ZooKeeper zookeeper,
    int maxConnections,
    long scrubIntervalNanos,
    WritePath writePath,
    ConnectionSetup connectionSetup,
    String cmAddress)
{
    public static final int DEFAULT_PORT = 7400;
    public static final String DEFAULT_LISTEN_HOST = "127.0.0.1";
    public static final long DEFAULT_MEMORY_BYTES = 1L << 30;
    public static final String DEFAULT_TRANSPORT = "auto";
    public static final int DEFAULT_DEVICE_PORT = 1;
    /** Loopback: the endpoint has no authentication, and tells the region's size and the session count. */
    public static final String DEFAULT_METRICS_HOST = "127.0.0.1";
    /** The port the sample configurations, the container and the Kubernetes manifests use for metrics. */
    public static final int RECOMMENDED_METRICS_PORT = 9400;
    public static final long DEFAULT_LEASE_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(3);
    public static final long DEFAULT_HEARTBEAT_INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(500);
    /** The default session quota is this fraction of the data area. */
    public static final double DEFAULT_QUOTA_FRACTION = 0.25;
    public static final long DEFAULT_SCRUB_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(60);

    public ServerConfig
    {
        authToken = authToken == null ? "" : authToken;
        metricsHost = metricsHost == null ? DEFAULT_METRICS_HOST : metricsHost;
        memoryWindows = memoryWindows == null ? MemoryWindowMode.AUTO : memoryWindows;
        writePath = writePath == null ? WritePath.AUTO : writePath;
        connectionSetup = connectionSetup == null ? ConnectionSetup.AUTO : connectionSetup;
        cmAddress = cmAddress == null || cmAddress.isBlank() ? null : cmAddress;
        if (maxConnections < 0)
        {
            throw new IllegalArgumentException("a connection limit of " + maxConnections + " (0: the default)");
        }
        if (scrubIntervalNanos < 0)
        {
            throw new IllegalArgumentException("a scrub interval of " + scrubIntervalNanos + " ns (0: off)");
        }
    }

    /** A configuration whose write path and queue-pair connection are {@code auto}. */
    public ServerConfig(final String listenHost, final int listenPort, final long memoryBytes, final String transport,
        final int nodeId, final Path clusterFile, final String authToken, final long graceNanos, final int chunkSize,
        final String device, final int devicePort, final boolean hugePages, final String metricsHost,
        final int metricsPort, final long leaseTimeoutNanos, final long heartbeatIntervalNanos,
        final long sessionQuotaBytes, final String advertiseHost, final int advertisePort,
        final MemoryWindowMode memoryWindows, final ServerTls tls, final boolean insecure, final ZooKeeper zookeeper,
        final int maxConnections, final long scrubIntervalNanos)
    {
        this(listenHost, listenPort, memoryBytes, transport, nodeId, clusterFile, authToken, graceNanos, chunkSize,
            device, devicePort, hugePages, metricsHost, metricsPort, leaseTimeoutNanos, heartbeatIntervalNanos,
            sessionQuotaBytes, advertiseHost, advertisePort, memoryWindows, tls, insecure, zookeeper, maxConnections,
            scrubIntervalNanos, WritePath.AUTO, ConnectionSetup.AUTO, null);
    }

    /** A configuration with the connection limit derived from the descriptor limit and the default scrub interval. */
    public ServerConfig(final String listenHost, final int listenPort, final long memoryBytes, final String transport,
        final int nodeId, final Path clusterFile, final String authToken, final long graceNanos, final int chunkSize,
        final String device, final int devicePort, final boolean hugePages, final String metricsHost,
        final int metricsPort, final long leaseTimeoutNanos, final long heartbeatIntervalNanos,
        final long sessionQuotaBytes, final String advertiseHost, final int advertisePort,
        final MemoryWindowMode memoryWindows, final ServerTls tls, final boolean insecure, final ZooKeeper zookeeper)
    {
        this(listenHost, listenPort, memoryBytes, transport, nodeId, clusterFile, authToken, graceNanos, chunkSize,
            device, devicePort, hugePages, metricsHost, metricsPort, leaseTimeoutNanos, heartbeatIntervalNanos,
            sessionQuotaBytes, advertiseHost, advertisePort, memoryWindows, tls, insecure, zookeeper, 0,
            DEFAULT_SCRUB_INTERVAL_NANOS, WritePath.AUTO, ConnectionSetup.AUTO, null);
    }

    /** {@link #maxConnections}, or when that is 0 the default for this process's descriptor limit. */
    public int effectiveMaxConnections()
    {
        return maxConnections > 0 ? maxConnections :
            ConnectionDefaults.defaultFor(ConnectionDefaults.processDescriptorLimit());
    }

    /** A configuration with the default device, no huge pages, metrics off and every other setting at its default. */
    public ServerConfig(final String listenHost, final int listenPort, final long memoryBytes, final String transport,
        final int nodeId, final Path clusterFile, final String authToken, final long graceNanos, final int chunkSize)
    {
        this(listenHost, listenPort, memoryBytes, transport, nodeId, clusterFile, authToken, graceNanos, chunkSize,
            null, DEFAULT_DEVICE_PORT, false, DEFAULT_METRICS_HOST, 0, DEFAULT_LEASE_TIMEOUT_NANOS,
            DEFAULT_HEARTBEAT_INTERVAL_NANOS, 0, null, 0, MemoryWindowMode.AUTO, null, false, null, 0,
            DEFAULT_SCRUB_INTERVAL_NANOS, WritePath.AUTO, ConnectionSetup.AUTO, null);
    }

    /**
     * Membership through ZooKeeper: the node registers under {@code /rdmakv/<clusterName>} of the ensemble
     * {@code connect} and serves the cluster map the coordinator writes there.
     *
     * @param connect          {@code HOST:PORT[,HOST:PORT...]}
     * @param clusterName      the cluster's name, {@value #CLUSTER_NAME_PATTERN}
     * @param replicas         the replication factor asked for when this node creates the cluster (1..5); a
     *                         cluster that exists keeps its own
     * @param sessionTimeoutMs the ZooKeeper session timeout: how long a node may be cut off before it is
     *                         counted gone
     * @param credentials      the digest credential ({@code --zk-auth-file}, {@code $RDMAKV_ZK_AUTH}), or null:
     *                         unauthenticated, the cluster's znodes open to anyone
     * @param tls              TLS to ZooKeeper ({@code --zk-tls-ca}, ...), or null: plaintext
     */
    public record ZooKeeper(String connect, String clusterName, int replicas, int partitions, int sessionTimeoutMs,
        io.rdmakv.server.cluster.zk.ZkCredentials credentials, io.rdmakv.server.cluster.zk.ZkTls tls,
        long moveStuckMs)
    {
        /**
         * {@code --move-stuck-ms}'s default: a move batch in one phase before SWITCH this long is aborted by the
         * coordinator (docs/growth.md §9).
         */
        public static final long DEFAULT_MOVE_STUCK_MS = io.rdmakv.server.cluster.zk.ZkOptions.DEFAULT_MOVE_STUCK_MS;
        /** The longest {@code --move-stuck-ms}: a day. */
        public static final long MAX_MOVE_STUCK_MS = 86_400_000;

        public static final String CLUSTER_NAME_PATTERN = "[A-Za-z0-9_][A-Za-z0-9_-]{0,63}";
        public static final int DEFAULT_REPLICAS = 1;
        public static final int MAX_REPLICAS = 5;
        /**
         * The partition count a new cluster is created with: enough that moving one partition moves a small share
         * of a node, and that groups of unequal size can be given shares close to their capacity.
         */
        public static final int DEFAULT_PARTITIONS = 4096;
        /** Partition counts a new cluster may be created with: powers of two (the partition is a mask). */
        public static final int MIN_PARTITIONS = 8;
        public static final int MAX_PARTITIONS = io.rdmakv.common.cluster.ClusterMap.MAX_PARTITIONS;
        public static final int DEFAULT_SESSION_TIMEOUT_MS = 4000;
        public static final int MIN_SESSION_TIMEOUT_MS = 1000;
        public static final int MAX_SESSION_TIMEOUT_MS = 60000;

        public ZooKeeper
        {
            if (connect == null || connect.isBlank())
            {
                throw new IllegalArgumentException("ZooKeeper needs HOST:PORT[,HOST:PORT...]");
            }
            if (clusterName == null || !clusterName.matches(CLUSTER_NAME_PATTERN))
            {
                throw new IllegalArgumentException("cluster name '" + clusterName + "' is not " + CLUSTER_NAME_PATTERN);
            }
            if (replicas < 1 || replicas > MAX_REPLICAS)
            {
                throw new IllegalArgumentException("replicas " + replicas + " outside 1.." + MAX_REPLICAS);
            }
            if (!validPartitions(partitions))
            {
                throw new IllegalArgumentException("partitions " + partitions + " is not " + PARTITIONS_RULE);
            }
            if (sessionTimeoutMs < MIN_SESSION_TIMEOUT_MS || sessionTimeoutMs > MAX_SESSION_TIMEOUT_MS)
            {
                throw new IllegalArgumentException("ZooKeeper session timeout " + sessionTimeoutMs + " ms outside " +
                    MIN_SESSION_TIMEOUT_MS + ".." + MAX_SESSION_TIMEOUT_MS);
            }
            if (moveStuckMs < 0 || moveStuckMs > MAX_MOVE_STUCK_MS)
            {
                throw new IllegalArgumentException("--move-stuck-ms " + moveStuckMs + " outside 0.." +
                    MAX_MOVE_STUCK_MS);
            }
        }

        /** With the default move-stuck time. */
        public ZooKeeper(final String connect, final String clusterName, final int replicas, final int partitions,
            final int sessionTimeoutMs, final io.rdmakv.server.cluster.zk.ZkCredentials credentials,
            final io.rdmakv.server.cluster.zk.ZkTls tls)
        {
            this(connect, clusterName, replicas, partitions, sessionTimeoutMs, credentials, tls, DEFAULT_MOVE_STUCK_MS);
        }

        /** What {@link #validPartitions} accepts, in words. */
        public static final String PARTITIONS_RULE = "a power of two from " + MIN_PARTITIONS + " to " + MAX_PARTITIONS;

        /** Whether a new cluster may have {@code partitions} partitions. */
        public static boolean validPartitions(final int partitions)
        {
            return partitions >= MIN_PARTITIONS && partitions <= MAX_PARTITIONS && Integer.bitCount(partitions) == 1;
        }

        /** With the default partition count, without credentials and TLS. */
        public ZooKeeper(final String connect, final String clusterName, final int replicas, final int sessionTimeoutMs)
        {
            this(connect, clusterName, replicas, DEFAULT_PARTITIONS, sessionTimeoutMs, null, null);
        }
    }

    /** The certificate, key and (optional) client CA of the bootstrap port's TLS, all PEM files. */
    public record ServerTls(Path certChain, Path key, Path clientCa)
    {
        public ServerTls
        {
            if (certChain == null || key == null)
            {
                throw new IllegalArgumentException("TLS needs both a certificate chain and its private key");
            }
        }

        /** Whether clients must present a certificate signed by {@link #clientCa}: then it may replace the token. */
        public boolean requiresClientCertificates()
        {
            return clientCa != null;
        }
    }

    /** Whether a client must prove who it is: a token, or a client certificate (TLS with a client CA). */
    public boolean authenticates()
    {
        return !authToken.isEmpty() || tls != null && tls.requiresClientCertificates();
    }

    /** A local test node: 127.0.0.1, a free port, the tcp transport, node 0, no token, 100 ms grace, 1 MiB chunks. */
    public static ServerConfig local(final long memoryBytes)
    {
        return builder().listen(DEFAULT_LISTEN_HOST, 0).memoryBytes(memoryBytes).transport("tcp").build();
    }

    /** A builder holding the defaults of {@code kvserver}. */
    public static Builder builder()
    {
        return new Builder();
    }

    public Builder toBuilder()
    {
        return new Builder(this);
    }

    /**
     * The session quota in bytes for a data area of {@code dataLength} bytes: {@link #sessionQuotaBytes}, or
     * {@link #DEFAULT_QUOTA_FRACTION} of the data area when it is 0; never more than the data area and
     * never less than one 64-byte unit.
     */
    public long sessionQuotaFor(final long dataLength)
    {
        final long quota = sessionQuotaBytes > 0 ? sessionQuotaBytes : (long)(dataLength * DEFAULT_QUOTA_FRACTION);
        return Math.max(64, Math.min(dataLength, quota) & -64L);
    }

    /** True when the Prometheus endpoint is on. */
    public boolean metricsEnabled()
    {
        return metricsPort > 0;
    }

    public ServerConfig withAuthToken(final String token)
    {
        return toBuilder().authToken(token).build();
    }

    public ServerConfig withListen(final String host, final int port)
    {
        return toBuilder().listen(host, port).build();
    }

    public ServerConfig withCluster(final int id, final Path file)
    {
        return toBuilder().nodeId(id).clusterFile(file).build();
    }

    public ServerConfig withGraceNanos(final long grace)
    {
        return toBuilder().graceNanos(grace).build();
    }

    public ServerConfig withChunkSize(final int size)
    {
        return toBuilder().chunkSize(size).build();
    }

    public ServerConfig withAdvertise(final String host, final int port)
    {
        return toBuilder().advertise(host, port).build();
    }

    public ServerConfig withMemoryWindows(final MemoryWindowMode mode)
    {
        return toBuilder().memoryWindows(mode).build();
    }

    public ServerConfig withWritePath(final WritePath path)
    {
        return toBuilder().writePath(path).build();
    }

    public ServerConfig withMetrics(final String host, final int port)
    {
        return toBuilder().metrics(host, port).build();
    }

    public ServerConfig withScrubInterval(final long nanos)
    {
        return toBuilder().scrubIntervalNanos(nanos).build();
    }

    public ServerConfig withTls(final ServerTls settings)
    {
        return toBuilder().tls(settings).build();
    }

    /** Collects a configuration one concern at a time (the command line's option groups each set theirs). */
    public static final class Builder
    {
        private String listenHost = DEFAULT_LISTEN_HOST;
        private int listenPort = DEFAULT_PORT;
        private long memoryBytes = DEFAULT_MEMORY_BYTES;
        private String transport = DEFAULT_TRANSPORT;
        private int nodeId;
        private Path clusterFile;
        private String authToken = "";
        private long graceNanos = SpaceTiming.DEFAULT_GRACE_NANOS;
        private int chunkSize = RegionGeometry.DEFAULT_CHUNK_SIZE;
        private String device;
        private int devicePort = DEFAULT_DEVICE_PORT;
        private boolean hugePages;
        private String metricsHost = DEFAULT_METRICS_HOST;
        private int metricsPort;
        private long leaseTimeoutNanos = DEFAULT_LEASE_TIMEOUT_NANOS;
        private long heartbeatIntervalNanos = DEFAULT_HEARTBEAT_INTERVAL_NANOS;
        private long sessionQuotaBytes;
        private String advertiseHost;
        private int advertisePort;
        private MemoryWindowMode memoryWindows = MemoryWindowMode.AUTO;
        private WritePath writePath = WritePath.AUTO;
        private ServerTls tls;
        private boolean insecure;
        private ZooKeeper zookeeper;
        private int maxConnections;
        private long scrubIntervalNanos = DEFAULT_SCRUB_INTERVAL_NANOS;
        private ConnectionSetup connectionSetup = ConnectionSetup.AUTO;
        private String cmAddress;

        private Builder()
        {
        }

        private Builder(final ServerConfig c)
        {
            listenHost = c.listenHost;
            listenPort = c.listenPort;
            memoryBytes = c.memoryBytes;
            transport = c.transport;
            nodeId = c.nodeId;
            clusterFile = c.clusterFile;
            authToken = c.authToken;
            graceNanos = c.graceNanos;
            chunkSize = c.chunkSize;
            device = c.device;
            devicePort = c.devicePort;
            hugePages = c.hugePages;
            metricsHost = c.metricsHost;
            metricsPort = c.metricsPort;
            leaseTimeoutNanos = c.leaseTimeoutNanos;
            heartbeatIntervalNanos = c.heartbeatIntervalNanos;
            sessionQuotaBytes = c.sessionQuotaBytes;
            advertiseHost = c.advertiseHost;
            advertisePort = c.advertisePort;
            tls = c.tls;
            insecure = c.insecure;
            memoryWindows = c.memoryWindows;
            writePath = c.writePath;
            zookeeper = c.zookeeper;
            maxConnections = c.maxConnections;
            scrubIntervalNanos = c.scrubIntervalNanos;
            connectionSetup = c.connectionSetup;
            cmAddress = c.cmAddress;
        }

        /** Join the cluster of a ZooKeeper ensemble; null: no ZooKeeper. */
        public Builder zookeeper(final ZooKeeper settings)
        {
            zookeeper = settings;
            return this;
        }

        public Builder writePath(final WritePath path)
        {
            writePath = path;
            return this;
        }

        public Builder memoryWindows(final MemoryWindowMode mode)
        {
            memoryWindows = mode;
            return this;
        }

        public Builder listen(final String host, final int port)
        {
            listenHost = host;
            listenPort = port;
            return this;
        }

        public Builder memoryBytes(final long bytes)
        {
            memoryBytes = bytes;
            return this;
        }

        public Builder transport(final String name)
        {
            transport = name;
            return this;
        }

        public Builder nodeId(final int id)
        {
            nodeId = id;
            return this;
        }

        public Builder clusterFile(final Path file)
        {
            clusterFile = file;
            return this;
        }

        public Builder authToken(final String token)
        {
            authToken = token;
            return this;
        }

        public Builder graceNanos(final long nanos)
        {
            graceNanos = nanos;
            return this;
        }

        public Builder graceMillis(final long millis)
        {
            return graceNanos(TimeUnit.MILLISECONDS.toNanos(millis));
        }

        public Builder chunkSize(final int bytes)
        {
            chunkSize = bytes;
            return this;
        }

        public Builder device(final String name, final int port)
        {
            device = name;
            devicePort = port;
            return this;
        }

        public Builder hugePages(final boolean on)
        {
            hugePages = on;
            return this;
        }

        public Builder metrics(final String host, final int port)
        {
            metricsHost = host;
            metricsPort = port;
            return this;
        }

        /** Lease timeout and heartbeat interval (the interval must be well below the timeout). */
        public Builder lease(final long timeoutNanos, final long heartbeatNanos)
        {
            leaseTimeoutNanos = timeoutNanos;
            heartbeatIntervalNanos = heartbeatNanos;
            return this;
        }

        /** The most data space one session may hold granted; 0: {@link #DEFAULT_QUOTA_FRACTION} of the data area. */
        public Builder sessionQuotaBytes(final long bytes)
        {
            sessionQuotaBytes = bytes;
            return this;
        }

        /** The address clients are to use (the cluster map's entry for this node); null/0: the listen address. */
        public Builder advertise(final String host, final int port)
        {
            advertiseHost = host;
            advertisePort = port;
            return this;
        }

        /** TLS on the bootstrap port; null: plaintext. */
        public Builder tls(final ServerTls settings)
        {
            tls = settings;
            return this;
        }

        /** Listen on a non-loopback address even with authentication off ({@code --insecure}). */
        public Builder insecure(final boolean on)
        {
            insecure = on;
            return this;
        }

        /** The most bootstrap connections held at once; 0: derived from the descriptor limit. */
        public Builder maxConnections(final int max)
        {
            maxConnections = max;
            return this;
        }

        /** How queue pairs are connected ({@code --cm}), and where the rdma_cm listener is (null: derived). */
        public Builder connectionSetup(final ConnectionSetup setup, final String address)
        {
            connectionSetup = setup;
            cmAddress = address;
            return this;
        }

        /** How often a primary scrubs its backups; 0: never. */
        public Builder scrubIntervalNanos(final long nanos)
        {
            scrubIntervalNanos = nanos;
            return this;
        }

        public ServerConfig build()
        {
            return new ServerConfig(listenHost, listenPort, memoryBytes, transport, nodeId, clusterFile, authToken,
                graceNanos, chunkSize, device, devicePort, hugePages, metricsHost, metricsPort, leaseTimeoutNanos,
                heartbeatIntervalNanos, sessionQuotaBytes, advertiseHost, advertisePort, memoryWindows, tls, insecure,
                zookeeper, maxConnections, scrubIntervalNanos, writePath, connectionSetup, cmAddress);
        }
    }
}
