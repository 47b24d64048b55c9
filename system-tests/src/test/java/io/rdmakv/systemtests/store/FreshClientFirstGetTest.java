package io.rdmakv.systemtests.store;

import io.rdmakv.client.KvClient;
import io.rdmakv.systemtests.LocalCluster;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * A client's first operation right after it connected: a GET, which reads the node's index one-sided at once. Over
 * siw (iWARP, rdma_cm) a fresh client's first GET once failed with CONNECTION_LOST ({@code RdmaKvClientTest}, issue
 * 24); this runs that opening {@code -Drdmakv.test.freshClientRounds} times (default 4) against one node, a new client
 * each round, and counts every round that failed before it fails, so that a loop in the Soft-RoCE VM gives a rate.
 */
class FreshClientFirstGetTest
{
    private static final int ROUNDS = Integer.getInteger("rdmakv.test.freshClientRounds", 4);

    private static byte[] b(final String s)
    {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void everyFreshClientsFirstGetAnswers()
    {
        final List<String> failures = new ArrayList<>();
        try (LocalCluster cluster = new LocalCluster())
        {
            try (KvClient writer = cluster.client())
            {
                writer.put(b("written"), b("value"));
            }
            for (int round = 0; round < ROUNDS; round++)
            {
                final long started = System.nanoTime();
                try (KvClient client = cluster.client())
                {
                    final long connected = System.nanoTime();
                    try
                    {
                        // the first operation: a missing key (the index only), or a present one (index and block)
                        if (round % 2 == 0)
                        {
                            assertNull(client.get(b("never-written-" + round)), "round " + round);
                        }
                        else
                        {
                            assertArrayEquals(b("value"), client.get(b("written")), "round " + round);
                        }
                    }
                    catch (final RuntimeException e)
                    {
                        failures.add("round " + round + " (its GET " + (System.nanoTime() - connected) / 1_000_000 +
                            " ms after a connect of " + (connected - started) / 1_000_000 + " ms): " + e);
                        System.err.println("[FreshClientFirstGetTest] " + failures.getLast());
                    }
                }
            }
        }
        System.err.println("[FreshClientFirstGetTest] " + failures.size() + " of " + ROUNDS + " rounds failed");
        assertEquals(List.of(), failures, failures.size() + " of " + ROUNDS + " fresh clients' first GET failed");
    }
}
