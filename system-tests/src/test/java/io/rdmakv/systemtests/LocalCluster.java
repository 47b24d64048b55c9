package io.rdmakv.systemtests;

import io.rdmakv.client.KvClient;
import io.rdmakv.client.KvClientConfig;
import io.rdmakv.server.KvServer;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.verbs.ConnectionSetup;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * The one way the system tests start kvserver nodes and the clients for them: real nodes in this JVM on
 * loopback, on the transport named by {@code -Drdmakv.test.transport} ({@code tcp} by default;
 * {@code scripts/softroce-verbs.sh} runs the store tests with {@code ibverbs} on a Soft-RoCE device), and
 * clients on the same transport with the per-operation timeout {@code -Drdmakv.test.opTimeoutMs}
 * (10 s by default; an emulated VM wants more). Every node started here uses that transport, whatever the
 * given {@link ServerConfig} says.
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
     * Not for {@link #clientConfig}: a client that opens sessions to a stopped node waits this long for each
     * (StoppedPrimaryReadTest never read the new value in its 3 op timeouts with 60 s here).
     */
    public static final Duration CONNECT_TIMEOUT = "tcp".equals(TRANSPORT) ||
        OP_TIMEOUT.compareTo(Duration.ofSeconds(5)) <= 0 ? Duration.ofSeconds(5) : OP_TIMEOUT;
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

    public KvServer server()
    {
        return server;
    }

    /** "127.0.0.1:port" of the node: what {@code --hosts} and {@link KvClientConfig#of} take. */
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

    /** Starts a node of {@code config} on {@link #TRANSPORT}. */
    public static KvServer startNode(final ServerConfig config)
    {
        try
        {
            return KvServer.start(config.toBuilder().transport(TRANSPORT)
                .connectionSetup(CM, config.cmAddress()).build());
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

    /** "127.0.0.1:port" of a node's bootstrap listener: how client messages name it. */
    public static String address(final KvServer server)
    {
        return "127.0.0.1:" + server.port();
    }

    /** A client configuration for {@code hosts} on {@link #TRANSPORT} with {@link #OP_TIMEOUT}. */
    public static KvClientConfig clientConfig(final String hosts)
    {
        return KvClientConfig.of(hosts).withTransport(TRANSPORT).withConnectionSetup(CM).withOpTimeout(OP_TIMEOUT);
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
