package io.rdmakv.systemtests.store;

import io.rdmakv.client.KvClient;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.systemtests.LocalCluster;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** Space freed by updates is reused many times over while every key keeps its latest value. */
class SpaceReuseTest
{
    @Test
    void updatesInATightNodeNeverLoseAKey() throws Exception
    {
        final int keys = 2_000;
        final int threads = 4;
        final int updatesPerThread = 8_000;
        try (LocalCluster cluster = new LocalCluster(ServerConfig.local(12L << 20).withGraceNanos(5_000_000));
             KvClient client = cluster.client())
        {
            final long dataLength = cluster.server().geometry().dataLength();
            final byte[][] latest = new byte[keys][];
            for (int k = 0; k < keys; k++)
            {
                latest[k] = value(k, -1);
                client.put(key(k), latest[k]);
            }
            final List<Throwable> failures = new CopyOnWriteArrayList<>();
            final Thread[] workers = new Thread[threads];
            for (int t = 0; t < threads; t++)
            {
                final int thread = t;
                workers[t] = Thread.ofPlatform().start(() ->
                {
                    final SplittableRandom random = new SplittableRandom(thread);
                    try
                    {
                        for (int i = 0; i < updatesPerThread; i++)
                        {
                            // each thread owns the keys congruent to it: the final value of every key is known
                            final int k = random.nextInt(keys / threads) * threads + thread;
                            final byte[] v = value(k, i);
                            if (random.nextInt(4) == 0)
                            {
                                final byte[] got = client.get(key(k));
                                if (got == null)
                                {
                                    throw new AssertionError("key " + k + " lost");
                                }
                            }
                            client.put(key(k), v);
                            latest[k] = v;
                        }
                    }
                    catch (final Throwable e)
                    {
                        failures.add(e);
                    }
                });
            }
            for (final Thread w : workers)
            {
                w.join();
            }
            assertEquals(List.of(), failures);
            for (int k = 0; k < keys; k++)
            {
                assertArrayEquals(latest[k], client.get(key(k)), "key " + k);
            }
            final long written = (long)threads * updatesPerThread * 1152;
            org.junit.jupiter.api.Assertions.assertTrue(written > 2 * dataLength,
                "the test must write more than the data area twice over: " + written + " vs " + dataLength);
        }
    }

    private static byte[] key(final int k)
    {
        return ("reuse-" + k).getBytes();
    }

    private static byte[] value(final int k, final int i)
    {
        final byte[] v = new byte[1000 + (k + i) % 100];
        java.util.Arrays.fill(v, (byte)(k * 7 + i));
        return v;
    }
}
