package io.rdmakv.systemtests.badinput;

import io.rdmakv.client.KvClient;
import io.rdmakv.client.KvConnectionException;
import io.rdmakv.server.KvServer;
import io.rdmakv.server.ServerConfig;
import io.rdmakv.systemtests.LocalCluster;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A flood of wrong tokens from one address is throttled: after a few failures the address is refused
 * unread for a while (counted apart from the failures), and once the block has passed the right token
 * works again.
 */
class AuthFloodTest
{
    private static final int ATTEMPTS = 200;

    @Test
    void wrongTokensFromOneAddressAreThrottledThenTheRightOneWorksAgain() throws InterruptedException
    {
        try (KvServer server = LocalCluster.startNode(ServerConfig.local(LocalCluster.NODE_MEMORY)
            .withAuthToken("secret")))
        {
            final String node = LocalCluster.address(server);
            int throttledReplies = 0;
            for (int i = 0; i < ATTEMPTS; i++)
            {
                final KvConnectionException e = assertThrows(KvConnectionException.class,
                    () -> KvClient.connect(LocalCluster.clientConfig(node).withAuthToken("guess")).close());
                throttledReplies += e.getMessage().contains("too many failed authentications from this address") ? 1 : 0;
            }
            final long failures = server.authThrottle().failures();
            final long throttled = server.authThrottle().throttled();
            assertEquals(ATTEMPTS, failures + throttled, "every attempt is counted once");
            assertTrue(failures < ATTEMPTS / 4, "most of the flood was refused unread: " + failures + " read");
            assertEquals(throttled, throttledReplies, "a throttled client is told so");
            assertEquals(0, server.sessionCount());

            final KvConnectionException blocked = assertThrows(KvConnectionException.class,
                () -> KvClient.connect(LocalCluster.clientConfig(node).withAuthToken("secret")).close());
            assertTrue(blocked.getMessage().contains("retry in"), blocked.getMessage());

            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(70);
            while (true)
            {
                try (KvClient client = KvClient.connect(LocalCluster.clientConfig(node).withAuthToken("secret")))
                {
                    client.put(LocalCluster.bytes("k"), LocalCluster.bytes("v"));
                    assertArrayEquals(LocalCluster.bytes("v"), client.get(LocalCluster.bytes("k")));
                    break;
                }
                catch (final KvConnectionException e)
                {
                    assertTrue(e.getMessage().contains("retry in") && System.nanoTime() < deadline, e.getMessage());
                    Thread.sleep(250);
                }
            }
        }
    }
}
