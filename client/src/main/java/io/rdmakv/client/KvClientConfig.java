package io.rdmakv.client;

import io.rdmakv.client.internal.op.SlotCache;
import io.rdmakv.peer.WaitStrategy;
import io.rdmakv.verbs.ConnectionSetup;
import io.rdmakv.verbs.Providers;
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
 * @param asyncThreads   threads that run the asynchronous API's operations (getAsync, putAsync: each takes
 *                       the GETs and PUTs waiting, up to 16, and runs them as one getAll and one putAll per node)
 * @param metrics        where the client registers its metrics ({@code rdmakv_client_*}), or null for none;
 *                       one client per registry
 * @param waitStrategy   how a thread waits for its round trip's completion (default {@link WaitStrategy#ADAPTIVE})
 * @param cacheEntries   how many keys' slot addresses the client remembers, shared by all its threads
 *                       (rounded up to a power of two; 32 bytes each; 0 turns the cache off); see
 *                       {@link #DEFAULT_CACHE_ENTRIES}
 * @param tls            TLS on the bootstrap connections ({@link #withTls}), or null for plaintext
 * @param connectionSetup how the sessions' queue pairs are connected ({@link #withConnectionSetup}): {@code auto}
 *                       (default) as each node chose, {@code rdmacm} or {@code exchange} only so
 * @param device         the RDMA device to open ({@code ibverbs}; {@code mlx5_0}, {@code rxe1}), or null for the
 *                       first whose port is ACTIVE; a name no device has fails {@link KvClient#connect} with the
 *                       names there are. {@code tcp} has no devices and ignores it
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
    WaitStrategy waitStrategy,
    int cacheEntries,
    ClientTls tls,
    ConnectionSetup connectionSetup,
    String device)
{
    public static final int DEFAULT_PORT = 7400;
    /** 2^20 entries (32 MiB): about a million keys, most of them cached (4-way sets). */
    public static final int DEFAULT_CACHE_ENTRIES = 1 << 20;

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
        waitStrategy = waitStrategy == null ? WaitStrategy.ADAPTIVE : waitStrategy;
        connectionSetup = connectionSetup == null ? ConnectionSetup.AUTO : connectionSetup;
        if (connectionSetup == ConnectionSetup.RDMACM && Providers.TCP.equals(transport))
        {
            throw new IllegalArgumentException("connection setup rdmacm needs the ibverbs transport, not tcp (the tcp " +
                "transport connects its queue pairs itself): use auto or exchange, or transport ibverbs");
        }
        device = device == null || device.isBlank() ? null : device.trim();
        if (cacheEntries < 0 || cacheEntries > SlotCache.MAX_ENTRIES)
        {
            throw new IllegalArgumentException("cacheEntries must be 0 (off) to " + SlotCache.MAX_ENTRIES + ", not " +
                cacheEntries);
        }
    }

    /** A configuration whose queue pairs are connected as each node chose, on the first active device. */
    public KvClientConfig(final List<InetSocketAddress> seeds, final String authToken, final String transport,
        final String tcpBindHost, final Duration opTimeout, final Duration connectTimeout, final int asyncThreads,
        final PrometheusRegistry metrics, final WaitStrategy waitStrategy, final int cacheEntries, final ClientTls tls)
    {
        this(seeds, authToken, transport, tcpBindHost, opTimeout, connectTimeout, asyncThreads, metrics, waitStrategy,
            cacheEntries, tls, ConnectionSetup.AUTO, null);
    }

    /** A configuration with the default wait strategy and slot cache and no TLS (the form before those existed). */
    public KvClientConfig(final List<InetSocketAddress> seeds, final String authToken, final String transport,
        final String tcpBindHost, final Duration opTimeout, final Duration connectTimeout, final int asyncThreads,
        final PrometheusRegistry metrics)
    {
        this(seeds, authToken, transport, tcpBindHost, opTimeout, connectTimeout, asyncThreads, metrics,
            WaitStrategy.ADAPTIVE, DEFAULT_CACHE_ENTRIES, null, ConnectionSetup.AUTO, null);
    }

    /** A configuration without metrics (the form before metrics existed). */
    public KvClientConfig(final List<InetSocketAddress> seeds, final String authToken, final String transport,
        final String tcpBindHost, final Duration opTimeout, final Duration connectTimeout, final int asyncThreads)
    {
        this(seeds, authToken, transport, tcpBindHost, opTimeout, connectTimeout, asyncThreads, null);
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
            metrics, waitStrategy, cacheEntries, tls, connectionSetup, device);
    }

    public KvClientConfig withTransport(final String newTransport)
    {
        return new KvClientConfig(seeds, authToken, newTransport, tcpBindHost, opTimeout, connectTimeout, asyncThreads,
            metrics, waitStrategy, cacheEntries, tls, connectionSetup, device);
    }

    public KvClientConfig withOpTimeout(final Duration timeout)
    {
        return new KvClientConfig(seeds, authToken, transport, tcpBindHost, timeout, connectTimeout, asyncThreads,
            metrics, waitStrategy, cacheEntries, tls, connectionSetup, device);
    }

    public KvClientConfig withConnectTimeout(final Duration timeout)
    {
        return new KvClientConfig(seeds, authToken, transport, tcpBindHost, opTimeout, timeout, asyncThreads,
            metrics, waitStrategy, cacheEntries, tls, connectionSetup, device);
    }

    public KvClientConfig withAsyncThreads(final int threads)
    {
        return new KvClientConfig(seeds, authToken, transport, tcpBindHost, opTimeout, connectTimeout, threads,
            metrics, waitStrategy, cacheEntries, tls, connectionSetup, device);
    }

    /**
     * Registers the client's metrics in {@code registry} when it connects (and removes them when it
     * closes): operations by type and result, latency and round trips per operation, retries. Counting
     * stays on the client's threads as plain per-thread counters; the registry reads them when scraped.
     */
    public KvClientConfig withMetrics(final PrometheusRegistry registry)
    {
        return new KvClientConfig(seeds, authToken, transport, tcpBindHost, opTimeout, connectTimeout, asyncThreads,
            registry, waitStrategy, cacheEntries, tls, connectionSetup, device);
    }

    /** How a thread waits for each round trip: {@code busy-spin}, {@code adaptive} (default) or {@code blocking}. */
    public KvClientConfig withWaitStrategy(final WaitStrategy strategy)
    {
        return new KvClientConfig(seeds, authToken, transport, tcpBindHost, opTimeout, connectTimeout, asyncThreads,
            metrics, strategy, cacheEntries, tls, connectionSetup, device);
    }

    /** How many keys' slots the client caches (0: none); see {@link #DEFAULT_CACHE_ENTRIES}. */
    public KvClientConfig withCacheEntries(final int entries)
    {
        return new KvClientConfig(seeds, authToken, transport, tcpBindHost, opTimeout, connectTimeout, asyncThreads,
            metrics, waitStrategy, entries, tls, connectionSetup, device);
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
            metrics, waitStrategy, cacheEntries, settings, connectionSetup, device);
    }

    /**
     * How the sessions' queue pairs are connected after the bootstrap: {@code auto} (default) as each node chose
     * (kvserver {@code --cm}), {@code rdmacm} (the RDMA connection manager) or {@code exchange} (queue-pair
     * numbers and GIDs in HELLO/HELLO_OK) only so: a node that chose the other is refused, saying so.
     * {@code rdmacm} needs the {@code ibverbs} transport.
     */
    public KvClientConfig withConnectionSetup(final ConnectionSetup setup)
    {
        return new KvClientConfig(seeds, authToken, transport, tcpBindHost, opTimeout, connectTimeout, asyncThreads,
            metrics, waitStrategy, cacheEntries, tls, setup, device);
    }

    /**
     * Opens RDMA device {@code name} ({@code ibverbs}) instead of the first active one: where a host has
     * several, the one on the network the nodes are reached through. Null or blank: the first active one.
     */
    public KvClientConfig withDevice(final String name)
    {
        return new KvClientConfig(seeds, authToken, transport, tcpBindHost, opTimeout, connectTimeout, asyncThreads,
            metrics, waitStrategy, cacheEntries, tls, connectionSetup, name);
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
