package io.rdmakv.ycsb;

import io.rdmakv.client.KvClient;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.DBException;
import site.ycsb.Status;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.Vector;

/**
 * YCSB's {@link DB} over rdmakv's {@link KvClient}. A record is one value, its fields encoded by
 * {@link RecordCodec}; the key is YCSB's key in UTF-8 and the table name is ignored. Every instance in a
 * process shares one client (see {@link SharedClient}).
 *
 * <p>{@code update} merges the named fields into the stored record and writes it back with
 * {@link KvClient#putIfVersion} on the version it read, rereading on a conflict, so concurrent updates of
 * one record never lose a field. {@code insert} writes the whole record (replacing any). A missing key is
 * {@link Status#NOT_FOUND}; a failure is {@link Status#ERROR}; {@code scan} is
 * {@link Status#NOT_IMPLEMENTED}, as a hash store keeps no key order.
 */
public final class RdmaKvClient extends DB
{
    /** Seed nodes, {@code host:port[,host:port...]}; the client learns the rest from the cluster map. */
    public static final String HOSTS_PROPERTY = "rdmakv.hosts";
    public static final String HOSTS_DEFAULT = "127.0.0.1:7400";
    /** A cluster map JSON file whose nodes are the seeds; instead of {@link #HOSTS_PROPERTY}. */
    public static final String CLUSTER_PROPERTY = "rdmakv.cluster";
    /** The cluster's auth token; empty for none. */
    public static final String TOKEN_PROPERTY = "rdmakv.token";
    /** {@code auto}, {@code tcp} or {@code ibverbs}. */
    public static final String TRANSPORT_PROPERTY = "rdmakv.transport";
    public static final String TRANSPORT_DEFAULT = "auto";
    /** How queue pairs are connected: {@code auto} (as each node chose), {@code rdmacm} or {@code exchange}. */
    public static final String CM_PROPERTY = "rdmakv.cm";
    public static final String CM_DEFAULT = "auto";
    /** The RDMA device to open ({@code ibverbs}), e.g. {@code mlx5_0}; unset: the first whose port is ACTIVE. */
    public static final String DEVICE_PROPERTY = "rdmakv.device";
    /** The address the tcp transport's endpoint listens on; the nodes must reach it. */
    public static final String TCP_BIND_HOST_PROPERTY = "rdmakv.tcp.bindhost";
    public static final String TCP_BIND_HOST_DEFAULT = "127.0.0.1";
    /** How long one operation may take, in milliseconds. */
    public static final String TIMEOUT_PROPERTY = "rdmakv.timeout.ms";
    /** How long opening a session may take, in milliseconds. */
    public static final String CONNECT_TIMEOUT_PROPERTY = "rdmakv.connect.timeout.ms";
    public static final long TIMEOUT_DEFAULT_MS = 5000;
    /** How many version conflicts one update may meet before it fails with ERROR. */
    public static final String UPDATE_RETRIES_PROPERTY = "rdmakv.update.retries";
    public static final int UPDATE_RETRIES_DEFAULT = 1000;
    /** How a thread waits for its round trip: {@code busy-spin}, {@code adaptive} or {@code blocking}. */
    public static final String WAIT_PROPERTY = "rdmakv.wait";
    public static final String WAIT_DEFAULT = "adaptive";
    /** How many keys' slot addresses the client caches, shared by all threads (0: off). */
    public static final String CACHE_ENTRIES_PROPERTY = "rdmakv.cache.entries";
    /** Whether the last instance prints {@code [RDMAKV], Name, value} counter lines at cleanup. */
    public static final String PRINT_STATS_PROPERTY = "rdmakv.stats";
    /** PEM CA certificate(s) that vouch for the nodes: set, the bootstrap connections run TLS 1.3. */
    public static final String TLS_CA_PROPERTY = "rdmakv.tls.ca";
    /** PEM certificate chain of this client, for nodes that require client certificates (with the key). */
    public static final String TLS_CERT_PROPERTY = "rdmakv.tls.cert";
    /** PEM (PKCS#8) private key of {@link #TLS_CERT_PROPERTY}. */
    public static final String TLS_KEY_PROPERTY = "rdmakv.tls.key";

    /** The first size of an instance's read buffer; it grows to the longest value read. */
    static final int READ_BUFFER_LENGTH = 4096;

    private KvClient client;
    private BindingCounters counters;
    private int updateRetries;
    private boolean open;
    // One YCSB client thread per instance: the buffers below are that thread's, reused by every operation.
    private final KeyBuffer keys = new KeyBuffer();
    private final RecordReader reader = new RecordReader(new FieldNames());
    private final RecordUpdate writer = new RecordUpdate();
    private final long[] version = new long[1];
    private byte[] value = new byte[READ_BUFFER_LENGTH];
    private MemorySegment valueSegment = MemorySegment.ofArray(value);

    @Override
    public void init() throws DBException
    {
        final BindingConfig config = BindingConfig.from(getProperties());
        final SharedClient.Handle handle = SharedClient.acquire(config);
        client = handle.client();
        counters = handle.counters();
        updateRetries = config.updateRetries();
        open = true;
    }

    @Override
    public void cleanup()
    {
        if (open)
        {
            open = false;
            SharedClient.release();
        }
    }

    @Override
    public Status read(final String table, final String key, final Set<String> fields,
        final Map<String, ByteIterator> result)
    {
        counters.reads.increment();
        try
        {
            final int length = readRecord(keys.of(key));
            if (length < 0)
            {
                return Status.NOT_FOUND;
            }
            reader.parse(value, length);
            reader.readInto(fields, result);
            return Status.OK;
        }
        catch (final RuntimeException e)
        {
            return failed("read", e);
        }
    }

    @Override
    public Status scan(final String table, final String startKey, final int recordCount, final Set<String> fields,
        final Vector<HashMap<String, ByteIterator>> result)
    {
        return Status.NOT_IMPLEMENTED;
    }

    @Override
    public Status update(final String table, final String key, final Map<String, ByteIterator> values)
    {
        counters.updates.increment();
        try
        {
            final MemorySegment k = keys.of(key);
            writer.collect(values);
            for (int conflicts = 0; ; conflicts++)
            {
                final int length = readRecord(k);
                if (length < 0)
                {
                    return Status.NOT_FOUND;
                }
                reader.parse(value, length);
                if (client.putIfVersion(k, writer.merge(reader, value), version[0]))
                {
                    return Status.OK;
                }
                if (conflicts == updateRetries)
                {
                    return failed("update", new UpdateConflictException(key, conflicts + 1));
                }
                counters.updateRetries.increment();
            }
        }
        catch (final RuntimeException e)
        {
            return failed("update", e);
        }
    }

    @Override
    public Status insert(final String table, final String key, final Map<String, ByteIterator> values)
    {
        counters.inserts.increment();
        try
        {
            writer.collect(values);
            client.put(keys.of(key), writer.merge(null, null));
            return Status.OK;
        }
        catch (final RuntimeException e)
        {
            return failed("insert", e);
        }
    }

    @Override
    public Status delete(final String table, final String key)
    {
        counters.deletes.increment();
        try
        {
            return client.delete(key.getBytes(StandardCharsets.UTF_8)) ? Status.OK : Status.NOT_FOUND;
        }
        catch (final RuntimeException e)
        {
            return failed("delete", e);
        }
    }

    /** The shared client, for tests. */
    KvClient client()
    {
        return client;
    }

    /** The shared counters, for tests. */
    BindingCounters counters()
    {
        return counters;
    }

    private Status failed(final String operation, final RuntimeException e)
    {
        counters.failed(operation, e);
        return Status.ERROR;
    }

    /**
     * Reads {@code key}'s record into {@link #value} (grown when too short) and its version into {@link
     * #version}; returns its length, or -1 when the key does not exist.
     */
    private int readRecord(final MemorySegment key)
    {
        while (true)
        {
            final long length = client.getVersioned(key, valueSegment, version);
            if (length >= -1)
            {
                return (int)length;
            }
            value = new byte[(int)(-length - 2)];
            valueSegment = MemorySegment.ofArray(value);
        }
    }
}
