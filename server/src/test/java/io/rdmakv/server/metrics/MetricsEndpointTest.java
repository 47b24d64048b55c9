package io.rdmakv.server.metrics;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.rdmakv.server.KvServer;
import io.rdmakv.server.config.ServerConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The endpoint of an idle node: what /metrics, /ready and /live say before, during and after service. */
class MetricsEndpointTest
{
    private KvServer server;
    private MetricsEndpoint endpoint;
    private final Readiness readiness = new Readiness();
    private final PrometheusRegistry registry = new PrometheusRegistry();
    private ServerMetrics metrics;

    @BeforeEach
    void start() throws IOException
    {
        server = KvServer.start(ServerConfig.local(16L << 20));
        metrics = ServerMetrics.register(registry, server, readiness, 0);
        endpoint = MetricsEndpoint.start("127.0.0.1", 0, registry, readiness);
    }

    @AfterEach
    void stop()
    {
        endpoint.close();
        server.close();
    }

    private String url(final String path)
    {
        return "http://127.0.0.1:" + endpoint.port() + path;
    }

    @Test
    void readinessFollowsTheNodesLife() throws Exception
    {
        assertEquals(503, Scrape.get(url("/ready")).statusCode(), "not ready before the runner says so");
        assertEquals(0, Scrape.of(endpoint.port()).count("rdmakv_ready"));
        readiness.ready();
        assertEquals(200, Scrape.get(url("/ready")).statusCode());
        assertEquals(1, Scrape.of(endpoint.port()).count("rdmakv_ready"));
        readiness.stopping();
        assertEquals(503, Scrape.get(url("/ready")).statusCode());
        assertEquals("shutting down\n", Scrape.get(url("/ready")).body());
        assertEquals(200, Scrape.get(url("/live")).statusCode(), "alive while it serves HTTP");
        assertEquals(404, Scrape.get(url("/nothing")).statusCode());
    }

    @Test
    void anIdleNodeReportsItsIdentityAndAnEmptyRegion() throws Exception
    {
        final Scrape s = Scrape.of(endpoint.port());
        assertEquals(1, s.count("rdmakv_build_info{layout_version=\"" + BuildInfo.LAYOUT_VERSION +
            "\",protocol_version=\"" + BuildInfo.PROTOCOL_VERSION + "\",version=\"" + BuildInfo.VERSION + "\"}"));
        assertEquals(1, s.count("rdmakv_transport_info{atomics=\"GLOB\",device=\"tcp0\",link_layer=\"TCP\"," +
            "port_state=\"ACTIVE\",transport=\"tcp\"}"));
        assertEquals(1, s.count("rdmakv_node_info{listen=\"127.0.0.1:" + server.port() + "\",node_id=\"0\"}"));
        assertEquals(0, s.count("rdmakv_connected_clients"));
        assertEquals(0, s.count("rdmakv_index_slots_used"));
        assertEquals(server.geometry().slotCount(), s.count("rdmakv_index_slots"));
        assertEquals(0, s.count("rdmakv_data_area_used_bytes"));
        assertEquals(s.count("rdmakv_data_area_capacity_bytes"), s.count("rdmakv_data_area_free_bytes"));
        assertEquals(server.geometry().regionLength(), s.count("rdmakv_region_bytes"));
        for (final String type : new String[] {"alloc", "free", "stats", "bye"})
        {
            assertEquals(0, s.count("rdmakv_control_requests_total{type=\"" + type + "\"}"));
        }
        assertEquals(0, s.count("rdmakv_completion_errors_total{status=\"REM_ACCESS_ERR\"}"));
        assertEquals(0, s.count("rdmakv_grace_period_bytes"));
        assertTrue(s.text().contains("# HELP rdmakv_index_load_ratio"), "metrics carry help text");
    }

    @Test
    void unregisteringRemovesEveryMetric() throws Exception
    {
        metrics.unregister();
        assertTrue(Scrape.of(endpoint.port()).samples().isEmpty());
    }

    @Test
    void aTakenPortFailsAtOnceNamingIt()
    {
        final IOException e = assertThrows(IOException.class,
            () -> MetricsEndpoint.start("127.0.0.1", endpoint.port(), registry, readiness));
        assertTrue(e.getMessage().contains("cannot serve metrics on 127.0.0.1:" + endpoint.port()), e.getMessage());
    }
}
