package io.rdmakv.systemtests.metrics;

import io.prometheus.metrics.exporter.httpserver.HTTPServer;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.rdmakv.client.KvClient;
import io.rdmakv.client.KvClientConfig;
import io.rdmakv.client.Versioned;
import io.rdmakv.server.KvServer;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.server.metrics.MetricsEndpoint;
import io.rdmakv.server.metrics.Readiness;
import io.rdmakv.server.metrics.ServerMetrics;
import io.rdmakv.systemtests.LocalCluster;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A short workload against a node while both the node's and the client's metrics are scraped over
 * HTTP; afterwards the counters must match the work done.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class MetricsScrapeTest
{
    private static final int PUTS = 300;
    private static final int GETS = 400;
    private static final int MISSES = 50;
    private static final int DELETES = 20;

    private KvServer server;
    private MetricsEndpoint serverEndpoint;
    private PrometheusRegistry clientRegistry;
    private HTTPServer clientEndpoint;

    @BeforeEach
    void start() throws IOException
    {
        server = LocalCluster.startNode(ServerConfig.local(32L << 20));
        final PrometheusRegistry serverRegistry = new PrometheusRegistry();
        final Readiness readiness = new Readiness();
        ServerMetrics.register(serverRegistry, server, readiness, 0);
        readiness.ready();
        serverEndpoint = MetricsEndpoint.start("127.0.0.1", 0, serverRegistry, readiness);
        clientRegistry = new PrometheusRegistry();
        clientEndpoint = HTTPServer.builder().hostname("127.0.0.1").port(0).registry(clientRegistry).buildAndStart();
    }

    @AfterEach
    void stop()
    {
        clientEndpoint.close();
        serverEndpoint.close();
        server.close();
    }

    private KvClientConfig config()
    {
        return LocalCluster.clientConfig(LocalCluster.address(server)).withMetrics(clientRegistry);
    }

    private static byte[] key(final int i)
    {
        return ("key-" + i).getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void countersMatchTheWorkDone() throws Exception
    {
        try (KvClient client = KvClient.connect(config()))
        {
            final Thread worker = Thread.ofPlatform().name("workload").start(() ->
            {
                for (int i = 0; i < PUTS; i++)
                {
                    client.put(key(i), ("value-" + i).repeat(1 + i % 7).getBytes(StandardCharsets.UTF_8));
                }
                for (int i = 0; i < GETS; i++)
                {
                    assertNotNull(client.get(key(i % PUTS)));
                }
                for (int i = 0; i < MISSES; i++)
                {
                    assertEquals(null, client.get(key(PUTS + i)));
                }
            });
            int scrapesDuring = 0;
            double lastPuts = 0;
            while (worker.isAlive())
            {
                final Scrape s = Scrape.of(clientEndpoint.getPort());
                final double puts = s.value("rdmakv_client_operations_total{op=\"put\",result=\"ok\"}");
                assertTrue(puts >= lastPuts, "a counter never goes back");
                lastPuts = puts;
                Scrape.of(serverEndpoint.port());
                scrapesDuring++;
                Thread.sleep(5);
            }
            worker.join();
            assertTrue(scrapesDuring > 0, "scraped while the workload ran");

            final Scrape c = Scrape.of(clientEndpoint.getPort());
            assertEquals(PUTS, c.count("rdmakv_client_operations_total{op=\"put\",result=\"ok\"}"));
            assertEquals(GETS, c.count("rdmakv_client_operations_total{op=\"get\",result=\"ok\"}"));
            assertEquals(MISSES, c.count("rdmakv_client_operations_total{op=\"get\",result=\"not_found\"}"));
            assertEquals(0, c.count("rdmakv_client_operations_total{op=\"delete\",result=\"ok\"}"));
            assertFalse(c.samples().containsKey("rdmakv_client_operations_total{op=\"put\",result=\"timeout\"}"),
                "failure results appear once they happen");
            assertEquals(PUTS, c.count("rdmakv_client_operation_duration_seconds_count{op=\"put\"}"));
            assertEquals(GETS + MISSES, c.count("rdmakv_client_operation_duration_seconds_count{op=\"get\"}"));
            assertEquals(PUTS, c.count("rdmakv_client_operation_duration_seconds_bucket{op=\"put\",le=\"+Inf\"}"));
            assertTrue(c.value("rdmakv_client_operation_duration_seconds_sum{op=\"get\"}") > 0);
            assertEquals(GETS + MISSES, c.count("rdmakv_client_operation_round_trips_count{op=\"get\"}"));
            assertTrue(c.count("rdmakv_client_operation_round_trips_sum{op=\"get\"}") >= GETS + MISSES,
                "a GET takes at least one round trip");
            assertTrue(c.count("rdmakv_client_operation_round_trips_sum{op=\"put\"}") >= 2L * PUTS,
                "a PUT takes at least two round trips");
            assertTrue(c.count("rdmakv_client_round_trips_total") >=
                c.count("rdmakv_client_operation_round_trips_sum{op=\"get\"}") +
                c.count("rdmakv_client_operation_round_trips_sum{op=\"put\"}"));
            assertTrue(c.count("rdmakv_client_control_messages_total") >= 1, "at least one ALLOC");
            assertEquals(0, c.count("rdmakv_client_cas_retries_total"), "one writer: no lost races");
            assertEquals(0, c.count("rdmakv_client_connect_failures_total"));
            assertEquals(1, c.count("rdmakv_client_sessions"), "the worker's lane");

            final Scrape s = Scrape.of(serverEndpoint.port());
            assertEquals(PUTS, s.count("rdmakv_index_slots_used"), "one slot per key");
            assertEquals((double)PUTS / s.count("rdmakv_index_slots"), s.value("rdmakv_index_load_ratio"), 1e-12);
            assertTrue(s.count("rdmakv_data_area_used_bytes") > 0);
            assertEquals(s.count("rdmakv_data_area_capacity_bytes"), s.count("rdmakv_data_area_used_bytes") +
                s.count("rdmakv_data_area_free_bytes") + s.count("rdmakv_grace_period_bytes"));
            final long allocs = s.count("rdmakv_control_requests_total{type=\"alloc\"}");
            assertTrue(allocs >= 1, "space was granted");
            assertEquals(allocs, s.count("rdmakv_granted_chunks_total"));
            assertEquals(1, s.count("rdmakv_connected_clients"));
            assertEquals(1, s.count("rdmakv_sessions_opened_total") - s.count("rdmakv_sessions_closed_total"),
                "one session open: the worker thread's (connect's first session only fetched the map)");
            assertEquals(0, s.count("rdmakv_control_errors_total{error=\"alloc_failed\"}"));

            client.nodeStats();
            assertEquals(1, Scrape.of(serverEndpoint.port()).count("rdmakv_control_requests_total{type=\"stats\"}"));
        }
        assertFalse(Scrape.of(clientEndpoint.getPort()).text().contains("rdmakv_client_"),
            "a closed client takes its metrics out of the registry");
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        Scrape after = Scrape.of(serverEndpoint.port());
        // a departed session stops counting as connected at once; it is closed once its last FREEs are served
        while (after.count("rdmakv_connected_clients") != 0 ||
            after.count("rdmakv_sessions_opened_total") != after.count("rdmakv_sessions_closed_total"))
        {
            assertTrue(System.nanoTime() < deadline, "the sessions end after close:\n" + after.text());
            Thread.sleep(10);
            after = Scrape.of(serverEndpoint.port());
        }
        assertTrue(after.count("rdmakv_control_requests_total{type=\"bye\"}") >= 1);
    }

    @Test
    void deletesAndCompareAndSetAreCountedByResultAndFreedSpaceReachesTheNode() throws Exception
    {
        try (KvClient client = KvClient.connect(config()))
        {
            for (int i = 0; i < DELETES; i++)
            {
                client.put(key(i), new byte[100]);
            }
            for (int i = 0; i < DELETES; i++)
            {
                assertTrue(client.delete(key(i)));
                assertFalse(client.delete(key(i)));
            }
            final Versioned absent = client.getVersioned(key(0));
            assertEquals(null, absent);
            assertTrue(client.putIfVersion(key(0), new byte[8], KvClient.ABSENT));
            assertFalse(client.putIfVersion(key(0), new byte[8], KvClient.ABSENT));
            final Scrape c = Scrape.of(clientEndpoint.getPort());
            assertEquals(DELETES, c.count("rdmakv_client_operations_total{op=\"delete\",result=\"ok\"}"));
            assertEquals(DELETES, c.count("rdmakv_client_operations_total{op=\"delete\",result=\"not_found\"}"));
            assertEquals(1, c.count("rdmakv_client_operations_total{op=\"compare_and_set\",result=\"ok\"}"));
            assertEquals(1, c.count("rdmakv_client_operations_total{op=\"compare_and_set\",result=\"conflict\"}"));
            // the client moves on to its next extent: with memory windows, a FREE inside the extent a session
            // still writes through its window is held until then
            final byte[] large = new byte[200 << 10];
            for (int i = 0; i < 6; i++)
            {
                client.put(key(DELETES + i), large);
            }
        }
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        Scrape s = Scrape.of(serverEndpoint.port());
        while (s.count("rdmakv_freed_blocks_total") < DELETES || s.count("rdmakv_reclaimed_bytes_total") == 0)
        {
            assertTrue(System.nanoTime() < deadline, "the FREEs arrive, and the closed session's unused grant " +
                "is reclaimed, when the client closes:\n" + s.text());
            Thread.sleep(10);
            s = Scrape.of(serverEndpoint.port());
        }
        assertTrue(s.count("rdmakv_control_requests_total{type=\"free\"}") >= 1);
    }

    @Test
    void oneRegistryHoldsOneClient()
    {
        try (KvClient client = KvClient.connect(config()))
        {
            final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> KvClient.connect(config()).close());
            assertTrue(e.getMessage().contains("another KvClient"), e.getMessage());
            client.put(key(1), key(1));
        }
    }

    @Test
    void aFailedConnectIsCounted() throws Exception
    {
        try (KvClient client = KvClient.connect(config()))
        {
            server.close();
            assertThrows(io.rdmakv.client.KvConnectionException.class, () -> client.put(key(1), key(1)));
            assertThrows(io.rdmakv.client.KvConnectionException.class, () -> client.put(key(1), key(1)));
            final Scrape c = Scrape.of(clientEndpoint.getPort());
            assertTrue(c.count("rdmakv_client_connect_failures_total") >= 1, c.text());
        }
    }
}
