package io.rdmakv.client;

import io.rdmakv.client.internal.lane.ClientCounter;
import io.rdmakv.client.internal.lane.LaneCounters;
import io.rdmakv.client.internal.op.Lane;
import io.rdmakv.client.internal.op.LaneResult;
import io.rdmakv.client.internal.session.ClientJanitor;
import io.rdmakv.client.internal.session.GroupLostException;
import io.rdmakv.client.internal.session.JanitorDuties;
import io.rdmakv.client.internal.session.Router;
import io.rdmakv.client.internal.session.RouterClosedException;
import io.rdmakv.client.internal.session.Session;
import io.rdmakv.client.internal.session.StaleMapException;
import io.rdmakv.peer.SessionFailedException;
import io.rdmakv.peer.SessionRefusedException;
import io.rdmakv.peer.Status;
import io.rdmakv.client.metrics.ClientMetrics;
import io.rdmakv.client.metrics.OperationRecorder;
import io.rdmakv.client.metrics.Operations;
import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.hash.KeyHash;
import io.rdmakv.common.layout.SlotWord;
import io.rdmakv.common.protocol.ScrubOkMessage;
import io.rdmakv.common.protocol.StatsOkMessage;
import io.rdmakv.verbs.Context;
import io.rdmakv.verbs.ProtectionDomain;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
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
 * {@link KvConnectionException}, {@link CorruptedBlockException} (GET of a damaged key; PUT/DELETE repair it). After a timeout or a lost connection the lane is dropped and the next
 * call opens a new one. A missing key is not an error: {@link #get} returns null.
 */
public final class KvClient implements AutoCloseable
{
    /** The version of a key that does not exist: {@code putIfVersion(key, value, ABSENT)} inserts only if absent. */
    public static final long ABSENT = 0L;
    /** {@link #writePath}: the client CASes the node's index with RDMA atomics. */
    public static final String ONE_SIDED = "one-sided";
    /** {@link #writePath}: the client sends each index CAS to the node (SLOT_CAS); blocks still go one-sided. */
    public static final String NODE_ASSISTED = "node-assisted";

    /** Operation names in error messages, by {@link Operations} number. */
    private static final String[] API_NAMES = {"get", "put", "delete", "putIfVersion"};

    private final Context context;
    private final ProtectionDomain pd;
    private final MapFollower follower;
    private final Failures failures;
    private final int maxKeyLength;
    private final int maxValueLength;
    private final ExecutorService async;
    private final AsyncBatches asyncBatches;
    private final ClientMetrics metrics;
    private final NodeQueries queries;
    private final ClientJanitor janitor;
    private volatile boolean closed;

    KvClient(final KvClientConfig config, final Context context, final ProtectionDomain pd, final Router router,
        final Router.SessionOpener opener, final int maxKeyLength, final int maxValueLength)
    {
        this.context = context;
        this.pd = pd;
        this.follower = new MapFollower(router, opener, config.seeds(), config.opTimeout().toNanos());
        this.failures = new Failures(config.opTimeout(), Lane.maxAttempts());
        this.maxKeyLength = maxKeyLength;
        this.maxValueLength = maxValueLength;
        metrics = config.metrics() == null ? null : ClientMetrics.register(config.metrics(), () -> follower.router().totals(),
            () -> follower.router().openSessions());
        queries = new NodeQueries(follower::router, this::nodeSession, this::failed);
        final AtomicInteger threadNumber = new AtomicInteger();
        async = Executors.newFixedThreadPool(config.asyncThreads(),
            r -> Thread.ofPlatform().daemon().name("rdmakv-async-" + threadNumber.incrementAndGet()).unstarted(r));
        asyncBatches = new AsyncBatches(this, config.asyncThreads());
        janitor = new ClientJanitor(follower::router, ClientJanitor.TICK_NANOS,
            JanitorDuties.all(follower::router, follower::follow)).start();
    }

    /**
     * Connects: opens the transport, learns the cluster map from the first seed that answers, and
     * returns a client. Sessions to the nodes open lazily.
     */
    public static KvClient connect(final KvClientConfig config)
    {
        return Connector.connect(config);
    }

    /** The transport this client's sessions use ({@code tcp} or {@code ibverbs}). */
    public String transport()
    {
        return context.providerName();
    }

    /** The cluster map this client routes by. */
    public ClusterMap clusterMap()
    {
        return follower.router().map();
    }

    /**
     * How many times this client READ a node's map area because the node's heartbeat answers said it applied a
     * newer map (once per newer epoch per node), and how many of the maps read it ignored (older than the node
     * claimed, or another cluster's): a pair {@code [reads, ignored]}.
     */
    public long[] mapAreaReads()
    {
        return new long[] {follower.mapAreaReads(), follower.mapsIgnored()};
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
        final MemorySegment k = MemorySegment.ofArray(key);
        final LaneResult result = execute(k, key.length, null, Operations.GET, 0L);
        if (result.status() == Status.NOT_FOUND)
        {
            return null;
        }
        final byte[] value = new byte[result.valueLength()];
        MemorySegment.copy(result.valueSegment(), ValueLayout.JAVA_BYTE, result.valueOffset(), value, 0, value.length);
        return new Versioned(value, result.version());
    }

    /**
     * Reads {@code key} into {@code dst} without allocating. Returns the value's length, or -1 when the
     * key does not exist; when the value is longer than {@code dst}, copies nothing and returns the
     * negated length minus 2 ({@code -(length + 2)}).
     */
    public long get(final MemorySegment key, final MemorySegment dst)
    {
        final LaneResult result = execute(key, key.byteSize(), null, Operations.GET, 0L);
        if (result.status() == Status.NOT_FOUND)
        {
            return -1;
        }
        final int length = result.valueLength();
        if (length > dst.byteSize())
        {
            return -(length + 2L);
        }
        MemorySegment.copy(result.valueSegment(), result.valueOffset(), dst, 0, length);
        return length;
    }

    /**
     * {@link #get(MemorySegment, MemorySegment)} that also stores the value's version (for {@link
     * #putIfVersion(MemorySegment, MemorySegment, long)}) in {@code version[0]} when the key exists, even when
     * the value does not fit {@code dst}. Allocates nothing.
     */
    public long getVersioned(final MemorySegment key, final MemorySegment dst, final long[] version)
    {
        final LaneResult result = execute(key, key.byteSize(), null, Operations.GET, 0L);
        if (result.status() == Status.NOT_FOUND)
        {
            return -1;
        }
        version[0] = result.version();
        final int length = result.valueLength();
        if (length > dst.byteSize())
        {
            return -(length + 2L);
        }
        MemorySegment.copy(result.valueSegment(), result.valueOffset(), dst, 0, length);
        return length;
    }

    /** Inserts or replaces the value of {@code key}. Returns once the write is visible to every reader. */
    public void put(final byte[] key, final byte[] value)
    {
        put(MemorySegment.ofArray(key), MemorySegment.ofArray(value));
    }

    /** Inserts or replaces, key and value in (native or heap) segments; allocates nothing. */
    public void put(final MemorySegment key, final MemorySegment value)
    {
        execute(key, key.byteSize(), value, Operations.PUT, 0L);
    }

    /**
     * Writes {@code value} only if the key's version is still {@code expectedVersion} (from
     * {@link #getVersioned}), or, with {@link #ABSENT}, only if the key does not exist.
     *
     * <p>A version names the write that stored the value, not a count of writes. It stays the same when the key's
     * partition moves to another replica group (docs/growth.md §15.1): a version read before a move still matches
     * after it while nobody wrote the key, at the cost of one more READ for the first conditional write after the
     * move.
     *
     * @return true when written, false when the key had another version
     */
    public boolean putIfVersion(final byte[] key, final byte[] value, final long expectedVersion)
    {
        return execute(MemorySegment.ofArray(key), key.length, MemorySegment.ofArray(value), Operations.COMPARE_AND_SET,
            expectedVersion).status() == Status.OK;
    }

    /** {@link #putIfVersion(byte[], byte[], long)}, key and value in (native or heap) segments; allocates nothing. */
    public boolean putIfVersion(final MemorySegment key, final MemorySegment value, final long expectedVersion)
    {
        return execute(key, key.byteSize(), value, Operations.COMPARE_AND_SET, expectedVersion).status() == Status.OK;
    }

    /** Removes {@code key}; returns false when it did not exist. */
    public boolean delete(final byte[] key)
    {
        return execute(MemorySegment.ofArray(key), key.length, null, Operations.DELETE, 0L).status() == Status.OK;
    }

    // ---- batches ----------------------------------------------------------------------------

    /**
     * The values of {@code keys}, in the collection's order (null for a key that does not exist), read
     * with few round trips: the keys of each node go {@link Lane#batchSize()} at a time in two doorbells
     * (their cached slots and blocks, or their bucket groups; then the blocks the groups point to); a key
     * the batch cannot settle (a stale cache entry, a fingerprint shared with another key, a value over
     * 4 KiB, a slow read) is read on its own. Every key is checked before anything is read.
     *
     * @throws KeyTooLargeException when a key is too long (nothing is read)
     * @throws NullPointerException when a key is null
     */
    public List<byte[]> getAll(final Collection<byte[]> keys)
    {
        return Batches.getAll(this, keys);
    }

    /**
     * Inserts or replaces every entry of {@code entries}, with few round trips: the entries of each node go
     * {@link Lane#batchSize()} at a time in two doorbells when their slots are cached (WRITE every block and
     * confirm the slots; then every CAS; one when the entries are fresh), three when not (WRITE and READ the
     * groups; READ the candidate blocks; CAS); an entry the batch cannot settle (a key to insert, a lost
     * race, a stale cache entry, a block over 4 KiB) is then written as a single PUT. Every key and value is
     * checked before anything is written, so a bad entry fails the call with nothing written. Each entry is
     * linearizable on its own, as a single PUT; the call is not atomic across keys: a reader may see some
     * entries written and not others, and a failure midway leaves some entries written.
     *
     * @throws KeyTooLargeException   when a key is too long (nothing is written)
     * @throws ValueTooLargeException when a value is too long (nothing is written)
     * @throws NullPointerException   when a key or value is null
     */
    public void putAll(final Map<byte[], byte[]> entries)
    {
        Batches.putAll(this, entries);
    }

    /**
     * This thread's session with node {@code node} (an index into {@code router}'s map), for a batch (opened if
     * needed). A new session that brought a newer map goes to the router of that map ({@link MapFollower#adopt}), and
     * the batch fails with {@link KvConnectionException} (a replicated batch then runs key by key, on the new map).
     */
    Session batchSession(final Router router, final int node)
    {
        checkOpen();
        try
        {
            return router.session(node);
        }
        catch (final StaleMapException e)
        {
            follower.adopt(router, e);
            throw new KvConnectionException("the cluster map changed under the batch: " + e.getMessage(), e);
        }
        catch (final RouterClosedException e)
        {
            checkOpen();
            throw new KvConnectionException("the cluster map changed under the batch: " + e.getMessage(), e);
        }
        catch (final SessionRefusedException | SessionFailedException e)
        {
            throw connectFailed(e);
        }
    }

    Router router()
    {
        return follower.router();
    }

    /** A batch's lane failure as the exception a single operation would throw. */
    KvException batchFailed(final Session session, final int status, final String operation)
    {
        return failed(session, status, operation);
    }

    /** This thread's recorder begun on {@code session}'s lane for a batch, or null when metrics are off. */
    OperationRecorder batchRecorder(final Session session)
    {
        return metrics == null ? null : metrics.recorder().begin(session.counters());
    }

    // ---- asynchronous API -------------------------------------------------------------------

    /**
     * The value of {@code key}, later (null when absent). GETs in flight are read together: the async
     * threads take what is waiting, up to a lane's batch, and read it with {@link #getAll} (two doorbells
     * per node for the lot), so a thread that keeps many GETs outstanding gets them in few round trips.
     */
    public CompletableFuture<byte[]> getAsync(final byte[] key)
    {
        return asyncBatches.get(key);
    }

    public CompletableFuture<Versioned> getVersionedAsync(final byte[] key)
    {
        return CompletableFuture.supplyAsync(() -> getVersioned(key), async);
    }

    /**
     * Inserts or replaces, later. PUTs in flight are written together: the async threads take what is waiting
     * (GETs and PUTs, up to a lane's batch) and write its PUTs with one {@link #putAll} per node, so a thread
     * that keeps many PUTs outstanding gets them in few round trips. A failure fails the PUTs of its node in
     * that batch (the write may or may not have happened, as for {@link #put}); a bad key or value fails only
     * its own future.
     */
    public CompletableFuture<Void> putAsync(final byte[] key, final byte[] value)
    {
        return asyncBatches.put(key, value);
    }

    public CompletableFuture<Boolean> putIfVersionAsync(final byte[] key, final byte[] value, final long version)
    {
        return CompletableFuture.supplyAsync(() -> putIfVersion(key, value, version), async);
    }

    /** Removes {@code key}, later, on one of the async threads (a DELETE is not batched). */
    public CompletableFuture<Boolean> deleteAsync(final byte[] key)
    {
        return CompletableFuture.supplyAsync(() -> delete(key), async);
    }

    // ---- statistics -------------------------------------------------------------------------

    /** The client's counters, summed over every lane it has had. */
    public ClientStats stats()
    {
        final LaneCounters t = follower.router().totals();
        return new ClientStats(t.get(ClientCounter.GETS), t.get(ClientCounter.PUTS), t.get(ClientCounter.DELETES),
            t.get(ClientCounter.COMPARE_AND_SETS), t.get(ClientCounter.NOT_FOUND), t.get(ClientCounter.CONFLICTS),
            t.get(ClientCounter.ERRORS), t.get(ClientCounter.ROUND_TRIPS), t.get(ClientCounter.CAS_RETRIES),
            t.get(ClientCounter.VALIDATION_RETRIES), t.get(ClientCounter.LOCK_RETRIES),
            t.get(ClientCounter.CONTROL_MESSAGES), t.get(ClientCounter.CACHE_HITS), t.get(ClientCounter.DROPPED_FREES),
            t.get(ClientCounter.CACHE_MISSES), t.get(ClientCounter.GET_ROUND_TRIPS),
            t.get(ClientCounter.PUT_ROUND_TRIPS), t.get(ClientCounter.DELETE_ROUND_TRIPS),
            t.get(ClientCounter.COMPARE_AND_SET_ROUND_TRIPS), t.get(ClientCounter.FULL_WAITS));
    }

    /**
     * How this client's writes to node {@code nodeId} change its index: {@link #ONE_SIDED} (its own RDMA
     * compare-and-swap) or {@link #NODE_ASSISTED} (each CAS sent to the node, whose device has no remote atomics or
     * was told {@code --write-path node-assisted}), as the node said when the session opened.
     *
     * @throws KvConnectionException when the node cannot be reached
     * @throws IllegalArgumentException when the cluster map has no node {@code nodeId}
     */
    public String writePath(final int nodeId)
    {
        return queries.writePath(nodeId);
    }

    /** Asks every node for its statistics (STATS over the control plane), keyed by node id. */
    public Map<Integer, StatsOkMessage> nodeStats()
    {
        return queries.nodeStats();
    }

    /**
     * Asks one node for its statistics.
     *
     * @throws KvConnectionException when the node cannot be reached (other nodes are not asked)
     * @throws IllegalArgumentException when the cluster map has no node {@code nodeId}
     */
    public StatsOkMessage nodeStats(final int nodeId)
    {
        return queries.nodeStats(nodeId);
    }

    /**
     * Has node {@code nodeId}, a replica group's primary, scrub its backups now (compare their index words and
     * blocks with its own and mend what differs; {@code kvctl scrub}) and returns what the pass did, waiting up to
     * {@code timeout}. Throws {@link KvException} with the node's reason when it is no primary with backups or the
     * pass failed.
     */
    public ScrubOkMessage scrub(final int nodeId, final java.time.Duration timeout)
    {
        return queries.scrub(nodeId, timeout);
    }

    /**
     * Hands the operator's move request ({@code json}: {@code {"moves": [{"partitions": [..], "target": g, "groups":
     * n}], "cancel": [ids]}}) to a node of the cluster ({@code kvctl rebalance}), which writes it to the cluster's
     * {@code rebalance/request} for the coordinator, or with {@code dryRun} writes nothing and says whether the
     * coordinator could act on it now. Asks the first node that answers, waiting up to {@code timeout}.
     *
     * @throws KvException with the node's reason when it refused the request (malformed, a static cluster, ZooKeeper)
     * @throws IllegalArgumentException when {@code json} is empty or longer than one message carries
     */
    public io.rdmakv.common.protocol.RebalanceOkMessage rebalance(final String json, final boolean dryRun,
        final java.time.Duration timeout)
    {
        return queries.rebalance(dryRun, json, timeout);
    }

    /** Every node's damaged slots (DAMAGE_SCAN): the first {@code limit} and how many; PUT/DELETE repairs them. */
    public DamageReport damagedSlots(final int limit)
    {
        return queries.damagedSlots(limit);
    }

    // ---- the one operation template ---------------------------------------------------------

    /**
     * Runs operation {@code op} on the key's lane: checks the key (and value), hashes the key once, routes it
     * to this thread's lane to its node (its primary), stages it there, sets the lane's replica chain for a
     * write, runs it, gives the lane back ({@link Session#exit()}; the janitor never touches what a GET left in
     * the lane's read buffer), records it (when metrics are on), and returns its outcome ({@link Status#OK},
     * {@link Status#NOT_FOUND} or {@link Status#CONFLICT}, in the result of the lane it ran on, which also holds
     * what it read or wrote: read it before the thread's next operation) or
     * throws its failure.
     *
     * <p>In a replicated cluster, an operation that cannot go on (its node unreachable or fenced, a newer map
     * out, its group sealed for a copy) follows the map ({@link MapFollower}) and runs again, within the
     * operation timeout. A compare-and-set whose lane failed is not run again: it may have happened.
     */
    private LaneResult execute(final MemorySegment key, final long keyLength, final MemorySegment value, final int op,
        final long expectedVersion)
    {
        if (keyLength > maxKeyLength)
        {
            throw Failures.keyTooLarge(keyLength, maxKeyLength);
        }
        if (value != null && value.byteSize() > maxValueLength)
        {
            throw Failures.valueTooLarge(value.byteSize(), maxValueLength);
        }
        final long hash = KeyHash.hash(key, 0, (int)keyLength);
        final boolean write = op != Operations.GET;
        long deadline = 0L;
        // A replicated PUT or DELETE that failed after its word may have been taken must not take effect twice:
        // before it runs again, a GET tells whether the key still holds the word it replaced.
        boolean verify = false;
        long replaced = 0L;
        long installed = 0L;
        int decider = -1;
        int writtenUnder = 0;
        // the word an earlier attempt of this PUT installed when it was judged not taken, and its epoch: a later
        // attempt that loses to that word on the chain has it finished (HELP), and then the key holds this PUT's
        // own value (0: none)
        long earlier = 0L;
        int earlierUnder = 0;
        int frozenWaits = 0;
        long frozenSince = 0L;
        boolean fullProbed = false;
        boolean fullWaited = false;
        try
        {
            while (true)
            {
                checkOpen();
                final Router router = follower.router();
                final int partition = router.partitionOf(hash);
                final Session session;
                try
                {
                    if (write && router.replicated() && router.sealed(partition))
                    {
                        deadline = follower.await(router, deadline, "the key's replica group is sealed for a copy");
                        continue;
                    }
                    session = router.route(partition);
                }
                catch (final StaleMapException e)
                {
                    follower.adopt(router, e);
                    continue;
                }
                catch (final RouterClosedException e)
                {
                    continue; // a router retired meanwhile (checkOpen fails the operation if the client closed)
                }
                catch (final GroupLostException e)
                {
                    throw new KvConnectionException(e.getMessage(), e);
                }
                catch (final SessionRefusedException | SessionFailedException e)
                {
                    if (!router.replicated() || !isTransient(e))
                    {
                        throw connectFailed(e);
                    }
                    deadline = follower.await(router, deadline, e.getMessage());
                    continue;
                }
                session.enter(router.map().epoch());
                if (follower.router() != router)
                {
                    // the map moved between routing and entering: the janitor may have reported the new map's epoch
                    // without this operation, so it runs on the new router instead
                    session.exit();
                    continue;
                }
                try
                {
                    session.lane().key(key, 0, (int)keyLength, hash, router.segmentOf(partition),
                        router.placedNanos(partition), router.versionSalt(partition));
                    if (value != null)
                    {
                        session.lane().value(value, 0, (int)value.byteSize());
                    }
                    if (write && router.replicated())
                    {
                        router.prepareChain(partition, session.lane());
                    }
                }
                catch (final StaleMapException e)
                {
                    session.exit();
                    follower.adopt(router, e);
                    continue;
                }
                catch (final RouterClosedException e)
                {
                    session.exit();
                    continue;
                }
                catch (final SessionRefusedException | SessionFailedException e)
                {
                    session.exit();
                    if (!isTransient(e))
                    {
                        throw connectFailed(e);
                    }
                    deadline = follower.await(router, deadline, e.getMessage());
                    continue;
                }
                catch (final RuntimeException e)
                {
                    session.exit();
                    throw e;
                }
                final int status;
                if (verify)
                {
                    status = verify(session, replaced, installed, decider, writtenUnder, earlier, earlierUnder);
                    if (status == RUN_AGAIN)
                    {
                        verify = false;
                        if (installed != SlotWord.EMPTY)
                        {
                            earlier = installed;
                            earlierUnder = writtenUnder;
                        }
                        continue;
                    }
                    if (status == UNKNOWN)
                    {
                        final LaneResult seen = session.lane().result();
                        throw new KvConnectionException(API_NAMES[op] + ": lost the connection after the write may " +
                            "have taken effect, and the key has changed since: whether this write took effect is " +
                            "unknown " + String.format("(it replaced word %x with %x under map epoch %d, decided at node %d, an " +
                            "earlier attempt's word %x; node %d now holds %x, written under epoch %d)", replaced,
                            installed, writtenUnder, decider, earlier,
                            session.hello().nodeId(), seen.status() == Status.NOT_FOUND ? 0L : seen.word(),
                            Integer.toUnsignedLong(seen.writerEpoch())));
                    }
                }
                else
                {
                    session.lane().forgetCommit();
                    status = run(session, op, expectedVersion);
                }
                if (status >= 0)
                {
                    return session.lane().result().withStatus(status);
                }
                if (router.replicated() && (status == Status.FROZEN || status == Status.MOVED))
                {
                    // nothing was changed (a write never CASes a frozen slot; a MOVED mark is seen before anything):
                    // the write waits for the partition to open, the operation follows the map to the partition's group
                    if (status == Status.FROZEN && frozenSince == 0L)
                    {
                        frozenSince = System.nanoTime();
                    }
                    deadline = status == Status.FROZEN ? follower.awaitOpen(router, deadline, frozenWaits++) :
                        follower.await(router, deadline, "the key's partition moved off node " +
                            session.hello().nodeId());
                    continue;
                }
                if (status == Status.TABLE_FULL && router.replicated() && router.map().hasSegments())
                {
                    // nothing was written. A segment past its growth threshold moves into one twice its size (index
                    // growth): an insert that finds it full while its partition is in a batch waits for the batch to
                    // open and runs again there; without a batch in this client's map, one look for a newer map
                    // first (the batch may have started since), then the failure
                    final boolean growing = router.map().moves().batchOf(partition) != null;
                    if (growing || !fullProbed)
                    {
                        if (growing && !fullWaited)
                        {
                            fullWaited = true;
                            session.counters().increment(ClientCounter.FULL_WAITS);
                        }
                        fullProbed = true;
                        deadline = follower.await(router, deadline, "the key's partition is full and moving into a " +
                            "bigger index segment");
                        continue;
                    }
                }
                if (!router.replicated() || !retryable(status, op))
                {
                    throw failed(session, status, API_NAMES[op]);
                }
                if (!verify && write && session.lane().mayHaveCommitted())
                {
                    verify = true;
                    replaced = session.lane().committedExpected();
                    installed = session.lane().committedSwap();
                    decider = router.decidingNodeId(partition);
                    writtenUnder = session.hello().clusterMap() == null ? 0 : (int)session.hello().clusterMap().epoch();
                }
                router.dropIfBroken(session);
                router.dropBrokenChain(session.lane());
                deadline = follower.await(router, deadline, status == Status.LEASE_EXPIRED ? "the read lease on node " +
                    session.hello().nodeId() + " ran out (it may have been replaced)" :
                    "lost the connection to node " + session.hello().nodeId());
            }
        }
        finally
        {
            if (frozenSince != 0L && metrics != null)
            {
                metrics.recorder().frozenWait(System.nanoTime() - frozenSince);
            }
        }
    }

    /** {@link #verify}: the write did not take effect, run it again. */
    private static final int RUN_AGAIN = Integer.MIN_VALUE;
    /** {@link #verify}: another write changed the key; whether this one took effect first cannot be told. */
    private static final int UNKNOWN = Integer.MIN_VALUE + 1;

    /**
     * After a PUT or DELETE failed once its word may have been taken at {@code decider} (the node id of its chain's
     * first backup, or of the primary without one; the attempt ran under map epoch {@code writtenUnder}): reads the
     * key on the current map and decides.
     * <ul>
     *   <li>It holds the word the write installs ({@code installed}; 0 for a DELETE): done, {@link Status#OK}. So
     *       too when it holds the word an earlier attempt of this PUT installed ({@code earlier}, a block written
     *       under {@code earlierUnder}), judged not taken then: that word was left on the first backup and finished
     *       onto the primary (HELP) by a later attempt, which then failed too; the key holds this PUT's value.</li>
     *   <li>It holds the word the write replaced ({@code replaced}; 0: absent), read from a node other than the
     *       decider: the decider never served reads, so whatever it took was never seen: {@link #RUN_AGAIN}.</li>
     *   <li>The same, read from the decider (a failover promoted it): the write did not take there only if the
     *       very block it replaced is still in place, which the block's writer epoch tells from a block written
     *       after the failover in the same space (the same word back): not newer than {@code writtenUnder},
     *       {@link #RUN_AGAIN}; newer, {@link #UNKNOWN}. An absent key has no block to tell "never inserted" from
     *       "inserted, then deleted": {@link #UNKNOWN}.</li>
     *   <li>Anything else: another write came since, and whether this one took effect before it cannot be told
     *       (ordering it just before that write is wrong when that write was a compare-and-set that expected
     *       {@code replaced}): {@link #UNKNOWN}.</li>
     * </ul>
     * {@link #UNKNOWN} is reported as a failure whose effect is unknown, never as success. A negative status when
     * the GET failed. The GET counts in the client's GET and round-trip counters like any other. Without the
     * check, a write that had taken effect at the first backup, which the failover promoted, would run a second
     * time and could undo a later write. Gives the lane back.
     */
    private static int verify(final Session session, final long replaced, final long installed, final int decider,
        final int writtenUnder, final long earlier, final int earlierUnder)
    {
        final Lane lane = session.lane();
        final int status;
        try
        {
            status = lane.get();
        }
        finally
        {
            session.exit();
        }
        if (status < 0)
        {
            return status;
        }
        lane.result().withStatus(status);
        final long now = status == Status.OK ? lane.result().word() : 0L;
        if (now == installed || now != SlotWord.EMPTY && now == earlier &&
            lane.result().writerEpoch() == earlierUnder)
        {
            return Status.OK;
        }
        if (now != replaced)
        {
            return UNKNOWN;
        }
        if (session.hello().nodeId() != decider)
        {
            return RUN_AGAIN;
        }
        return now != 0L && Integer.toUnsignedLong(lane.result().writerEpoch()) <= Integer.toUnsignedLong(writtenUnder) ?
            RUN_AGAIN : UNKNOWN;
    }

    /** Whether a session refused or failed now may be had later: the node is down, leaving, or not in the map. */
    private static boolean isTransient(final RuntimeException e)
    {
        return !(e instanceof SessionRefusedException refused) || refused.forNow();
    }

    /**
     * Whether a failed operation may run again after a map refresh: a GET; a PUT or DELETE (after {@link #verify}
     * when its word may have been taken). Not a compare-and-set: whether it happened is its answer.
     */
    private static boolean retryable(final int status, final int op)
    {
        // REMOTE_ERROR: the node refused a request on the queue pair (a stale view of a region that changed
        // with the map, e.g. a restarted node's): the lane is dropped, and a new one follows the new map
        // LEASE_EXPIRED: a GET's reads completed after the session's read lease ended (the node may be deposed)
        final boolean lost = status == Status.CONNECTION_LOST || status == Status.NODE_SHUTTING_DOWN ||
            status == Status.TIMEOUT || status == Status.REMOTE_ERROR || status == Status.LEASE_EXPIRED;
        return lost && op != Operations.COMPARE_AND_SET;
    }

    /** Runs the staged operation and gives the lane back; records it; returns its status (negative: failed). */
    private int run(final Session session, final int op, final long expectedVersion)
    {
        final Lane lane = session.lane();
        final OperationRecorder recorder = metrics == null ? null : metrics.recorder().begin(session.counters());
        final int status;
        try
        {
            status = switch (op)
            {
                case Operations.GET -> lane.get();
                case Operations.PUT -> lane.put();
                case Operations.DELETE -> lane.delete();
                default -> lane.compareAndSet(expectedVersion);
            };
        }
        finally
        {
            session.exit();
        }
        if (recorder != null)
        {
            recorder.end(op, status);
        }
        return status;
    }

    /** How many newer maps {@link #nodeSession} follows before it gives up: each is a map change meanwhile. */
    private static final int NODE_SESSION_MAP_CHANGES = 16;

    /**
     * This thread's session with the node whose id is {@code nodeId}, for a query to that node (opened if needed). A new
     * session whose HELLO_OK brought a newer map than the client's ({@link StaleMapException}) is handed to the router
     * of that map ({@link MapFollower#adopt}: it keeps it, or closes it), and the node is looked up again there.
     */
    private Session nodeSession(final int nodeId)
    {
        for (int changes = 0; ; changes++)
        {
            checkOpen();
            final Router router = follower.router();
            final int node = router.nodeIndex(nodeId);
            if (node < 0)
            {
                throw new KvConnectionException("node " + nodeId + " is not in the cluster map (epoch " +
                    router.map().epoch() + ")");
            }
            try
            {
                return router.session(node);
            }
            catch (final RouterClosedException e)
            {
                // a router retired meanwhile: the next round looks on the current one (or checkOpen fails)
                if (changes == NODE_SESSION_MAP_CHANGES)
                {
                    throw new KvConnectionException(e.getMessage(), e);
                }
            }
            catch (final StaleMapException e)
            {
                follower.adopt(router, e);
                if (changes == NODE_SESSION_MAP_CHANGES)
                {
                    throw new KvConnectionException("the cluster map changed " + changes + " times while a session " +
                        "with node " + nodeId + " was opened: " + e.getMessage(), e);
                }
            }
            catch (final SessionRefusedException | SessionFailedException e)
            {
                throw connectFailed(e);
            }
        }
    }

    private KvConnectionException connectFailed(final RuntimeException e)
    {
        if (metrics != null)
        {
            metrics.connectFailed();
        }
        return new KvConnectionException(e.getMessage(), e);
    }

    private KvException failed(final Session session, final int status, final String operation)
    {
        final KvException e = failures.of(session, status, operation);
        follower.router().dropIfBroken(session);
        return e;
    }

    private void checkOpen()
    {
        if (closed)
        {
            throw new KvConnectionException("client is closed");
        }
    }

    /**
     * Closes every session (BYE to each node; queue pairs and memory regions deregistered), then the protection domain
     * and the device context. Call it once the client's operations have returned: an operation still running on
     * another thread fails ({@link KvConnectionException}, "client is closed"), and a session it is opening meanwhile
     * is closed as soon as it is open (close waits up to 5 s for such sessions). A resource that cannot be freed does
     * not keep the others open: everything else is closed, and then a {@link KvException} says what was left (the
     * protection domain's open queue pairs and memory regions, as the transport counts them).
     */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        janitor.close();
        async.shutdownNow();
        asyncBatches.close();
        if (metrics != null)
        {
            metrics.unregister();
        }
        RuntimeException sessions = null;
        int opening = 0;
        try
        {
            opening = follower.closeAll();
        }
        catch (final RuntimeException e)
        {
            sessions = e;
        }
        KvException failure = null;
        try
        {
            pd.close();
        }
        catch (final RuntimeException e)
        {
            failure = new KvException("closed the client's sessions, but its protection domain is not freed: " +
                e.getMessage() + (opening > 0 ? "; " + opening + " session(s) still being opened by other threads " +
                MapFollower.CLOSE_WAIT_MILLIS + " ms after close began" : sessions != null ?
                "; closing a session failed: " + sessions : "; a session of this client was never closed (a bug)"), e);
        }
        try
        {
            context.close();
        }
        catch (final RuntimeException e)
        {
            failure = add(failure, "closed the client's sessions, but its device context is not closed: " +
                e.getMessage(), e);
        }
        if (sessions != null)
        {
            failure = add(failure, "closing the client's sessions: " + sessions.getMessage(), sessions);
        }
        if (failure != null)
        {
            throw failure;
        }
    }

    /** {@code failure} with {@code cause} added (suppressed), or a new one of {@code message} when it is null. */
    private static KvException add(final KvException failure, final String message, final RuntimeException cause)
    {
        if (failure == null)
        {
            return new KvException(message, cause);
        }
        failure.addSuppressed(cause);
        return failure;
    }
}
