package io.rdmakv.client;

import io.prometheus.metrics.model.registry.PrometheusRegistry;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * How a {@link KvClient} connects.
 *
 * @param seeds          nodes to learn the cluster map from (any one that answers will do)
 * @param authToken      the cluster's shared token ({@code --auth-token} of kvserver); empty for none
 * @param transport      {@code auto}, {@code tcp} or {@code ibverbs}
 * @param tcpBindHost    address the {@code tcp} transport's endpoint listens on (reachable by the nodes)
 * @param opTimeout      how long one operation may take before it fails with {@link KvTimeoutException}
 * @param connectTimeout how long opening a session may take
 * @param asyncThreads   threads that run the asynchronous API's operations
 * @param metrics        where the client registers its metrics ({@code rdmakv_client_*}), or null for none;
 *                       one client per registry
 * @param tls            TLS on the bootstrap connections ({@link #withTls}), or null for plaintext
 */
public record KvClientConfig(
    List<InetSocketAddress> seeds,
    String authToken,
    String transport,
    String tcpBindHost,
    Duration opTimeout,
    Duration connectTimeout,
    int asyncThreads,
    PrometheusRegistry metrics,
    ClientTls tls)
{
    public static final int DEFAULT_PORT = 7400;

    public KvClientConfig
    {
        if (seeds == null || seeds.isEmpty())
        {
            throw new IllegalArgumentException("at least one node address is needed");
        }
        seeds = List.copyOf(seeds);
        authToken = authToken == null ? "" : authToken;
        if (opTimeout.isNegative() || opTimeout.isZero() || connectTimeout.isNegative() || connectTimeout.isZero())
        {
            throw new IllegalArgumentException("timeouts must be positive");
        }
        if (asyncThreads < 1)
        {
            throw new IllegalArgumentException("asyncThreads must be at least 1");
        }
    }

    /** A configuration without metrics (the form before metrics existed). */
    public KvClientConfig(final List<InetSocketAddress> seeds, final String authToken, final String transport,
        final String tcpBindHost, final Duration opTimeout, final Duration connectTimeout, final int asyncThreads)
    {
        this(seeds, authToken, transport, tcpBindHost, opTimeout, connectTimeout, asyncThreads, null, null);
    }

    /** A configuration without TLS (the form before TLS existed). */
    public KvClientConfig(final List<InetSocketAddress> seeds, final String authToken, final String transport,
        final String tcpBindHost, final Duration opTimeout, final Duration connectTimeout, final int asyncThreads,
        final PrometheusRegistry metrics)
    {
        this(seeds, authToken, transport, tcpBindHost, opTimeout, connectTimeout, asyncThreads, metrics, null);
    }

    /** Defaults for {@code hosts} ("host:port,host:port"): no token, transport auto, 5 s timeouts, 4 async threads. */
    public static KvClientConfig of(final String hosts)
    {
        return new KvClientConfig(parseHosts(hosts), "", "auto", "127.0.0.1", Duration.ofSeconds(5),
            Duration.ofSeconds(5), 4);
    }

    public KvClientConfig withAuthToken(final String token)
    {
        return new KvClientConfig(seeds, token, transport, tcpBindHost, opTimeout, connectTimeout, asyncThreads,
            metrics, tls);
    }

    public KvClientConfig withTransport(final String newTransport)
    {
        return new KvClientConfig(seeds, authToken, newTransport, tcpBindHost, opTimeout, connectTimeout, asyncThreads,
            metrics, tls);
    }

    public KvClientConfig withOpTimeout(final Duration timeout)
    {
        return new KvClientConfig(seeds, authToken, transport, tcpBindHost, timeout, connectTimeout, asyncThreads,
            metrics, tls);
    }

    public KvClientConfig withConnectTimeout(final Duration timeout)
    {
        return new KvClientConfig(seeds, authToken, transport, tcpBindHost, opTimeout, timeout, asyncThreads,
            metrics, tls);
    }

    public KvClientConfig withAsyncThreads(final int threads)
    {
        return new KvClientConfig(seeds, authToken, transport, tcpBindHost, opTimeout, connectTimeout, threads,
            metrics, tls);
    }

    /**
     * Registers the client's metrics in {@code registry} when it connects (and removes them when it
     * closes): operations by type and result, latency and round trips per operation, retries. Counting
     * stays on the client's threads as plain per-thread counters; the registry reads them when scraped.
     */
    public KvClientConfig withMetrics(final PrometheusRegistry registry)
    {
        return new KvClientConfig(seeds, authToken, transport, tcpBindHost, opTimeout, connectTimeout, asyncThreads,
            registry, tls);
    }

    /**
     * Bootstrap connections over TLS 1.3, trusting the CA certificates in {@code trustedCaPem} (PEM) to vouch
     * for the nodes. Reads the file now: one that cannot be used fails with an
     * {@link IllegalArgumentException} naming it.
     */
    public KvClientConfig withTls(final Path trustedCaPem)
    {
        return withTls(ClientTls.trusting(trustedCaPem));
    }

    /**
     * As {@link #withTls(Path)}, presenting this client's certificate chain and PKCS#8 private key (PEM) to
     * nodes that require client certificates; such a node may admit the client without a token.
     */
    public KvClientConfig withTls(final Path trustedCaPem, final Path certChainPem, final Path keyPem)
    {
        return withTls(ClientTls.withCertificate(trustedCaPem, certChainPem, keyPem));
    }

    /** TLS as {@code settings} say; null: plaintext. */
    public KvClientConfig withTls(final ClientTls settings)
    {
        return new KvClientConfig(seeds, authToken, transport, tcpBindHost, opTimeout, connectTimeout, asyncThreads,
            metrics, settings);
    }

    /** Parses "host:port[,host:port...]"; a missing port means {@value #DEFAULT_PORT}. */
    public static List<InetSocketAddress> parseHosts(final String hosts)
    {
        final List<InetSocketAddress> result = new ArrayList<>();
        for (final String part : hosts.split(","))
        {
            final String h = part.trim();
            if (h.isEmpty())
            {
                continue;
            }
            final int colon = h.lastIndexOf(':');
            try
            {
                result.add(colon < 0 ? InetSocketAddress.createUnresolved(h, DEFAULT_PORT) :
                    InetSocketAddress.createUnresolved(h.substring(0, colon), Integer.parseInt(h.substring(colon + 1))));
            }
            catch (final IllegalArgumentException e)
            {
                throw new IllegalArgumentException("bad node address '" + h + "': expected HOST:PORT", e);
            }
        }
        if (result.isEmpty())
        {
            throw new IllegalArgumentException("no node address in '" + hosts + "'");
        }
        return result;
    }
}
