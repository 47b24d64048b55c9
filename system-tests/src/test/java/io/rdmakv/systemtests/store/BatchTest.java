package io.rdmakv.systemtests.store;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.rdmakv.client.ClientStats;
import io.rdmakv.client.KeyTooLargeException;
import io.rdmakv.client.KvClient;
import io.rdmakv.client.ValueTooLargeException;
import io.rdmakv.common.hash.KeyHash;
import io.rdmakv.server.KvServer;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.systemtests.ClusterFiles;
import io.rdmakv.systemtests.LocalCluster;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;


import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** getAll and putAll against three nodes: the same answers as single operations, in fewer round trips. */
class BatchTest
{
    private static final int NODES = 3;
    private static final int KEYS = 150;

    @TempDir
    Path dir;

    private final KvServer[] servers = new KvServer[NODES];
    private KvClient client;
    private KvClient cold;

    @AfterEach
    void stop()
    {
        LocalCluster.closeAll(client, cold);
        LocalCluster.closeAll(servers);
    }

    @Test
    void aBatchSpanningThreeNodesReadsWhatSingleGetsRead()
    {
        final String seed = startCluster();
        client = KvClient.connect(LocalCluster.clientConfig(seed));
        cold = KvClient.connect(LocalCluster.clientConfig(seed));
        final List<byte[]> keys = new ArrayList<>();
        final Set<Integer> nodes = new HashSet<>();
        for (int i = 0; i < KEYS; i++)
        {
            keys.add(key(i));
            nodes.add(client.clusterMap().nodeForKeyHash(KeyHash.hash(key(i))).id());
            if (i % 5 != 0)
            {
                client.put(key(i), value(i));
            }
        }
        assertEquals(NODES, nodes.size(), "the keys live on every node");

        final ClientStats before = cold.stats();
        final List<byte[]> batched = cold.getAll(keys);
        final ClientStats after = cold.stats();

        for (int i = 0; i < KEYS; i++)
        {
            assertArrayEquals(client.get(key(i)), batched.get(i), "key " + i);
            assertArrayEquals(i % 5 == 0 ? null : value(i), batched.get(i), "key " + i);
        }
        final long trips = after.getRoundTrips() - before.getRoundTrips();
        assertEquals(KEYS, after.gets() - before.gets(), "one GET per key");
        assertTrue(trips <= maxBatchTrips(), "cold: " + trips + " round trips for " + KEYS + " keys");

        final ClientStats warm = cold.stats();
        assertEquals(batched.stream().map(Arrays::toString).toList(),
            cold.getAll(keys).stream().map(Arrays::toString).toList());
        final long warmTrips = cold.stats().getRoundTrips() - warm.getRoundTrips();
        assertTrue(warmTrips <= maxBatchTrips() / 2, "cached: " + warmTrips + " round trips for " + KEYS + " keys");
        assertTrue(cold.stats().cacheHits() - warm.cacheHits() >= KEYS * 4 / 5 - 1, "the present keys hit");
    }

    @Test
    void putAllWritesWhatGetAllReadsAndValuesOverABatchBlockFallBackToSingleGets()
    {
        final String seed = startCluster();
        client = KvClient.connect(LocalCluster.clientConfig(seed));
        final Map<byte[], byte[]> entries = new LinkedHashMap<>();
        final List<byte[]> keys = new ArrayList<>();
        for (int i = 0; i < 40; i++)
        {
            final byte[] v = i % 7 == 0 ? new byte[6000 + i] : value(i);
            v[0] = (byte)i;
            entries.put(key(i), v);
            keys.add(key(i));
        }
        client.putAll(entries);
        final List<byte[]> read = client.getAll(keys);
        int i = 0;
        for (final byte[] v : entries.values())
        {
            assertArrayEquals(v, read.get(i), "key " + i);
            i++;
        }
    }

    @Test
    void putAllSpanningThreeNodesWritesWhatSinglePutsWriteInFewerRoundTrips()
    {
        final String seed = startCluster();
        client = KvClient.connect(LocalCluster.clientConfig(seed));
        cold = KvClient.connect(LocalCluster.clientConfig(seed));
        final Map<byte[], byte[]> entries = new LinkedHashMap<>();
        for (int i = 0; i < KEYS; i++)
        {
            if (i % 5 != 0)
            {
                client.put(key(i), value(i));
            }
            entries.put(key(i), LocalCluster.bytes("batched " + i));
        }

        client.putAll(entries);
        for (int i = 0; i < KEYS; i += 2)
        {
            cold.put(key(i), LocalCluster.bytes("single " + i));
        }

        for (int i = 0; i < KEYS; i++)
        {
            final String expected = (i % 2 == 0 ? "single " : "batched ") + i;
            assertArrayEquals(LocalCluster.bytes(expected), cold.get(key(i)), "key " + i);
            assertArrayEquals(LocalCluster.bytes(expected), client.get(key(i)), "key " + i);
        }

        final ClientStats before = client.stats();
        client.putAll(entries);
        final ClientStats after = client.stats();
        assertEquals(KEYS, after.puts() - before.puts(), "one PUT per entry");
        final long trips = after.putRoundTrips() - before.putRoundTrips();
        // every slot cached and fresh: one doorbell per 16 entries of a node (single PUTs: one round trip each)
        assertTrue(trips <= KEYS / 16 + 2 * NODES + 4, trips + " round trips for " + KEYS + " cached entries");
        for (int i = 0; i < KEYS; i++)
        {
            assertArrayEquals(LocalCluster.bytes("batched " + i), cold.get(key(i)), "key " + i);
        }
    }

    @Test
    void anOversizedKeyOrValueFailsTheWholeBatchAndLosesNothing()
    {
        final String seed = startCluster();
        client = KvClient.connect(LocalCluster.clientConfig(seed));
        client.put(key(1), value(1));
        final byte[] huge = new byte[client.maxKeyLength() + 1];

        final Map<byte[], byte[]> entries = new LinkedHashMap<>();
        entries.put(key(1), LocalCluster.bytes("replaced"));
        entries.put(key(2), value(2));
        entries.put(huge, value(3));
        final KeyTooLargeException e = assertThrows(KeyTooLargeException.class, () -> client.putAll(entries));
        assertTrue(e.getMessage().contains("over the limit of " + client.maxKeyLength()), e.getMessage());
        assertArrayEquals(value(1), client.get(key(1)), "nothing written: the old value stays");
        assertNull(client.get(key(2)), "nothing written: the new key is absent");

        final Map<byte[], byte[]> bigValue = new LinkedHashMap<>();
        bigValue.put(key(2), value(2));
        bigValue.put(key(4), new byte[client.maxValueLength() + 1]);
        assertThrows(ValueTooLargeException.class, () -> client.putAll(bigValue));
        assertNull(client.get(key(2)));

        assertThrows(KeyTooLargeException.class, () -> client.getAll(List.of(key(1), huge)));
        assertThrows(NullPointerException.class, () -> client.getAll(Arrays.asList(key(1), null)));
        assertArrayEquals(value(1), client.getAll(List.of(key(1))).get(0), "the client still works");
    }

    @Test
    void manyGetAsyncInFlightReadWhatSingleGetsReadAndABadKeyFailsOnlyItsOwn()
    {
        final String seed = startCluster();
        client = KvClient.connect(LocalCluster.clientConfig(seed));
        for (int i = 0; i < 60; i++)
        {
            if (i % 3 != 0)
            {
                client.put(key(i), value(i));
            }
        }
        final List<CompletableFuture<byte[]>> inFlight = new ArrayList<>();
        for (int i = 0; i < 60; i++)
        {
            inFlight.add(client.getAsync(key(i)));
        }
        final CompletableFuture<byte[]> bad = client.getAsync(new byte[client.maxKeyLength() + 1]);
        inFlight.add(client.getAsync(key(1)));
        for (int i = 0; i < 60; i++)
        {
            assertArrayEquals(i % 3 == 0 ? null : value(i), inFlight.get(i).join(), "key " + i);
        }
        assertArrayEquals(value(1), inFlight.get(60).join());
        final CompletionException e = assertThrows(CompletionException.class, bad::join);
        assertTrue(e.getCause() instanceof KeyTooLargeException, e.toString());
    }

    @Test
    void manyPutAsyncInFlightWriteInBatchesAndABadValueFailsOnlyItsOwn()
    {
        final String seed = startCluster();
        client = KvClient.connect(LocalCluster.clientConfig(seed));
        cold = KvClient.connect(LocalCluster.clientConfig(seed));
        for (int i = 0; i < 60; i++)
        {
            client.put(key(i), value(i));
        }
        final ClientStats before = client.stats();
        final List<CompletableFuture<Void>> inFlight = new ArrayList<>();
        for (int i = 0; i < 60; i++)
        {
            inFlight.add(client.putAsync(key(i), LocalCluster.bytes("async " + i)));
        }
        final CompletableFuture<Void> bad = client.putAsync(key(61), new byte[client.maxValueLength() + 1]);
        inFlight.add(client.putAsync(key(62), LocalCluster.bytes("async 62")));
        inFlight.forEach(CompletableFuture::join);
        final ClientStats after = client.stats();

        for (int i = 0; i < 60; i++)
        {
            assertArrayEquals(LocalCluster.bytes("async " + i), cold.get(key(i)), "key " + i);
        }
        assertArrayEquals(LocalCluster.bytes("async 62"), cold.get(key(62)));
        final CompletionException e = assertThrows(CompletionException.class, bad::join);
        assertTrue(e.getCause() instanceof ValueTooLargeException, e.toString());
        assertNull(cold.get(key(61)));
        assertEquals(61, after.puts() - before.puts());
        final long trips = after.putRoundTrips() - before.putRoundTrips();
        assertTrue(trips < 60, trips + " round trips for 60 cached updates and an insert: they went in batches");
    }

    @Test
    void batchedOperationsAreCountedInThePerOperationMetrics()
    {
        final String seed = startCluster();
        final PrometheusRegistry registry = new PrometheusRegistry();
        client = KvClient.connect(LocalCluster.clientConfig(seed).withMetrics(registry));
        final Map<byte[], byte[]> entries = new LinkedHashMap<>();
        final List<byte[]> keys = new ArrayList<>();
        for (int i = 0; i < 40; i++)
        {
            entries.put(key(i), value(i));
            keys.add(key(i));
        }
        keys.add(key(99));
        client.putAll(entries);
        client.putAll(entries);
        client.getAll(keys);

        assertEquals(80, operations(registry, "put", "ok"), "each entry of both putAlls, batched or single");
        assertEquals(40, operations(registry, "get", "ok"));
        assertEquals(1, operations(registry, "get", "not_found"));
    }

    /** {@code rdmakv_client_operations_total{op,result}} in {@code registry} now. */
    private static double operations(final PrometheusRegistry registry, final String op, final String result)
    {
        for (final MetricSnapshot s : registry.scrape())
        {
            if (s instanceof CounterSnapshot c && c.getMetadata().getName().equals("rdmakv_client_operations"))
            {
                for (final CounterSnapshot.CounterDataPointSnapshot p : c.getDataPoints())
                {
                    if (op.equals(p.getLabels().get("op")) && result.equals(p.getLabels().get("result")))
                    {
                        return p.getValue();
                    }
                }
            }
        }
        return 0;
    }

    /** Two doorbells per 16 keys of a node, with room for the keys a batch leaves to single GETs. */
    private static long maxBatchTrips()
    {
        return NODES * 2L * (KEYS / NODES / 16 + 2) + 10;
    }

    private String startCluster()
    {
        return startCluster(dir, servers);
    }

    /** Starts {@code servers.length} nodes of one cluster (its map in {@code dir}); returns the first's address. */
    static String startCluster(final Path dir, final KvServer[] servers)
    {
        for (int attempt = 1; ; attempt++)
        {
            final int[] ports = ClusterFiles.freePorts(servers.length);
            final Path map = ClusterFiles.write(dir, ports);
            try
            {
                for (int id = 0; id < servers.length; id++)
                {
                    servers[id] = LocalCluster.startNode(ServerConfig.local(8L << 20).withCluster(id, map)
                        .withListen("127.0.0.1", ports[id]));
                }
                return "127.0.0.1:" + ports[0];
            }
            catch (final UncheckedIOException e)
            {
                LocalCluster.closeAll(servers);
                if (attempt == 3)
                {
                    throw e;
                }
            }
        }
    }

    private static byte[] key(final int i)
    {
        return LocalCluster.bytes("batch-key-" + i);
    }

    private static byte[] value(final int i)
    {
        return LocalCluster.bytes("value of batch-key-" + i);
    }
}
