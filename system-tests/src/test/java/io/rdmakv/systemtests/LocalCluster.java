package io.rdmakv.systemtests;

import io.rdmakv.client.KvClient;
import io.rdmakv.client.KvClientConfig;
import io.rdmakv.server.KvServer;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.verbs.ConnectionSetup;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The one way the system tests start kvserver nodes and the clients for them: real nodes in this JVM on
 * loopback, on the transport named by {@code -Drdmakv.test.transport} ({@code tcp} by default;
 * {@code scripts/softroce-verbs.sh} runs the store tests with {@code ibverbs} on a Soft-RoCE device), and
 * clients on the same transport with the per-operation timeout {@code -Drdmakv.test.opTimeoutMs}
 * (10 s by default; an emulated VM wants more). Every node started here uses that transport, whatever the
 * given {@link ServerConfig} says.
 *
 * <p>Hosts over a wire ({@code scripts/softroce-wire.sh}): {@code -Drdmakv.test.nodeHosts=A,B,C} puts node
 * {@code i} (its node id; 0 for a single node) at address {@code i mod n} of the list instead of 127.0.0.1,
 * {@code -Drdmakv.test.nodeDevices=D0,D1,D2} on RDMA device {@code i mod n}, and
 * {@code -Drdmakv.test.clientDevice=D} opens every client configured here on device D. Unset (the normal
 * build), nodes listen on 127.0.0.1 and nodes and clients open the first active device, as before. A node at a
 * non-loopback address starts {@code --insecure} (no auth token, as on loopback: the link is the test's own).
 *
 * <p>Two forms: an instance is one node and the clients for it ({@code new LocalCluster()}, what the store
 * tests use and what {@code scripts/softroce-verbs.sh} looks for); the static methods start nodes that a
 * test manages itself (several nodes, nodes it stops, nodes behind a relay).
 */
public final class LocalCluster implements AutoCloseable
{
    public static final String TRANSPORT_PROPERTY = "rdmakv.test.transport";
    /** How nodes and clients started here connect queue pairs: {@code auto} (default), {@code rdmacm}, {@code exchange}. */
    public static final String CM_PROPERTY = "rdmakv.test.cm";
    /** Comma-separated listen addresses of the nodes (node i: entry i mod n); unset: 127.0.0.1. */
    public static final String NODE_HOSTS_PROPERTY = "rdmakv.test.nodeHosts";
    /** Comma-separated RDMA devices of the nodes (node i: entry i mod n); unset: the first active one. */
    public static final String NODE_DEVICES_PROPERTY = "rdmakv.test.nodeDevices";
    /** The RDMA device of every client configured here; unset: the first active one. */
    public static final String CLIENT_DEVICE_PROPERTY = "rdmakv.test.clientDevice";
    /** Per-operation timeout of the test clients in milliseconds (an emulated VM may want more). */
    public static final String OP_TIMEOUT_PROPERTY = "rdmakv.test.opTimeoutMs";
    /** The transport of every node and client started here. */
    public static final String TRANSPORT = transport();
    /** The connection setup ({@code --cm}) of every node and client started here. */
    public static final ConnectionSetup CM = ConnectionSetup.parse(System.getProperty(CM_PROPERTY, "auto").trim());
    /** The per-operation timeout of every client configured here. */
    public static final Duration OP_TIMEOUT = Duration.ofMillis(Long.getLong(OP_TIMEOUT_PROPERTY, 10_000));
    /**
     * How long a client in a child JVM ({@code HolderMain}) or a raw session may take to open a session: 5 s (the
     * default) on {@code tcp}; on a device the per-operation timeout if longer, since under emulation a child
     * JVM's first session over rdma_cm (bootstrap, resolution, connect, establishment) took longer than 5 s.
     * Not for {@link #clientConfig} ({@link #CLIENT_CONNECT_TIMEOUT}): a client that opens sessions to a stopped node waits this long for each
     * (StoppedPrimaryReadTest never read the new value in its 3 op timeouts with 60 s here).
     */
    public static final Duration CONNECT_TIMEOUT = "tcp".equals(TRANSPORT) ||
        OP_TIMEOUT.compareTo(Duration.ofSeconds(5)) <= 0 ? Duration.ofSeconds(5) : OP_TIMEOUT;
    /**
     * How long a client configured by {@link #clientConfig} may take to open a session: the client's default, 5 s,
     * where the per-operation timeout is the default 10 s or less; 15 s under emulation (the Soft-RoCE VM sets it to
     * 60 s). There a JVM's first session over siw, on a loaded host, took more than 5 s (rdma_cm address and route
     * resolution 0.5 s, the queue pair's INIT 1 s, behind a HELLO answered late), and ConcurrentReadersTest twice
     * found "no node answered"; 15 s, not {@link #CONNECT_TIMEOUT}'s 60, so that a client opening sessions to a
     * stopped node (StoppedPrimaryReadTest) still gets on within its op timeouts.
     */
    public static final Duration CLIENT_CONNECT_TIMEOUT = OP_TIMEOUT.compareTo(Duration.ofSeconds(10)) > 0 ?
        Duration.ofSeconds(15) : Duration.ofSeconds(5);
    /**
     * The lease timeout of nodes started here with the default one ({@code rdmakv.test.nodeLeaseMs}; unset or 0:
     * that default, 3 s). The Soft-RoCE runs set it: under TCG a healthy client's first heartbeat was seen to come
     * 3.6 s after its session opened (over siw), and the node rightly fenced the session. Tests that set their own
     * lease keep it. Child-JVM nodes ({@link #nodeArgs}) get it as {@code --lease-timeout-ms}.
     */
    private static final long NODE_LEASE_MS = Long.getLong("rdmakv.test.nodeLeaseMs", 0);

    /** The clients' RDMA device ({@link #CLIENT_DEVICE_PROPERTY}), or null for the first active one. */
    public static final String CLIENT_DEVICE = blankToNull(System.getProperty(CLIENT_DEVICE_PROPERTY));
    private static final List<String> NODE_HOSTS = list(NODE_HOSTS_PROPERTY, ServerConfig.DEFAULT_LISTEN_HOST);
    private static final List<String> NODE_DEVICES = list(NODE_DEVICES_PROPERTY, null);
    /** Memory of an instance's node when the test does not say: 32 MiB. */
    public static final long MEMORY = 32L << 20;
    /** Memory of a node from {@link #startNode()}: 16 MiB. */
    public static final long NODE_MEMORY = 16L << 20;

    private final KvServer server;

    public LocalCluster(final ServerConfig config)
    {
        server = startNode(config);
    }

    public LocalCluster()
    {
        this(ServerConfig.local(MEMORY));
    }

    private static String transport()
    {
        final String name = System.getProperty(TRANSPORT_PROPERTY, "tcp").trim();
        return name.isEmpty() ? "tcp" : name;
    }

    private static String blankToNull(final String s)
    {
        return s == null || s.isBlank() ? null : s.trim();
    }

    /** The comma-separated entries of system property {@code name}; unset or empty: just {@code absent}. */
    private static List<String> list(final String name, final String absent)
    {
        final List<String> entries = new ArrayList<>();
        for (final String entry : System.getProperty(name, "").split(","))
        {
            if (!entry.isBlank())
            {
                entries.add(entry.trim());
            }
        }
        return entries.isEmpty() ? Collections.singletonList(absent) : List.copyOf(entries);
    }

    /** Whether {@code host} is a loopback address (where kvserver's protected mode lets a node listen without auth). */
    private static boolean isLoopback(final String host)
    {
        try
        {
            return InetAddress.getByName(host).isLoopbackAddress();
        }
        catch (final UnknownHostException e)
        {
            return false;
        }
    }

    /** The address node {@code id} listens on: 127.0.0.1, or its entry of {@link #NODE_HOSTS_PROPERTY}. */
    public static String nodeHost(final int id)
    {
        return NODE_HOSTS.get(Math.floorMod(id, NODE_HOSTS.size()));
    }

    /** The RDMA device of node {@code id}: null (the first active), or its entry of {@link #NODE_DEVICES_PROPERTY}. */
    public static String nodeDevice(final int id)
    {
        return NODE_DEVICES.get(Math.floorMod(id, NODE_DEVICES.size()));
    }

    /** kvserver options that put node {@code id} at its address (port {@code port}) and on its device. */
    public static List<String> nodeArgs(final int id, final int port)
    {
        final List<String> args = new ArrayList<>(List.of("--transport", TRANSPORT, "--cm", CM.label(),
            "--listen", nodeHost(id) + ":" + port));
        if (nodeDevice(id) != null)
        {
            args.addAll(List.of("--device", nodeDevice(id)));
        }
        if (!isLoopback(nodeHost(id)))
        {
            args.add("--insecure"); // the test's own private link, as on loopback
        }
        if (NODE_LEASE_MS > 0)
        {
            // as startNode does: a child-JVM node of the wire run fenced a healthy client session 3 s after it
            // opened ("0 heartbeats before") under TCG, and the client's writes then stalled for a minute
            args.addAll(List.of("--lease-timeout-ms", Long.toString(NODE_LEASE_MS)));
        }
        return args;
    }

    /** kvctl options for this transport and the clients' device. */
    public static List<String> kvctlArgs()
    {
        return CLIENT_DEVICE == null ? List.of("--transport", TRANSPORT) :
            List.of("--transport", TRANSPORT, "--device", CLIENT_DEVICE);
    }

    public KvServer server()
    {
        return server;
    }

    /** "host:port" of the node: what {@code --hosts} and {@link KvClientConfig#of} take. */
    public String hosts()
    {
        return address(server);
    }

    public KvClientConfig clientConfig()
    {
        return clientConfig(hosts());
    }

    public KvClient client()
    {
        return KvClient.connect(clientConfig());
    }

    @Override
    public void close()
    {
        server.close();
    }

    /**
     * Starts a node of {@code config} on {@link #TRANSPORT}; one configured for 127.0.0.1 listens at
     * {@link #nodeHost} of its node id instead, and one without a device opens {@link #nodeDevice}.
     */
    public static KvServer startNode(final ServerConfig config)
    {
        final int id = Math.max(0, config.nodeId());
        final ServerConfig.Builder builder = config.toBuilder().transport(TRANSPORT);
        if (config.listenHost().equals(ServerConfig.DEFAULT_LISTEN_HOST))
        {
            builder.listen(nodeHost(id), config.listenPort());
            if (!isLoopback(nodeHost(id)))
            {
                builder.insecure(true); // the test's own private link, as on loopback
            }
        }
        if (config.device() == null)
        {
            builder.device(nodeDevice(id), config.devicePort());
        }
        if (NODE_LEASE_MS > 0 && config.leaseTimeoutNanos() == ServerConfig.DEFAULT_LEASE_TIMEOUT_NANOS)
        {
            builder.lease(TimeUnit.MILLISECONDS.toNanos(NODE_LEASE_MS), config.heartbeatIntervalNanos());
        }
        try
        {
            return KvServer.start(builder.connectionSetup(CM, config.cmAddress()).build());
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException(e);
        }
    }

    /** A single local node of {@link #NODE_MEMORY} bytes. */
    public static KvServer startNode()
    {
        return startNode(ServerConfig.local(NODE_MEMORY));
    }

    /** "host:port" of a node's bootstrap listener (127.0.0.1 unless it listens elsewhere): how clients name it. */
    public static String address(final KvServer server)
    {
        final String host = server.config().listenHost();
        return (host.equals("0.0.0.0") || host.equals("::") ? ServerConfig.DEFAULT_LISTEN_HOST : host) + ":" +
            server.port();
    }

    /** A client configuration for {@code hosts} on {@link #TRANSPORT}, {@link #CLIENT_DEVICE}, {@link #OP_TIMEOUT}. */
    public static KvClientConfig clientConfig(final String hosts)
    {
        return KvClientConfig.of(hosts).withTransport(TRANSPORT).withConnectionSetup(CM).withDevice(CLIENT_DEVICE)
            .withOpTimeout(OP_TIMEOUT).withConnectTimeout(CLIENT_CONNECT_TIMEOUT);
    }

    public static KvClient client(final KvServer server)
    {
        return KvClient.connect(clientConfig(address(server)));
    }

    public static byte[] bytes(final String s)
    {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Closes quietly what a failed test may leave half open. */
    public static void closeAll(final AutoCloseable... resources)
    {
        for (final AutoCloseable r : resources)
        {
            if (r != null)
            {
                try
                {
                    r.close();
                }
                catch (final Exception ignore)
                {
                    // teardown after a failure: the failure is what gets reported
                }
            }
        }
    }
}
