package io.rdmakv.ycsb;

import io.rdmakv.server.KvServer;
import io.rdmakv.server.ServerConfig;
import site.ycsb.DBException;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Properties;

/** A real kvserver in this JVM, on loopback over the tcp transport, and binding instances for it. */
final class LocalServer implements AutoCloseable
{
    private final KvServer server;

    LocalServer()
    {
        try
        {
            server = KvServer.start(ServerConfig.local(32L << 20));
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException(e);
        }
    }

    int port()
    {
        return server.port();
    }

    Properties properties()
    {
        final Properties p = new Properties();
        p.setProperty(RdmaKvClient.HOSTS_PROPERTY, "127.0.0.1:" + port());
        p.setProperty(RdmaKvClient.TRANSPORT_PROPERTY, "tcp");
        p.setProperty(RdmaKvClient.TIMEOUT_PROPERTY, "10000");
        p.setProperty(RdmaKvClient.PRINT_STATS_PROPERTY, "false");
        return p;
    }

    /** A binding instance, initialised as YCSB would. */
    RdmaKvClient db() throws DBException
    {
        return db(properties());
    }

    static RdmaKvClient db(final Properties properties) throws DBException
    {
        final RdmaKvClient db = new RdmaKvClient();
        db.setProperties(properties);
        db.init();
        return db;
    }

    @Override
    public void close()
    {
        server.close();
    }
}
