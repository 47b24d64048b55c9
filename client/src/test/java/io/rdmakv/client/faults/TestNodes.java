package io.rdmakv.client.faults;

import io.rdmakv.client.KvClient;
import io.rdmakv.client.KvClientConfig;
import io.rdmakv.server.KvServer;
import io.rdmakv.server.ServerConfig;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/** Real kvserver nodes on loopback over the tcp transport, and clients for them. */
public final class TestNodes
{
    /** Memory of a node when a test does not care: 16 MiB. */
    public static final long MEMORY = 16L << 20;

    private TestNodes()
    {
    }

    public static KvServer start(final ServerConfig config)
    {
        try
        {
            return KvServer.start(config);
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException(e);
        }
    }

    /** A single local node of {@link #MEMORY} bytes. */
    public static KvServer start()
    {
        return start(ServerConfig.local(MEMORY));
    }

    /** "127.0.0.1:port" of a node's bootstrap listener: how client messages name it. */
    public static String address(final KvServer server)
    {
        return "127.0.0.1:" + server.port();
    }

    public static KvClientConfig clientConfig(final String hosts)
    {
        return KvClientConfig.of(hosts).withTransport("tcp").withOpTimeout(Duration.ofSeconds(5))
            .withConnectTimeout(Duration.ofSeconds(5));
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
