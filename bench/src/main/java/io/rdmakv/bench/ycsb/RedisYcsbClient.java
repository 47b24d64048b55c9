package io.rdmakv.bench.ycsb;

import io.rdmakv.ycsb.RunStatsFile;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import site.ycsb.ByteArrayByteIterator;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.DBException;
import site.ycsb.Status;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.Vector;
import java.util.concurrent.atomic.LongAdder;

/**
 * The Redis side of {@code bench/ycsb.sh --redis}: YCSB's {@link DB} over one Jedis connection per YCSB
 * thread. A record is a Redis hash (field to value, as YCSB's own Redis binding stores it, without that
 * binding's sorted-set index, which only its scans need): read is {@code HGETALL} (or {@code HMGET} of the
 * named fields), update and insert {@code HSET}, delete {@code DEL}; each is one command, one round trip. A
 * missing key is {@link Status#NOT_FOUND}; a failure is {@link Status#ERROR}, the first of each kind
 * logged; {@code scan} is {@link Status#NOT_IMPLEMENTED}, as for rdmakv. With the system property
 * {@value RunStatsFile#PROPERTY} set, the last cleanup writes the same run statistics as rdmakv's binding
 * ({@link RedisRunStats}).
 */
public final class RedisYcsbClient extends DB
{
    public static final String HOST_PROPERTY = "redis.host";
    public static final String HOST_DEFAULT = "127.0.0.1";
    public static final String PORT_PROPERTY = "redis.port";
    public static final int PORT_DEFAULT = 6379;
    /** Socket and connect timeout, in milliseconds. */
    public static final String TIMEOUT_PROPERTY = "redis.timeout.ms";
    public static final int TIMEOUT_DEFAULT_MS = 5000;

    private Jedis jedis;

    @Override
    public void init() throws DBException
    {
        final String host = getProperties().getProperty(HOST_PROPERTY, HOST_DEFAULT);
        final int port = positive(PORT_PROPERTY, PORT_DEFAULT);
        final int timeout = positive(TIMEOUT_PROPERTY, TIMEOUT_DEFAULT_MS);
        Jedis connection = null;
        try
        {
            connection = new Jedis(new HostAndPort(host, port),
                DefaultJedisClientConfig.builder().timeoutMillis(timeout).build());
            connection.ping();
        }
        catch (final RuntimeException e)
        {
            close(connection);
            throw new DBException("redis: cannot connect to " + host + ":" + port + ": " + e.getMessage(), e);
        }
        jedis = connection;
        RedisRunStats.opened();
    }

    /** Closes the connection; one the server dropped closes without complaint (its failures were counted). */
    @Override
    public void cleanup()
    {
        if (jedis != null)
        {
            try
            {
                close(jedis);
            }
            finally
            {
                jedis = null;
                RedisRunStats.closed();
            }
        }
    }

    private static void close(final Jedis connection)
    {
        if (connection == null)
        {
            return;
        }
        try
        {
            connection.close();
        }
        catch (final RuntimeException e)
        {
            // a broken connection: its socket is closed all the same (Jedis disconnects in a finally)
        }
    }

    @Override
    public Status read(final String table, final String key, final Set<String> fields,
        final Map<String, ByteIterator> result)
    {
        try
        {
            RedisRunStats.READ.increment();
            final byte[] k = bytes(key);
            if (fields == null)
            {
                final Map<byte[], byte[]> all = jedis.hgetAll(k);
                for (final Map.Entry<byte[], byte[]> field : all.entrySet())
                {
                    result.put(new String(field.getKey(), StandardCharsets.UTF_8),
                        new ByteArrayByteIterator(field.getValue()));
                }
                return all.isEmpty() ? Status.NOT_FOUND : Status.OK;
            }
            final String[] names = fields.toArray(new String[0]);
            final byte[][] binaryNames = new byte[names.length][];
            for (int i = 0; i < names.length; i++)
            {
                binaryNames[i] = bytes(names[i]);
            }
            final List<byte[]> values = jedis.hmget(k, binaryNames);
            boolean any = false;
            for (int i = 0; i < names.length; i++)
            {
                if (values.get(i) != null)
                {
                    result.put(names[i], new ByteArrayByteIterator(values.get(i)));
                    any = true;
                }
            }
            return any ? Status.OK : Status.NOT_FOUND;
        }
        catch (final RuntimeException e)
        {
            return RedisRunStats.failed("read", e);
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
        return write(RedisRunStats.UPDATE, "update", key, values);
    }

    @Override
    public Status insert(final String table, final String key, final Map<String, ByteIterator> values)
    {
        return write(RedisRunStats.INSERT, "insert", key, values);
    }

    @Override
    public Status delete(final String table, final String key)
    {
        try
        {
            RedisRunStats.DELETE.increment();
            return jedis.del(bytes(key)) == 1 ? Status.OK : Status.NOT_FOUND;
        }
        catch (final RuntimeException e)
        {
            return RedisRunStats.failed("delete", e);
        }
    }

    private Status write(final LongAdder commands, final String operation,
        final String key, final Map<String, ByteIterator> values)
    {
        try
        {
            commands.increment();
            final Map<byte[], byte[]> hash = HashMap.newHashMap(values.size());
            for (final Map.Entry<String, ByteIterator> value : values.entrySet())
            {
                hash.put(bytes(value.getKey()), value.getValue().toArray());
            }
            jedis.hset(bytes(key), hash);
            return Status.OK;
        }
        catch (final RuntimeException e)
        {
            return RedisRunStats.failed(operation, e);
        }
    }

    private int positive(final String name, final int fallback) throws DBException
    {
        final String text = getProperties().getProperty(name);
        if (text == null)
        {
            return fallback;
        }
        try
        {
            final int value = Integer.parseInt(text.trim());
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

    private static byte[] bytes(final String s)
    {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
