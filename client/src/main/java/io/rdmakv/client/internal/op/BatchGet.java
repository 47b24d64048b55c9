package io.rdmakv.client.internal.op;

import io.rdmakv.client.internal.lane.ClientCounter;
import io.rdmakv.client.internal.lane.KeyLocation;
import io.rdmakv.client.internal.lane.LaneBuffers;
import io.rdmakv.client.internal.lane.LaneCounters;
import io.rdmakv.client.internal.lane.RemoteIndex;
import io.rdmakv.peer.Status;
import io.rdmakv.peer.ReadLease;
import io.rdmakv.common.layout.KvBlock;
import io.rdmakv.common.layout.SlotWord;
import org.agrona.concurrent.NanoClock;

import java.lang.foreign.MemorySegment;

/**
 * GET of up to {@link LaneBuffers#BATCH} keys of one node in two doorbells, not one or two per key:
 * <ol>
 * <li>one chain: for each key with a cache entry, READ its slot and the block it names; for each other
 *     key, READ both candidate groups;</li>
 * <li>one chain: for each key whose groups show a candidate, READ that block.</li>
 * </ol>
 * A key is answered by the batch only under the single GET's rules ({@link GetProtocol}): a cached slot
 * that still holds the cached word and a block with this key, or a group candidate whose block has this
 * key, read within half the grace period of the doorbell that started it; no candidate at all is
 * {@link Status#NOT_FOUND}. Anything else (a stale or wrong entry, a fingerprint shared with another key,
 * a block that failed its check or is longer than {@link LaneBuffers#BATCH_BLOCK_LENGTH}, a slow read) is
 * left {@link #PENDING} for the caller to run as a single GET, which retries, repairs nothing (GET never
 * does) and reaches the corruption verdict as usual. Allocates nothing.
 */
final class BatchGet
{
    /** A key the batch did not answer: run it as a single GET. */
    static final int PENDING = 3;

    private static final int CACHED = 1;
    private static final int GROUPS = 2;

    private final MemorySegment mem;
    private final BatchRequests requests;
    private final CachedSlot cached;
    private final LaneCounters counters;
    private final NanoClock clock;
    private ReadLease lease = ReadLease.UNENFORCED;
    private final long trustNanos;
    private final CachedSlot.Entry entry = new CachedSlot.Entry();
    private final KeyLocation[] keys = new KeyLocation[LaneBuffers.BATCH];
    private final KvBlock[] blocks = new KvBlock[LaneBuffers.BATCH];
    private final int[] mode = new int[LaneBuffers.BATCH];
    private final int[] outcome = new int[LaneBuffers.BATCH];
    private final long[] slotAddress = new long[LaneBuffers.BATCH];
    private final long[] word = new long[LaneBuffers.BATCH];

    /** Reads under {@code lease} from now on (set once, when the session opens). */
    void lease(final ReadLease lease)
    {
        this.lease = lease;
    }

    BatchGet(final MemorySegment mem, final BatchRequests requests, final RemoteIndex remote, final CachedSlot cached,
        final LaneCounters counters, final NanoClock clock, final long trustNanos)
    {
        this.mem = mem;
        this.requests = requests;
        this.cached = cached;
        this.counters = counters;
        this.clock = clock;
        this.trustNanos = trustNanos;
        for (int i = 0; i < LaneBuffers.BATCH; i++)
        {
            keys[i] = new KeyLocation(remote, mem, LaneBuffers.batchGroups(i));
            blocks[i] = new KvBlock().wrap(mem, LaneBuffers.batchBlock(i));
        }
    }

    /** Stages key {@code i} of the next batch (length checked by the caller). */
    void key(final int i, final MemorySegment key, final long offset, final int length, final long hash,
        final long segment, final long versionSalt)
    {
        keys[i].aim(hash, length, segment, Long.MIN_VALUE, versionSalt);
        MemorySegment.copy(key, offset, mem, LaneBuffers.batchKey(i), length);
    }

    /**
     * GETs keys {@code 0 .. count - 1}: afterwards {@link #outcome} of each is {@link Status#OK},
     * {@link Status#NOT_FOUND} or {@link #PENDING}. Returns {@link Status#OK} or the lane's failure.
     */
    int get(final int count)
    {
        final long tripsBefore = counters.get(ClientCounter.ROUND_TRIPS);
        final SlotCache cache = cached.cache();
        requests.clear();
        for (int i = 0; i < count; i++)
        {
            outcome[i] = PENDING;
            if (cache.find(keys[i].hash(), entry) && keys[i].isCandidate(entry.slotAddress()) &&
                SlotWord.blockLength(entry.word()) <= LaneBuffers.BATCH_BLOCK_LENGTH)
            {
                mode[i] = CACHED;
                slotAddress[i] = entry.slotAddress();
                word[i] = entry.word();
                requests.readSlotAndBlock(i, slotAddress[i], word[i]);
            }
            else
            {
                mode[i] = GROUPS;
                requests.readGroups(i, keys[i]);
            }
        }
        final long start = clock.nanoTime();
        if (requests.ring() != Status.OK)
        {
            return requests.failure();
        }
        requests.clear();
        for (int i = 0; i < count; i++)
        {
            if (mode[i] == CACHED)
            {
                cachedRead(cache, i, start);
            }
            else
            {
                candidate(i);
            }
        }
        if (requests.ring() != Status.OK)
        {
            return requests.failure();
        }
        final long done = clock.nanoTime();
        if (!lease.heldAt(done))
        {
            counters.increment(ClientCounter.READ_LEASE_EXPIRED);
            return Status.LEASE_EXPIRED;
        }
        final boolean inTime = done - start < trustNanos;
        for (int i = 0; i < count; i++)
        {
            if (mode[i] == GROUPS && outcome[i] == PENDING && word[i] != SlotWord.EMPTY && inTime &&
                validate(i) == KvBlock.VALID)
            {
                found(cache, i, start);
            }
        }
        counters.add(ClientCounter.GET_ROUND_TRIPS, counters.get(ClientCounter.ROUND_TRIPS) - tripsBefore);
        return Status.OK;
    }

    /** {@link Status#OK}, {@link Status#NOT_FOUND} or {@link #PENDING}. */
    int outcome(final int i)
    {
        return outcome[i];
    }

    /** After {@link Status#OK}: key {@code i}'s block (its value) and version. */
    KvBlock block(final int i)
    {
        return blocks[i];
    }

    long version(final int i)
    {
        return blocks[i].version(word[i], keys[i].versionSalt());
    }

    private void cachedRead(final SlotCache cache, final int i, final long start)
    {
        if (requests.slotRead(i) == word[i] && clock.nanoTime() - start < trustNanos && validate(i) == KvBlock.VALID)
        {
            counters.increment(ClientCounter.CACHE_HITS);
            found(cache, i, start);
            return;
        }
        cache.invalidate(keys[i].hash(), word[i]);
    }

    /** After the groups READ: READ the first candidate's block in the next chain, or say the key is absent. */
    private void candidate(final int i)
    {
        final KeyLocation key = keys[i];
        word[i] = SlotWord.EMPTY;
        if (key.moved())
        {
            return; // left to a single GET, which follows the map
        }
        final int first = key.firstMatch();
        if (first == KeyLocation.NONE)
        {
            if (!key.hasImplausibleMatch())
            {
                outcome[i] = Status.NOT_FOUND;
                counters.increment(ClientCounter.GETS);
                counters.increment(ClientCounter.CACHE_MISSES);
                counters.increment(ClientCounter.NOT_FOUND);
            }
            return;
        }
        if (key.matchesAfter(first) != KeyLocation.NONE ||
            SlotWord.blockLength(key.word(first)) > LaneBuffers.BATCH_BLOCK_LENGTH)
        {
            return;
        }
        word[i] = key.word(first);
        slotAddress[i] = key.slotAddress(first);
        requests.readBlock(i, word[i]);
    }

    private int validate(final int i)
    {
        return blocks[i].validate(mem, LaneBuffers.batchKey(i), keys[i].keyLength(), SlotWord.blockLength(word[i]));
    }

    private void found(final SlotCache cache, final int i, final long start)
    {
        outcome[i] = Status.OK;
        counters.increment(ClientCounter.GETS);
        if (mode[i] == GROUPS)
        {
            counters.increment(ClientCounter.CACHE_MISSES);
        }
        cache.put(keys[i].hash(), slotAddress[i], word[i], start);
    }
}
