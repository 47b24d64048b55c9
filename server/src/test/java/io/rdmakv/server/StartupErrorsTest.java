package io.rdmakv.server;

import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.verbs.resource.VerbsException;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A node that cannot start says why in one line, and holds on to nothing. */
class StartupErrorsTest
{
    private static final long MEMORY = 8L << 20;

    @Test
    void busyPort() throws IOException
    {
        try (ServerSocket taken = new ServerSocket())
        {
            taken.bind(new InetSocketAddress("127.0.0.1", 0));
            final IOException e = assertThrows(IOException.class,
                () -> KvServer.start(ServerConfig.local(MEMORY).withListen("127.0.0.1", taken.getLocalPort())));
            assertTrue(e.getMessage().startsWith("cannot listen on 127.0.0.1:" + taken.getLocalPort()), e.getMessage());
        }
    }

    @Test
    void tooLittleMemory()
    {
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> KvServer.start(ServerConfig.local(4096)));
        assertTrue(e.getMessage().contains("too small") && e.getMessage().contains("at least"), e.getMessage());
    }

    @Test
    void heartbeatsThatDoNotFitTwiceInALease()
    {
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> KvServer.start(ServerConfig.local(MEMORY).toBuilder().lease(1_000_000_000L, 500_000_000L).build()));
        assertTrue(e.getMessage().contains("below half the lease timeout"), e.getMessage());
    }

    @Test
    void memoryThisMachineCannotGiveIsRefusedBeforeItIsTouched()
    {
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> KvServer.start(ServerConfig.local(64L << 40)));
        assertTrue(e.getMessage().startsWith("--memory 67108864 MiB") && e.getMessage().contains("lower --memory"),
            e.getMessage());
    }

    @Test
    void transportThatCannotOpen()
    {
        final ServerConfig ibverbs = new ServerConfig("127.0.0.1", 0, MEMORY, "ibverbs", 0, null, "",
            io.rdmakv.common.SpaceTiming.DEFAULT_GRACE_NANOS, 1 << 20);
        final String reason = io.rdmakv.verbs.Providers.byName("ibverbs").unavailableReason();
        org.junit.jupiter.api.Assumptions.assumeTrue(reason != null, "this machine has a usable RDMA device");
        final VerbsException e = assertThrows(VerbsException.class, () -> KvServer.start(ibverbs));
        assertTrue(e.getMessage().contains("ibverbs is not usable here") && e.getMessage().contains(reason),
            e.getMessage());
    }

    @Test
    void clusterMapWithoutThisNode() throws IOException
    {
        final Path map = Files.createTempFile("cluster", ".json");
        try
        {
            Files.writeString(map, "{\"epoch\":1,\"partitions\":4,\"nodes\":[{\"id\":7,\"host\":\"127.0.0.1\"," +
                "\"port\":7400}]}");
            final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> KvServer.start(ServerConfig.local(MEMORY).withCluster(3, map)));
            assertTrue(e.getMessage().contains("does not list node id 3"), e.getMessage());
        }
        finally
        {
            Files.deleteIfExists(map);
        }
    }

    @Test
    void theSamePortWorksAgainAfterAFailedStart() throws IOException
    {
        final int port;
        try (ServerSocket probe = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress()))
        {
            port = probe.getLocalPort();
        }
        assertThrows(IllegalArgumentException.class,
            () -> KvServer.start(ServerConfig.local(4096).withListen("127.0.0.1", port)));
        try (KvServer server = KvServer.start(ServerConfig.local(MEMORY).withListen("127.0.0.1", port)))
        {
            assertTrue(server.port() == port);
        }
    }
}
