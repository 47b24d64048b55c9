package io.rdmakv.systemtests.badinput;

import io.rdmakv.client.KvClient;
import io.rdmakv.client.KvConnectionException;
import io.rdmakv.server.KvServer;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.systemtests.LocalCluster;
import org.junit.jupiter.api.Test;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Wrong tokens from one address are slowed down, never the right one: a client with the right token is
 * admitted every time while wrong tokens flood from the same address, and a sequence of wrong tokens gets
 * its refusals held back once its free failures are spent.
 */
class AuthFloodTest
{
    private static final int RIGHT_CONNECTS = 100;
    private static final long ATTACK_PERIOD_MS = 200;
    private static final long RIGHT_PAUSE_MS = 50;

    @Test
    void theRightTokenIsAdmittedEveryTimeWhileWrongOnesFloodFromTheSameAddress() throws Exception
    {
        try (KvServer server = LocalCluster.startNode(ServerConfig.local(LocalCluster.NODE_MEMORY)
            .withAuthToken("secret")))
        {
            final String node = LocalCluster.address(server);
            final AtomicInteger sent = new AtomicInteger();
            final AtomicInteger admittedWrong = new AtomicInteger();
            final ScheduledExecutorService attacker = Executors.newSingleThreadScheduledExecutor();
            // 5 wrong tokens a second, each on a thread of its own: a held-back refusal does not slow the rate
            attacker.scheduleAtFixedRate(() -> Thread.ofVirtual().start(() ->
            {
                sent.incrementAndGet();
                try (KvClient ignored = KvClient.connect(LocalCluster.clientConfig(node).withAuthToken("guess")))
                {
                    admittedWrong.incrementAndGet();
                }
                catch (final KvConnectionException expected)
                {
                    // refused, now or after a delay
                }
            }), 0, ATTACK_PERIOD_MS, TimeUnit.MILLISECONDS);
            final ConcurrentLinkedQueue<String> refusals = new ConcurrentLinkedQueue<>();
            int admitted = 0;
            final int sentAtStart;
            try
            {
                while (server.authThrottle().throttled() == 0)
                {
                    Thread.sleep(20); // until the attacker's free failures are spent: its address is throttled now
                }
                sentAtStart = sent.get();
                for (int i = 0; i < RIGHT_CONNECTS; i++)
                {
                    try (KvClient client = KvClient.connect(LocalCluster.clientConfig(node).withAuthToken("secret")))
                    {
                        client.put(LocalCluster.bytes("k"), LocalCluster.bytes("v" + i));
                        assertArrayEquals(LocalCluster.bytes("v" + i), client.get(LocalCluster.bytes("k")));
                        admitted++;
                    }
                    catch (final KvConnectionException e)
                    {
                        refusals.add(e.getMessage());
                    }
                    Thread.sleep(RIGHT_PAUSE_MS);
                }
            }
            finally
            {
                attacker.shutdownNow();
            }
            final int wrongDuring = sent.get() - sentAtStart;
            System.out.printf("right token admitted %d of %d while %d wrong tokens were sent (%d in all; node: %d " +
                "failures, %d throttled)%n", admitted, RIGHT_CONNECTS, wrongDuring, sent.get(),
                server.authThrottle().failures(), server.authThrottle().throttled());
            assertEquals(RIGHT_CONNECTS, admitted, "the right token was refused " + (RIGHT_CONNECTS - admitted) +
                " times while wrong ones flooded from the same address, e.g. " + refusals.peek());
            assertTrue(wrongDuring >= 5 * RIGHT_CONNECTS * RIGHT_PAUSE_MS / 1_000 / 2,
                "the attacker ran concurrently: " + wrongDuring + " wrong tokens during the right ones");
            assertEquals(0, admittedWrong.get(), "no wrong token got in");
            assertTrue(server.authThrottle().throttled() > 0, "the flood was throttled");
        }
    }

    @Test
    void wrongTokensInARowAreAnsweredSlowerAndTheRightOneAtOnce()
    {
        try (KvServer server = LocalCluster.startNode(ServerConfig.local(LocalCluster.NODE_MEMORY)
            .withAuthToken("secret")))
        {
            final String node = LocalCluster.address(server);
            final long[] tookMs = new long[7];
            for (int i = 0; i < tookMs.length; i++)
            {
                final long t0 = System.nanoTime();
                final KvConnectionException e = assertThrows(KvConnectionException.class,
                    () -> KvClient.connect(LocalCluster.clientConfig(node).withAuthToken("guess")).close());
                tookMs[i] = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
                assertTrue(e.getMessage().contains("wrong auth token"), e.getMessage());
            }
            assertEquals(tookMs.length, server.authThrottle().failures(), "every wrong token was read and counted");
            assertEquals(2, server.authThrottle().throttled(), "all but the five free ones were throttled");
            assertTrue(tookMs[5] >= 900 && tookMs[6] >= 1_900, "the sixth and seventh refusals were held back " +
                "1 s and 2 s: " + java.util.Arrays.toString(tookMs));

            final long t0 = System.nanoTime();
            try (KvClient client = KvClient.connect(LocalCluster.clientConfig(node).withAuthToken("secret")))
            {
                client.put(LocalCluster.bytes("k"), LocalCluster.bytes("v"));
                assertArrayEquals(LocalCluster.bytes("v"), client.get(LocalCluster.bytes("k")));
            }
            final long rightMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
            assertTrue(rightMs < 900, "the right token is not held back: " + rightMs + " ms");
        }
    }
}
