package io.rdmakv.ycsb;

import io.rdmakv.client.ClientTls;
import io.rdmakv.client.KvClientConfig;
import io.rdmakv.peer.WaitStrategy;
import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.ClusterMapJson;
import io.rdmakv.common.cluster.ClusterNode;
import io.rdmakv.verbs.ConnectionSetup;
import site.ycsb.DBException;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

import static io.rdmakv.ycsb.RdmaKvClient.CACHE_ENTRIES_PROPERTY;
import static io.rdmakv.ycsb.RdmaKvClient.CLUSTER_PROPERTY;
import static io.rdmakv.ycsb.RdmaKvClient.CM_DEFAULT;
import static io.rdmakv.ycsb.RdmaKvClient.CM_PROPERTY;
import static io.rdmakv.ycsb.RdmaKvClient.CONNECT_TIMEOUT_PROPERTY;
import static io.rdmakv.ycsb.RdmaKvClient.DEVICE_PROPERTY;
import static io.rdmakv.ycsb.RdmaKvClient.HOSTS_DEFAULT;
import static io.rdmakv.ycsb.RdmaKvClient.HOSTS_PROPERTY;
import static io.rdmakv.ycsb.RdmaKvClient.PRINT_STATS_PROPERTY;
import static io.rdmakv.ycsb.RdmaKvClient.TCP_BIND_HOST_DEFAULT;
import static io.rdmakv.ycsb.RdmaKvClient.TCP_BIND_HOST_PROPERTY;
import static io.rdmakv.ycsb.RdmaKvClient.TIMEOUT_DEFAULT_MS;
import static io.rdmakv.ycsb.RdmaKvClient.TIMEOUT_PROPERTY;
import static io.rdmakv.ycsb.RdmaKvClient.TLS_CA_PROPERTY;
import static io.rdmakv.ycsb.RdmaKvClient.TLS_CERT_PROPERTY;
import static io.rdmakv.ycsb.RdmaKvClient.TLS_KEY_PROPERTY;
import static io.rdmakv.ycsb.RdmaKvClient.TOKEN_PROPERTY;
import static io.rdmakv.ycsb.RdmaKvClient.TRANSPORT_DEFAULT;
import static io.rdmakv.ycsb.RdmaKvClient.TRANSPORT_PROPERTY;
import static io.rdmakv.ycsb.RdmaKvClient.UPDATE_RETRIES_DEFAULT;
import static io.rdmakv.ycsb.RdmaKvClient.UPDATE_RETRIES_PROPERTY;
import static io.rdmakv.ycsb.RdmaKvClient.WAIT_DEFAULT;
import static io.rdmakv.ycsb.RdmaKvClient.WAIT_PROPERTY;

/**
 * The binding's settings, read from YCSB's properties (see {@link RdmaKvClient} for the names).
 *
 * @param client        how to connect
 * @param updateRetries how many version conflicts one update may meet before it fails
 * @param printStats    whether the last instance prints the client's counters at cleanup
 */
record BindingConfig(KvClientConfig client, int updateRetries, boolean printStats)
{
    static BindingConfig from(final Properties p) throws DBException
    {
        final String hosts = p.getProperty(HOSTS_PROPERTY);
        final String cluster = p.getProperty(CLUSTER_PROPERTY);
        if (hosts != null && cluster != null)
        {
            throw new DBException("set " + HOSTS_PROPERTY + " or " + CLUSTER_PROPERTY + ", not both");
        }
        KvClientConfig client;
        try
        {
            final List<InetSocketAddress> seeds = cluster != null ? seedsOf(Path.of(cluster)) :
                KvClientConfig.parseHosts(hosts != null ? hosts : HOSTS_DEFAULT);
            client = new KvClientConfig(
                seeds,
                p.getProperty(TOKEN_PROPERTY, ""),
                p.getProperty(TRANSPORT_PROPERTY, TRANSPORT_DEFAULT),
                p.getProperty(TCP_BIND_HOST_PROPERTY, TCP_BIND_HOST_DEFAULT),
                Duration.ofMillis(positive(p, TIMEOUT_PROPERTY, TIMEOUT_DEFAULT_MS)),
                Duration.ofMillis(positive(p, CONNECT_TIMEOUT_PROPERTY, TIMEOUT_DEFAULT_MS)),
                1).withTls(tls(p)).withCacheEntries(cacheEntries(p)).withDevice(p.getProperty(DEVICE_PROPERTY));
        }
        catch (final IllegalArgumentException e)
        {
            throw new DBException("rdmakv: " + e.getMessage(), e);
        }
        try
        {
            client = client.withConnectionSetup(ConnectionSetup.parse(p.getProperty(CM_PROPERTY, CM_DEFAULT).trim()));
        }
        catch (final IllegalArgumentException e)
        {
            throw new DBException(CM_PROPERTY + ": " + e.getMessage(), e);
        }
        try
        {
            client = client.withWaitStrategy(WaitStrategy.parse(p.getProperty(WAIT_PROPERTY, WAIT_DEFAULT)));
        }
        catch (final IllegalArgumentException e)
        {
            throw new DBException(WAIT_PROPERTY + ": " + e.getMessage(), e);
        }
        final int retries = (int)Math.min(Integer.MAX_VALUE,
            positive(p, UPDATE_RETRIES_PROPERTY, UPDATE_RETRIES_DEFAULT));
        final String print = p.getProperty(PRINT_STATS_PROPERTY, "true").trim();
        if (!print.equals("true") && !print.equals("false"))
        {
            throw new DBException(PRINT_STATS_PROPERTY + " must be true or false, not '" + print + "'");
        }
        return new BindingConfig(client, retries, Boolean.parseBoolean(print));
    }

    /** TLS from rdmakv.tls.ca, rdmakv.tls.cert and rdmakv.tls.key, or null when no CA is set. */
    private static ClientTls tls(final Properties p)
    {
        final String ca = p.getProperty(TLS_CA_PROPERTY);
        final String cert = p.getProperty(TLS_CERT_PROPERTY);
        final String key = p.getProperty(TLS_KEY_PROPERTY);
        if ((cert == null) != (key == null))
        {
            throw new IllegalArgumentException(TLS_CERT_PROPERTY + " and " + TLS_KEY_PROPERTY + " go together");
        }
        if (ca == null)
        {
            if (cert != null)
            {
                throw new IllegalArgumentException(TLS_CERT_PROPERTY + " needs " + TLS_CA_PROPERTY);
            }
            return null;
        }
        return cert == null ? ClientTls.trusting(Path.of(ca)) :
            ClientTls.withCertificate(Path.of(ca), Path.of(cert), Path.of(key));
    }

    private static List<InetSocketAddress> seedsOf(final Path file) throws DBException
    {
        final ClusterMap map;
        try
        {
            map = ClusterMapJson.parse(Files.readAllBytes(file));
        }
        catch (final IOException e)
        {
            throw new DBException(CLUSTER_PROPERTY + ": cannot read " + file + ": " + e.getMessage(), e);
        }
        catch (final IllegalArgumentException e)
        {
            throw new DBException(CLUSTER_PROPERTY + ": " + file + ": " + e.getMessage(), e);
        }
        final List<InetSocketAddress> seeds = new ArrayList<>();
        for (final ClusterNode node : map.nodes())
        {
            seeds.add(InetSocketAddress.createUnresolved(node.host(), node.port()));
        }
        return seeds;
    }

    private static int cacheEntries(final Properties p) throws DBException
    {
        final String text = p.getProperty(CACHE_ENTRIES_PROPERTY);
        if (text == null)
        {
            return KvClientConfig.DEFAULT_CACHE_ENTRIES;
        }
        try
        {
            return Integer.parseInt(text.trim());
        }
        catch (final NumberFormatException e)
        {
            throw new DBException(CACHE_ENTRIES_PROPERTY + " must be an integer (0 turns the cache off), not '" + text +
                "'", e);
        }
    }

    private static long positive(final Properties p, final String name, final long fallback) throws DBException
    {
        final String text = p.getProperty(name);
        if (text == null)
        {
            return fallback;
        }
        try
        {
            final long value = Long.parseLong(text.trim());
            if (value > 0)
            {
                return value;
            }
        }
        catch (final NumberFormatException e)
        {
            // reported below
        }
        throw new DBException(name + " must be a positive integer, not '" + text + "'");
    }
}
