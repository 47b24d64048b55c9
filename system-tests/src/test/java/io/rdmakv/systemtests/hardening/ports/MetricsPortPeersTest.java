package io.rdmakv.systemtests.hardening.ports;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.rdmakv.client.KvClient;
import io.rdmakv.server.KvServer;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.server.metrics.MetricsEndpoint;
import io.rdmakv.server.metrics.Readiness;
import io.rdmakv.server.metrics.ServerMetrics;
import io.rdmakv.systemtests.LocalCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The metrics port, like the node's other ports, serves everyone else while one peer idles on it and
 * another trickles a request a byte at a time: scrapes and readiness probes keep answering, and clients
 * keep working.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MetricsPortPeersTest
{
    private static final int SCRAPES = 20;

    @Test
    void scrapesAndClientsGoOnWhileOnePeerIdlesAndAnotherTrickles() throws Exception
    {
        try (KvServer server = LocalCluster.startNode(ServerConfig.local(LocalCluster.NODE_MEMORY)))
        {
            final Readiness readiness = new Readiness();
            readiness.ready();
            final PrometheusRegistry registry = new PrometheusRegistry();
            ServerMetrics.register(registry, server, readiness, 0);
            final MetricsEndpoint endpoint = MetricsEndpoint.start("127.0.0.1", 0, registry, readiness);
            final AtomicBoolean stop = new AtomicBoolean();
            try (Socket idle = new Socket(); Socket trickle = new Socket();
                KvClient client = LocalCluster.client(server))
            {
                idle.connect(new InetSocketAddress("127.0.0.1", endpoint.port()));
                trickle.connect(new InetSocketAddress("127.0.0.1", endpoint.port()));
                final Thread trickler = Thread.ofPlatform().daemon().start(() -> trickle(trickle, stop));
                final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
                for (int i = 0; i < SCRAPES; i++)
                {
                    final long t0 = System.nanoTime();
                    final HttpResponse<String> metrics = http.send(HttpRequest.newBuilder(
                            URI.create("http://127.0.0.1:" + endpoint.port() + "/metrics"))
                        .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.ofString());
                    assertEquals(200, metrics.statusCode());
                    assertTrue(metrics.body().contains("rdmakv_ready 1"), metrics.body());
                    final HttpResponse<String> ready = http.send(HttpRequest.newBuilder(
                            URI.create("http://127.0.0.1:" + endpoint.port() + "/ready"))
                        .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.ofString());
                    assertEquals(200, ready.statusCode());
                    final byte[] key = ("k" + i).getBytes(StandardCharsets.UTF_8);
                    client.put(key, key);
                    assertArrayEquals(key, client.get(key));
                    assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(2), "round " + i + " took too long");
                    Thread.sleep(100);
                }
                stop.set(true);
                trickler.join();
            }
            finally
            {
                endpoint.close();
            }
        }
    }

    /** Sends a request one byte every 200 ms, never finishing it. */
    private static void trickle(final Socket socket, final AtomicBoolean stop)
    {
        final byte[] request = "GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: ".getBytes(StandardCharsets.US_ASCII);
        try
        {
            final OutputStream out = socket.getOutputStream();
            for (int i = 0; !stop.get(); i++)
            {
                out.write(request[Math.min(i, request.length - 1)]);
                out.flush();
                Thread.sleep(200);
            }
        }
        catch (final Exception e)
        {
            // the endpoint may close a peer that is too slow: that is fine
        }
    }
}
