package io.rdmakv.server.metrics;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.prometheus.metrics.exporter.httpserver.MetricsHandler;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The node's HTTP endpoint, a virtual thread per request (a slow or idle peer holds only its own):
 * <ul>
 * <li>{@code /metrics}: the Prometheus exposition of the registry (text, OpenMetrics or protobuf, as the
 *     scraper asks);</li>
 * <li>{@code /ready}: 200 once the region is registered and clients are accepted, 503 before and
 *     during shutdown (a readiness probe);</li>
 * <li>{@code /live}: 200 while the process serves HTTP (a liveness probe).</li>
 * </ul>
 */
public final class MetricsEndpoint implements AutoCloseable
{
    /** The longest a request may take to arrive, headers and body. */
    static final int MAX_REQUEST_SECONDS = 10;

    private final HttpServer server;
    private final ExecutorService executor;

    private MetricsEndpoint(final HttpServer server, final ExecutorService executor)
    {
        this.server = server;
        this.executor = executor;
    }

    /** Binds {@code host:port} (0: any free port) and starts serving; fails at once when the port is taken. */
    public static MetricsEndpoint start(final String host, final int port, final PrometheusRegistry registry,
        final Readiness readiness) throws IOException
    {
        boundRequestTime();
        final HttpServer server;
        try
        {
            server = HttpServer.create(new InetSocketAddress(host, port), 16);
        }
        catch (final IOException e)
        {
            throw new IOException("cannot serve metrics on " + host + ":" + port + ": " + e.getMessage(), e);
        }
        // A virtual thread per exchange: the JDK server reads a request's line and headers on the executor,
        // so with one thread a peer that trickles a request stalled every scrape and probe behind it.
        final ExecutorService executor = Executors.newThreadPerTaskExecutor(
            Thread.ofVirtual().name("rdmakv-metrics-", 0).factory());
        server.setExecutor(executor);
        server.createContext("/metrics", new MetricsHandler(registry));
        server.createContext("/ready", exchange -> answer(exchange, readiness.isReady() ? 200 : 503,
            readiness.isReady() ? "ready\n" : readiness.isStopping() ? "shutting down\n" : "starting\n"));
        server.createContext("/live", exchange -> answer(exchange, 200, "alive\n"));
        server.createContext("/", exchange -> answer(exchange, "/".equals(exchange.getRequestURI().getPath()) ?
            200 : 404, "rdmakv kvserver: /metrics /ready /live\n"));
        server.start();
        return new MetricsEndpoint(server, executor);
    }

    /**
     * A peer that trickles a request (or sends half of one and idles) is cut off after {@value
     * #MAX_REQUEST_SECONDS} s instead of holding a socket and a thread for ever: the JDK server's own limit,
     * unset by default. It is read once, when the JDK's server is first used in this process; an operator's
     * -D setting wins.
     */
    private static void boundRequestTime()
    {
        if (System.getProperty("sun.net.httpserver.maxReqTime") == null)
        {
            System.setProperty("sun.net.httpserver.maxReqTime", String.valueOf(MAX_REQUEST_SECONDS));
        }
    }

    private static void answer(final HttpExchange exchange, final int status, final String body) throws IOException
    {
        try (exchange)
        {
            exchange.getRequestBody().readAllBytes();
            final byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
            if ("HEAD".equals(exchange.getRequestMethod()))
            {
                exchange.sendResponseHeaders(status, -1);
                return;
            }
            exchange.sendResponseHeaders(status, bytes.length);
            try (OutputStream out = exchange.getResponseBody())
            {
                out.write(bytes);
            }
        }
    }

    /** The port it listens on (the chosen one when started with 0). */
    public int port()
    {
        return server.getAddress().getPort();
    }

    @Override
    public void close()
    {
        server.stop(0);
        executor.shutdownNow();
    }
}
