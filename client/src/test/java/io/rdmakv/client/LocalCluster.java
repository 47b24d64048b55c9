package io.rdmakv.client;

import io.rdmakv.server.KvServer;
import io.rdmakv.server.ServerConfig;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;

/** A real kvserver on loopback over the tcp transport, and clients for it. */
final class LocalCluster implements AutoCloseable
{
    static final long MEMORY = 32L << 20;

    private final KvServer server;

    LocalCluster(final ServerConfig config)
    {
        try
        {
            server = KvServer.start(config);
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

    KvServer server()
    {
        return server;
    }

    String hosts()
    {
        return "127.0.0.1:" + server.port();
    }

    KvClientConfig clientConfig()
    {
        return KvClientConfig.of(hosts()).withTransport("tcp").withOpTimeout(Duration.ofSeconds(10));
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
