package io.rdmakv.client;

import io.rdmakv.client.internal.Lane;
import io.rdmakv.client.internal.LaneCounters;
import io.rdmakv.client.internal.Session;
import io.rdmakv.client.internal.SessionFailedException;
import io.rdmakv.client.internal.SessionRefusedException;
import io.rdmakv.client.internal.Status;
import io.rdmakv.client.metrics.ClientMetrics;
import io.rdmakv.client.metrics.OperationRecorder;
import io.rdmakv.client.metrics.Operations;
import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.ClusterNode;
import io.rdmakv.common.hash.KeyHash;
import io.rdmakv.common.protocol.StatsOkMessage;
import io.rdmakv.verbs.Context;
import io.rdmakv.verbs.ProtectionDomain;
import io.rdmakv.verbs.Providers;
import io.rdmakv.verbs.VerbsConfig;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The rdmakv client. Thread-safe: every thread gets its own lane (session and queue pair) to each
 * node it talks to, opened on first use, so threads never contend on the data path. GETs are RDMA
 * READs and writes are an RDMA WRITE plus a compare-and-swap; the server's CPU takes no part.
 *
 * <p>Errors are {@link KvException}s: {@link KeyTooLargeException}, {@link ValueTooLargeException},
 * {@link TableFullException}, {@link OutOfSpaceException}, {@link KvTimeoutException},
 * {@link KvConnectionException}. After a timeout or a lost connection the lane is dropped and the next
 * call opens a new one. A missing key is not an error: {@link #get} returns null.
 */
public final class KvClient implements AutoCloseable
{
    /** The version of a key that does not exist: {@code putIfVersion(key, value, ABSENT)} inserts only if absent. */
    public static final long ABSENT = 0L;

    private final KvClientConfig config;
    private final Context context;
    private final ProtectionDomain pd;
    private final ClusterMap map;
    private final InetSocketAddress[] nodeAddresses;
    private final int[] partitionToNode;
    private final int maxKeyLength;
    private final int maxValueLength;
    private final ThreadLocal<Session[]> lanes;
    private final Set<Session> sessions = ConcurrentHashMap.newKeySet();
    private final LaneCounters retired = new LaneCounters();
    private final ExecutorService async;
    private final ClientMetrics metrics;
    private volatile boolean closed;

    private KvClient(final KvClientConfig config, final Context context, final ProtectionDomain pd,
        final ClusterMap map, final int maxKeyLength, final int maxValueLength)
    {
        this.config = config;
        this.context = context;
        this.pd = pd;
        this.map = map;
        final List<ClusterNode> nodes = map.nodes();
        nodeAddresses = new InetSocketAddress[nodes.size()];
        final Map<Integer, Integer> indexById = new LinkedHashMap<>();
        for (int i = 0; i < nodes.size(); i++)
        {
            nodeAddresses[i] = new InetSocketAddress(nodes.get(i).host(), nodes.get(i).port());
            indexById.put(nodes.get(i).id(), i);
        }
        partitionToNode = new int[map.partitionCount()];
        for (int p = 0; p < partitionToNode.length; p++)
        {
            partitionToNode[p] = indexById.get(map.nodeFor(p).id());
        }
        this.maxKeyLength = maxKeyLength;
        this.maxValueLength = maxValueLength;
        lanes = ThreadLocal.withInitial(() -> new Session[nodeAddresses.length]);
        metrics = config.metrics() == null ? null : ClientMetrics.register(config.metrics(), this::stats,
            sessions::size);
        final AtomicInteger threadNumber = new AtomicInteger();
        async = Executors.newFixedThreadPool(config.asyncThreads(),
            r -> Thread.ofPlatform().daemon().name("rdmakv-async-" + threadNumber.incrementAndGet()).unstarted(r));
    }

    /**
     * Connects: opens the transport, learns the cluster map from the first seed that answers, and
     * returns a client. Sessions to the nodes open lazily.
     */
    public static KvClient connect(final KvClientConfig config)
    {
        final Context context;
        try
        {
            context = Providers.open(config.transport(), VerbsConfig.DEFAULT.withTcpBindHost(config.tcpBindHost()));
        }
        catch (final RuntimeException e)
        {
            throw new KvConnectionException("cannot open transport '" + config.transport() + "': " + e.getMessage(), e);
        }
        final ProtectionDomain pd = context.allocateProtectionDomain();
        final List<String> failures = new ArrayList<>();
        for (final InetSocketAddress seed : config.seeds())
        {
            final ClusterMap map;
            final int maxKey;
            final int maxValue;
            try (Session session = Session.open(context, pd, resolve(seed), config.authToken().getBytes(
                java.nio.charset.StandardCharsets.UTF_8), config.connectTimeout().toNanos(), config.opTimeout().toNanos()))
            {
                map = ClusterMap.fromJson(session.hello().clusterMapJson());
                maxKey = session.hello().geometry().maxKeyLength();
                maxValue = session.hello().geometry().maxValueLength();
            }
            catch (final SessionRefusedException e)
            {
                pd.close();
                context.close();
                throw new KvConnectionException(e.getMessage(), e);
            }
            catch (final RuntimeException e)
            {
                failures.add(e.getMessage());
                continue;
            }
            try
            {
                return new KvClient(config, context, pd, map, maxKey, maxValue);
            }
            catch (final RuntimeException e)
            {
                pd.close();
                context.close();
                throw e;
            }
        }
        pd.close();
        context.close();
        throw new KvConnectionException("no node answered: " + String.join("; ", failures));
    }

    private static InetSocketAddress resolve(final InetSocketAddress address)
    {
        return address.isUnresolved() ? new InetSocketAddress(address.getHostString(), address.getPort()) : address;
    }

    /** The transport this client's sessions use ({@code tcp} or {@code ibverbs}). */
    public String transport()
    {
        return context.providerName();
    }

    /** The cluster map this client routes by. */
    public ClusterMap clusterMap()
    {
        return map;
    }

    public int maxKeyLength()
    {
        return maxKeyLength;
    }

    public int maxValueLength()
    {
        return maxValueLength;
    }

    // ---- synchronous API --------------------------------------------------------------------

    /** The value of {@code key}, or null when the key does not exist. */
    public byte[] get(final byte[] key)
    {
        final Versioned v = getVersioned(key);
        return v == null ? null : v.value();
    }

    /** The value and version of {@code key}, or null when the key does not exist. */
    public Versioned getVersioned(final byte[] key)
    {
        checkKey(key.length);
        final Session session = staged(key);
        final Lane lane = session.lane();
        final OperationRecorder recorder = begin(session);
        final int rc = lane.get();
        end(recorder, Operations.GET, rc);
        if (rc == Status.OK)
        {
            final byte[] value = new byte[lane.valueLength()];
            MemorySegment.copy(lane.valueSegment(), ValueLayout.JAVA_BYTE, lane.valueOffset(), value, 0, value.length);
            return new Versioned(value, lane.version());
        }
        if (rc == Status.NOT_FOUND)
        {
            return null;
        }
        throw failure(session, rc, "get");
    }

    /**
     * Reads {@code key} into {@code dst} without allocating. Returns the value's length, or -1 when the
     * key does not exist; when the value is longer than {@code dst}, copies nothing and returns the
     * negated length minus 2 ({@code -(length + 2)}).
     */
    public long get(final MemorySegment key, final MemorySegment dst)
    {
        final int keyLength = (int)key.byteSize();
        checkKey(keyLength);
        final Session session = staged(key, keyLength);
        final Lane lane = session.lane();
        final OperationRecorder recorder = begin(session);
        final int rc = lane.get();
        end(recorder, Operations.GET, rc);
        if (rc == Status.OK)
        {
            final int length = lane.valueLength();
            if (length > dst.byteSize())
            {
                return -(length + 2L);
            }
            MemorySegment.copy(lane.valueSegment(), lane.valueOffset(), dst, 0, length);
            return length;
        }
        if (rc == Status.NOT_FOUND)
        {
            return -1;
        }
        throw failure(session, rc, "get");
    }

    /** Inserts or replaces the value of {@code key}. Returns once the write is visible to every reader. */
    public void put(final byte[] key, final byte[] value)
    {
        checkKey(key.length);
        checkValue(value.length);
        final Session session = staged(key);
        final Lane lane = session.lane();
        lane.value(value, 0, value.length);
        final OperationRecorder recorder = begin(session);
        final int rc = lane.put();
        end(recorder, Operations.PUT, rc);
        if (rc != Status.OK)
        {
            throw failure(session, rc, "put");
        }
    }

    /** Inserts or replaces, key and value in (native or heap) segments; allocates nothing. */
    public void put(final MemorySegment key, final MemorySegment value)
    {
        final int keyLength = (int)key.byteSize();
        checkKey(keyLength);
        checkValue(value.byteSize());
        final Session session = staged(key, keyLength);
        final Lane lane = session.lane();
        lane.value(value, 0, (int)value.byteSize());
        final OperationRecorder recorder = begin(session);
        final int rc = lane.put();
        end(recorder, Operations.PUT, rc);
        if (rc != Status.OK)
        {
            throw failure(session, rc, "put");
        }
    }

    /**
     * Writes {@code value} only if the key's version is still {@code expectedVersion} (from
     * {@link #getVersioned}), or, with {@link #ABSENT}, only if the key does not exist.
     *
     * @return true when written, false when the key had another version
     */
    public boolean putIfVersion(final byte[] key, final byte[] value, final long expectedVersion)
    {
        checkKey(key.length);
        checkValue(value.length);
        final Session session = staged(key);
        final Lane lane = session.lane();
        lane.value(value, 0, value.length);
        final OperationRecorder recorder = begin(session);
        final int rc = lane.compareAndSet(expectedVersion);
        end(recorder, Operations.COMPARE_AND_SET, rc);
        if (rc == Status.OK || rc == Status.CONFLICT)
        {
            return rc == Status.OK;
        }
        throw failure(session, rc, "putIfVersion");
    }

    /** Removes {@code key}; returns false when it did not exist. */
    public boolean delete(final byte[] key)
    {
        checkKey(key.length);
        final Session session = staged(key);
        final Lane lane = session.lane();
        final OperationRecorder recorder = begin(session);
        final int rc = lane.delete();
        end(recorder, Operations.DELETE, rc);
        if (rc == Status.OK || rc == Status.NOT_FOUND)
        {
            return rc == Status.OK;
        }
        throw failure(session, rc, "delete");
    }

    // ---- asynchronous API -------------------------------------------------------------------

    public CompletableFuture<byte[]> getAsync(final byte[] key)
    {
        return CompletableFuture.supplyAsync(() -> get(key), async);
    }

    public CompletableFuture<Versioned> getVersionedAsync(final byte[] key)
    {
        return CompletableFuture.supplyAsync(() -> getVersioned(key), async);
    }

    public CompletableFuture<Void> putAsync(final byte[] key, final byte[] value)
    {
        return CompletableFuture.runAsync(() -> put(key, value), async);
    }

    public CompletableFuture<Boolean> putIfVersionAsync(final byte[] key, final byte[] value, final long version)
    {
        return CompletableFuture.supplyAsync(() -> putIfVersion(key, value, version), async);
    }

    public CompletableFuture<Boolean> deleteAsync(final byte[] key)
    {
        return CompletableFuture.supplyAsync(() -> delete(key), async);
    }

    // ---- statistics -------------------------------------------------------------------------

    /** The client's counters, summed over every lane it has had. */
    public ClientStats stats()
    {
        final LaneCounters total = new LaneCounters();
        synchronized (retired)
        {
            retired.addTo(total);
        }
        for (final Session s : sessions)
        {
            s.counters().addTo(total);
        }
        return new ClientStats(total.gets(), total.puts(), total.deletes(), total.compareAndSets(), total.notFound(),
            total.conflicts(), total.errors(), total.roundTrips(), total.casRetries(), total.validationRetries(),
            total.lockRetries(), total.controlMessages(), total.cacheHits(), total.droppedFrees());
    }

    /** Asks every node for its statistics (STATS over the control plane), keyed by node id. */
    public Map<Integer, StatsOkMessage> nodeStats()
    {
        final Map<Integer, StatsOkMessage> result = new LinkedHashMap<>();
        for (int i = 0; i < nodeAddresses.length; i++)
        {
            final Session session = laneFor(i);
            final StatsOkMessage stats = session.stats();
            if (stats == null)
            {
                throw failure(session, Status.CONNECTION_LOST, "stats");
            }
            result.put(map.nodes().get(i).id(), stats);
        }
        return result;
    }

    // ---- routing and lanes ------------------------------------------------------------------

    /** Hashes the key once, routes it to its node's lane and stages it there; returns the lane's session. */
    private Session staged(final byte[] key)
    {
        final long hash = KeyHash.hash(key, 0, key.length);
        final Session session = laneFor(partitionToNode[map.partitionOf(hash)]);
        session.lane().key(key, 0, key.length, hash);
        return session;
    }

    private Session staged(final MemorySegment key, final int length)
    {
        final long hash = KeyHash.hash(key, 0, length);
        final Session session = laneFor(partitionToNode[map.partitionOf(hash)]);
        session.lane().key(key, 0, length, hash);
        return session;
    }

    private Session laneFor(final int node)
    {
        final Session[] mine = lanes.get();
        final Session current = mine[node];
        if (current != null && !current.isBroken())
        {
            return current;
        }
        if (current != null)
        {
            retire(current);
            mine[node] = null;
        }
        if (closed)
        {
            throw new KvConnectionException("client is closed");
        }
        try
        {
            final Session session = Session.open(context, pd, nodeAddresses[node],
                config.authToken().getBytes(java.nio.charset.StandardCharsets.UTF_8), config.connectTimeout().toNanos(),
                config.opTimeout().toNanos());
            sessions.add(session);
            mine[node] = session;
            return session;
        }
        catch (final SessionRefusedException | SessionFailedException e)
        {
            if (metrics != null)
            {
                metrics.connectFailed();
            }
            throw new KvConnectionException(e.getMessage(), e);
        }
    }

    /** Starts timing an operation on {@code session} when metrics are on; null (and no cost) when off. */
    private OperationRecorder begin(final Session session)
    {
        return metrics == null ? null : metrics.recorder().begin(session.counters());
    }

    private static void end(final OperationRecorder recorder, final int op, final int status)
    {
        if (recorder != null)
        {
            recorder.end(op, status);
        }
    }

    private void retire(final Session session)
    {
        if (sessions.remove(session))
        {
            synchronized (retired)
            {
                session.counters().addTo(retired);
            }
            session.close();
        }
    }

    private KvException failure(final Session session, final int status, final String operation)
    {
        final String node = session.address().getHostString() + ":" + session.address().getPort();
        final KvException e = switch (status)
        {
            case Status.TABLE_FULL -> new TableFullException(operation + ": the index of node " + node +
                " has no free slot for this key");
            case Status.OUT_OF_SPACE -> new OutOfSpaceException(operation + ": node " + node +
                " has no data space left");
            case Status.TIMEOUT -> new KvTimeoutException(operation + ": node " + node + " did not answer within " +
                config.opTimeout().toMillis() + " ms (waiting for " + session.timedOutWaitingFor() + ")");
            case Status.RETRIES_EXHAUSTED -> new KvException(operation + ": gave up after " + Lane.maxAttempts() +
                " attempts on a heavily contended key at node " + node);
            case Status.CORRUPTED -> new CorruptedBlockException(operation + ": a block of this key's bucket at node " +
                node + " fails its checksum and did not change: the stored data is damaged; nothing was returned");
            default ->
            {
                session.pollNotices();
                yield new KvConnectionException(operation + ": " + (session.shutdownNoticed() ?
                    "node " + node + " is shutting down" : "lost the connection to node " + node) + " (" +
                    Status.name(status) + ")");
            }
        };
        if (session.isBroken())
        {
            final Session[] mine = lanes.get();
            for (int i = 0; i < mine.length; i++)
            {
                if (mine[i] == session)
                {
                    mine[i] = null;
                }
            }
            retire(session);
        }
        return e;
    }

    private void checkKey(final int length)
    {
        if (length > maxKeyLength)
        {
            throw new KeyTooLargeException("key of " + length + " bytes is over the limit of " + maxKeyLength);
        }
    }

    private void checkValue(final long length)
    {
        if (length > maxValueLength)
        {
            throw new ValueTooLargeException("value of " + length + " bytes is over the limit of " + maxValueLength);
        }
    }

    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        async.shutdownNow();
        if (metrics != null)
        {
            metrics.unregister();
        }
        for (final Session s : sessions)
        {
            retire(s);
        }
        pd.close();
        context.close();
    }
}
