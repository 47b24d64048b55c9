package io.rdmakv.client;

import io.rdmakv.server.KvServer;
import io.rdmakv.server.ServerConfig;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;

/**
 * A real kvserver on loopback, and clients for it, both on the transport named by
 * {@code -Drdmakv.test.transport} ({@code tcp} by default; {@code scripts/softroce-verbs.sh} runs these
 * tests with {@code ibverbs} on a Soft-RoCE device). Every server started here uses that transport,
 * whatever the given {@link ServerConfig} says.
 */
final class LocalCluster implements AutoCloseable
{
    static final long MEMORY = 32L << 20;
    static final String TRANSPORT_PROPERTY = "rdmakv.test.transport";
    /** The transport of every server and client here. */
    static final String TRANSPORT = transport();

    private final KvServer server;

    LocalCluster(final ServerConfig config)
    {
        try
        {
            server = KvServer.start(new ServerConfig(config.listenHost(), config.listenPort(), config.memoryBytes(),
                TRANSPORT, config.nodeId(), config.clusterFile(), config.authToken(), config.graceNanos(),
                config.chunkSize()));
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException(e);
        }
    }

    LocalCluster()
    {
        this(ServerConfig.local(MEMORY));
    }

    private static String transport()
    {
        final String name = System.getProperty(TRANSPORT_PROPERTY, "tcp").trim();
        return name.isEmpty() ? "tcp" : name;
    }

    KvServer server()
    {
        return server;
    }

    String hosts()
    {
        return "127.0.0.1:" + server.port();
    }

    /** Per-operation timeout of the test clients in milliseconds (an emulated VM may want more). */
    static final String OP_TIMEOUT_PROPERTY = "rdmakv.test.opTimeoutMs";

    KvClientConfig clientConfig()
    {
        return KvClientConfig.of(hosts()).withTransport(TRANSPORT)
            .withOpTimeout(Duration.ofMillis(Long.getLong(OP_TIMEOUT_PROPERTY, 10_000)));
    }

    KvClient client()
    {
        return KvClient.connect(clientConfig());
    }

    @Override
    public void close()
    {
        server.close();
    }
}
