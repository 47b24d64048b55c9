package io.rdmakv.systemtests.badinput;

import io.rdmakv.client.KvClient;
import io.rdmakv.client.KvConnectionException;
import io.rdmakv.server.KvServer;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.systemtests.LocalCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A node with an auth token refuses sessions without it, saying why, and serves those with it. */
class AuthTokenTest
{
    private static KvServer server;

    @BeforeAll
    static void start()
    {
        server = LocalCluster.startNode(ServerConfig.local(LocalCluster.NODE_MEMORY).withAuthToken("secret"));
    }

    @AfterAll
    static void stop()
    {
        LocalCluster.closeAll(server);
    }

    private static void refused(final String token)
    {
        final long opened = server.counters().sessionsOpened();
        final KvConnectionException e = assertThrows(KvConnectionException.class,
            () -> KvClient.connect(LocalCluster.clientConfig(LocalCluster.address(server)).withAuthToken(token)).close());
        assertTrue(e.getMessage().contains("node " + LocalCluster.address(server) + " refused the session: wrong auth " +
            "token"), e.getMessage());
        assertEquals(opened, server.counters().sessionsOpened(), "no session opened for token '" + token + "'");
        assertEquals(0, server.sessionCount());
    }

    @Test
    void wrongTokenIsRefused()
    {
        refused("wrong");
    }

    @Test
    void missingTokenIsRefused()
    {
        refused("");
    }

    @Test
    void tokenWithTheRightPrefixIsRefused()
    {
        refused("secret2");
        refused("secre");
    }

    @Test
    void rightTokenWorks()
    {
        try (KvClient client = KvClient.connect(LocalCluster.clientConfig(LocalCluster.address(server))
            .withAuthToken("secret")))
        {
            client.put(LocalCluster.bytes("authorised"), LocalCluster.bytes("yes"));
            assertArrayEquals(LocalCluster.bytes("yes"), client.get(LocalCluster.bytes("authorised")));
        }
    }
}
