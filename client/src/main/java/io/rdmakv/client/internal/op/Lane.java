package io.rdmakv.client.internal.op;

import io.rdmakv.common.layout.VersionSalt;
import io.rdmakv.client.internal.chain.ChainCommit;
import io.rdmakv.client.internal.chain.ReplicaChain;
import io.rdmakv.client.internal.chain.StuckWrite;
import io.rdmakv.client.internal.lane.Backoff;
import io.rdmakv.client.internal.lane.ClientCounter;
import io.rdmakv.client.internal.lane.KeyLocation;
import io.rdmakv.client.internal.lane.LaneBuffers;
import io.rdmakv.client.internal.lane.LaneCounters;
import io.rdmakv.client.internal.lane.LaneRequests;
import io.rdmakv.client.internal.lane.RemoteIndex;
import io.rdmakv.client.internal.lane.ReplicaWindow;
import io.rdmakv.client.internal.lane.SpaceLease;
import io.rdmakv.peer.Status;
import io.rdmakv.peer.ControlChannel;
import io.rdmakv.peer.ReadLease;
import org.agrona.concurrent.NanoClock;

import java.lang.foreign.MemorySegment;

/**
 * The data path of one lane (one queue pair to one node, used by one thread at a time): stage a key
 * (and a value), then run one operation; its status comes back, its version and value are in
 * {@link #result()}. Each operation is one class, readable top to bottom:
 * {@link GetProtocol}, {@link PutProtocol} (with {@link InsertProtocol}), {@link DeleteProtocol},
 * {@link CompareAndSetProtocol}; they share the key's location ({@link KeyLocation}), the prebuilt
 * doorbells ({@link LaneRequests}), the candidate search ({@link BlockSearch}), the slot cache
 * ({@link CachedSlot}), the block being written ({@link NewBlock}), the space lease ({@link SpaceLease}) and,
 * for writers that meet a damaged block, the node's repair ({@link DamageRepair}).
 * Operations return {@link Status} codes and allocate nothing.
 */
public final class Lane implements AutoCloseable
{
    private final MemorySegment mem;
    private final KeyLocation key;
    private final NewBlock block;
    private final CachedSlot cached;
    private final LaneResult result;
    private final LaneCounters counters;
    private final SpaceLease space;
    private final LaneRequests requests;
    private final ControlChannel control;
    private final ChainCommit commit;
    private final ReplicaWindow replicaWindow;
    private final GetProtocol get;
    private final PutProtocol put;
    private final DeleteProtocol delete;
    private final CompareAndSetProtocol compareAndSet;
    private final DamageRepair repair;
    private final BatchRequests batchRequests;
    private final BatchGet batch;
    private final BatchPut batchPut;
    private final int maxKeyLength;
    private final int maxValueLength;

    /** Stamps the blocks this lane writes with {@code epoch}, its session's map epoch (low 32 bits; once). */
    public void writeUnder(final int epoch)
    {
        block.writerEpoch(epoch);
    }

    /** Trusts what GETs read only under {@code lease} (set once, before the first operation). */
    public void readUnder(final ReadLease lease)
    {
        get.lease(lease);
        batch.lease(lease);
    }

    public Lane(final MemorySegment mem, final LaneRequests requests, final RemoteIndex remote, final SpaceLease space,
        final ControlChannel control, final LaneCounters counters, final long lockWord, final long graceNanos,
        final NanoClock clock)
    {
        this.mem = mem;
        this.counters = counters;
        this.space = space;
        this.requests = requests;
        this.control = control;
        this.commit = new ChainCommit(requests, space);
        this.replicaWindow = new ReplicaWindow(control, requests);
        final long trustNanos = graceNanos / 2;
        key = new KeyLocation(remote, mem);
        final BlockSearch search = new BlockSearch(requests, remote, key, mem);
        result = new LaneResult(search.block());
        cached = new CachedSlot(key, requests, search, counters, clock, trustNanos);
        block = new NewBlock(mem, key, requests, commit, space, cached, result, clock);
        final InsertProtocol insert = new InsertProtocol(key, requests, commit, search, block, counters, lockWord);
        get = new GetProtocol(key, requests, search, cached, counters, result, clock);
        repair = new DamageRepair(control, key, search, mem, counters, clock, commit.chain());
        commit.chain().resolver(new StuckWrite(control, key, mem, counters));
        put = new PutProtocol(search, cached, block, insert, repair, requests, counters);
        delete = new DeleteProtocol(key, requests, commit, search, cached, space, repair, counters);
        compareAndSet = new CompareAndSetProtocol(key, cached, block, insert, search, requests, counters);
        batchRequests = new BatchRequests(requests, mem);
        batch = new BatchGet(mem, batchRequests, remote, cached, counters, clock, trustNanos);
        batchPut = new BatchPut(mem, batchRequests, remote, cached, space, counters, clock, trustNanos);
        maxKeyLength = remote.geometry().maxKeyLength();
        maxValueLength = remote.geometry().maxValueLength();
    }

    /** The backups this lane's next write commits along (set by the router per operation). */
    public ReplicaChain chain()
    {
        return commit.chain();
    }

    public LaneRequests requests()
    {
        return requests;
    }

    /** This lane's window on its node as another lane's backup or copying node (its writes there go through it). */
    public ReplicaWindow replicaWindow()
    {
        return replicaWindow;
    }

    /** The session's control channel (ALLOC, FREE, REPAIR, HELP to this lane's node). */
    public ControlChannel control()
    {
        return control;
    }

    /** Shares the client's slot cache (before the lane's first operation; a lane starts with none). */
    public void useCache(final SlotCache cache)
    {
        cached.use(cache);
    }

    /** Keys one {@link #getBatch} takes at most. */
    public static int batchSize()
    {
        return LaneBuffers.BATCH;
    }

    /** Stages key {@code i} of the next {@link #getBatch} (length checked by the caller). */
    public void batchKey(final int i, final MemorySegment key, final long offset, final int length, final long hash,
        final long segment)
    {
        batchKey(i, key, offset, length, hash, segment, VersionSalt.NONE);
    }

    /** {@link #batchKey(int, MemorySegment, long, int, long, long)} whose versions are salted {@code versionSalt}. */
    public void batchKey(final int i, final MemorySegment key, final long offset, final int length, final long hash,
        final long segment, final long versionSalt)
    {
        batch.key(i, key, offset, length, hash, segment, versionSalt);
    }

    /**
     * GETs the staged batch keys {@code 0 .. count - 1} in two doorbells ({@link BatchGet}); then
     * {@link #batchOutcome} of each says {@link Status#OK}, {@link Status#NOT_FOUND}, or
     * {@link #BATCH_PENDING} (run that key as a single {@link #get()}). Returns OK or the lane's failure.
     */
    public int getBatch(final int count)
    {
        final int rc = batch.get(count);
        if (rc < 0)
        {
            counters.increment(ClientCounter.ERRORS);
        }
        return rc;
    }

    /** A batch key the batch did not answer. */
    public static final int BATCH_PENDING = BatchGet.PENDING;

    public int batchOutcome(final int i)
    {
        return batch.outcome(i);
    }

    /** After {@link Status#OK}: where batch key {@code i}'s value is. */
    public MemorySegment batchValueSegment(final int i)
    {
        return batch.block(i).segment();
    }

    public long batchValueOffset(final int i)
    {
        return batch.block(i).valueOffset();
    }

    public int batchValueLength(final int i)
    {
        return batch.block(i).valueLength();
    }

    public long batchVersion(final int i)
    {
        return batch.version(i);
    }

    /** The longest value a batched PUT entry with a {@code keyLength}-byte key takes (a longer one: {@link #put()}). */
    public static int maxBatchValueLength(final int keyLength)
    {
        return BatchPut.maxValueLength(keyLength);
    }

    /** Stages entry {@code i} of the next {@link #putBatch} (lengths checked by the caller, the value's against {@link #maxBatchValueLength}). */
    public void batchEntry(final int i, final MemorySegment key, final long keyOffset, final int keyLength,
        final long hash, final long segment, final MemorySegment value, final long valueOffset, final int valueLength)
    {
        batchPut.entry(i, key, keyOffset, keyLength, hash, segment, value, valueOffset, valueLength);
    }

    /**
     * PUTs the staged entries {@code 0 .. count - 1} in two or three doorbells ({@link BatchPut}), as many as
     * the lane's extent holds: returns how many it took (then {@link #putBatchOutcome} of each says
     * {@link Status#OK} or {@link #BATCH_PENDING}: run that entry as a single {@link #put()}), or the failure.
     */
    public int putBatch(final int count)
    {
        final long trips = counters.get(ClientCounter.ROUND_TRIPS);
        final int rc = batchPut.put(count);
        counters.add(ClientCounter.PUT_ROUND_TRIPS, counters.get(ClientCounter.ROUND_TRIPS) - trips);
        if (rc < 0)
        {
            counters.increment(ClientCounter.ERRORS);
        }
        return rc;
    }

    public int putBatchOutcome(final int i)
    {
        return batchPut.outcome(i);
    }

    /** How many times an operation retries after lost races before it gives up. */
    public static int maxAttempts()
    {
        return Backoff.MAX_ATTEMPTS;
    }

    public int maxKeyLength()
    {
        return maxKeyLength;
    }

    public int maxValueLength()
    {
        return maxValueLength;
    }

    public LaneCounters counters()
    {
        return counters;
    }

    /** Why the node did not repair a damaged slot in the last operation, as it said (empty when it was not asked). */
    public String lastRepairRefusal()
    {
        return repair.lastRefusal();
    }

    /**
     * Whether the last write may have taken effect although it failed: its chain's first backup took its word
     * (a replicated write is done there; its CAS was sent), then a later step failed; the word it replaced: {@link
     * #committedExpected()}. {@link #forgetCommit()} before each operation.
     */
    public boolean mayHaveCommitted()
    {
        return commit.chain().wordMayBeTaken();
    }

    /** The slot word the possibly committed write replaced. */
    public long committedExpected()
    {
        return commit.chain().tookExpected();
    }

    /** The slot word the possibly committed write would have installed (0 for a DELETE). */
    public long committedSwap()
    {
        return commit.chain().tookSwap();
    }

    public void forgetCommit()
    {
        commit.chain().forget();
    }

    /** The version and value of the last operation. */
    public LaneResult result()
    {
        return result;
    }

    /** Stages the key (length checked by the caller) whose {@code KeyHash.hash} the caller computed to route it, in the whole index. */
    public void key(final MemorySegment key, final long offset, final int length, final long hash)
    {
        key(key, offset, length, hash, io.rdmakv.common.hash.KeyHash.WHOLE_INDEX);
    }

    /**
     * Stages the key (length checked by the caller) whose {@code KeyHash.hash} the caller computed to route it; its
     * candidate groups lie in {@code segment}, its partition's packed index segment ({@code Router#segmentOf}).
     */
    public void key(final MemorySegment key, final long offset, final int length, final long hash, final long segment)
    {
        key(key, offset, length, hash, segment, Long.MIN_VALUE);
    }

    /**
     * {@link #key(MemorySegment, long, int, long, long)} for a key whose partition the client placed where it is now
     * at {@code placedNanos} ({@code Router#placedNanos}): cache entries seen before then are confirmed by a READ
     * before any CAS from them.
     */
    public void key(final MemorySegment key, final long offset, final int length, final long hash, final long segment,
        final long placedNanos)
    {
        key(key, offset, length, hash, segment, placedNanos, VersionSalt.NONE);
    }

    /**
     * {@link #key(MemorySegment, long, int, long, long, long)} for a key whose versions are salted {@code versionSalt}
     * where its partition is placed ({@code ClusterMap#versionSalt}).
     */
    public void key(final MemorySegment key, final long offset, final int length, final long hash, final long segment,
        final long placedNanos, final long versionSalt)
    {
        this.key.aim(hash, length, segment, placedNanos, versionSalt);
        MemorySegment.copy(key, offset, mem, LaneBuffers.KEY, length);
        repair.forget();
    }

    /** Assembles the block of the staged key and this value (length checked by the caller). */
    public void value(final MemorySegment value, final long offset, final int length)
    {
        block.assemble(value, offset, length);
    }

    public int get()
    {
        counters.increment(ClientCounter.GETS);
        final long trips = counters.get(ClientCounter.ROUND_TRIPS);
        return counted(get.get(), ClientCounter.GET_ROUND_TRIPS, trips);
    }

    /** Inserts or replaces the staged key with the assembled block. */
    public int put()
    {
        counters.increment(ClientCounter.PUTS);
        final long trips = counters.get(ClientCounter.ROUND_TRIPS);
        return counted(space.maintain() == Status.OK ? put.put() : requests.failure(), ClientCounter.PUT_ROUND_TRIPS,
            trips);
    }

    /** Writes the assembled block only if the key's version is {@code expected} (0: only if absent). */
    public int compareAndSet(final long expected)
    {
        counters.increment(ClientCounter.COMPARE_AND_SETS);
        final long trips = counters.get(ClientCounter.ROUND_TRIPS);
        return counted(space.maintain() == Status.OK ? compareAndSet.compareAndSet(expected) : requests.failure(),
            ClientCounter.COMPARE_AND_SET_ROUND_TRIPS, trips);
    }

    public int delete()
    {
        counters.increment(ClientCounter.DELETES);
        final long trips = counters.get(ClientCounter.ROUND_TRIPS);
        return counted(space.maintain() == Status.OK ? delete.delete() : requests.failure(),
            ClientCounter.DELETE_ROUND_TRIPS, trips);
    }

    /** Counts the outcome, and the round trips since {@code tripsBefore} as the operation's. */
    @Override
    public void close()
    {
        batchRequests.close();
    }

    private int counted(final int status, final ClientCounter roundTrips, final long tripsBefore)
    {
        counters.add(ClientCounter.ROUND_TRIPS, commit.chain().takeTrips());
        counters.add(roundTrips, counters.get(ClientCounter.ROUND_TRIPS) - tripsBefore);
        if (status == Status.NOT_FOUND)
        {
            counters.increment(ClientCounter.NOT_FOUND);
        }
        else if (status == Status.CONFLICT)
        {
            counters.increment(ClientCounter.CONFLICTS);
        }
        else if (status < 0)
        {
            counters.increment(ClientCounter.ERRORS);
        }
        return status;
    }
}
