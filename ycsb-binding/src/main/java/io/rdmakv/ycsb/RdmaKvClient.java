package io.rdmakv.ycsb;

import io.rdmakv.client.KvClient;
import io.rdmakv.client.Versioned;
import site.ycsb.ByteArrayByteIterator;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.DBException;
import site.ycsb.Status;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.LinkedHashMap;
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
    /** How many keys' slot addresses the client caches, shared by all threads (0: off). */
    public static final String CACHE_ENTRIES_PROPERTY = "rdmakv.cache.entries";
    /** Whether the last instance prints {@code [RDMAKV], Name, value} counter lines at cleanup. */
    public static final String PRINT_STATS_PROPERTY = "rdmakv.stats";

    private KvClient client;
    private BindingCounters counters;
    private int updateRetries;
    private boolean open;

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
            final byte[] value = client.get(bytes(key));
            if (value == null)
            {
                return Status.NOT_FOUND;
            }
            for (final Map.Entry<String, byte[]> field : RecordCodec.decode(value).entrySet())
            {
                if (fields == null || fields.contains(field.getKey()))
                {
                    result.put(field.getKey(), new ByteArrayByteIterator(field.getValue()));
                }
            }
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
            final byte[] k = bytes(key);
            final Map<String, byte[]> changes = bytes(values);
            for (int conflicts = 0; ; conflicts++)
            {
                final Versioned current = client.getVersioned(k);
                if (current == null)
                {
                    return Status.NOT_FOUND;
                }
                final Map<String, byte[]> record = RecordCodec.decode(current.value());
                record.putAll(changes);
                if (client.putIfVersion(k, RecordCodec.encode(record), current.version()))
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
            client.put(bytes(key), RecordCodec.encode(bytes(values)));
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
            return client.delete(bytes(key)) ? Status.OK : Status.NOT_FOUND;
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

    private static byte[] bytes(final String key)
    {
        return key.getBytes(StandardCharsets.UTF_8);
    }

    private static Map<String, byte[]> bytes(final Map<String, ByteIterator> values)
    {
        final Map<String, byte[]> result = LinkedHashMap.newLinkedHashMap(values.size());
        for (final Map.Entry<String, ByteIterator> value : values.entrySet())
        {
            result.put(value.getKey(), value.getValue().toArray());
        }
        return result;
    }
}
