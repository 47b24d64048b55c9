package io.rdmakv.client.internal.op;

import io.rdmakv.client.internal.lane.ClientCounter;
import io.rdmakv.client.internal.lane.KeyLocation;
import io.rdmakv.client.internal.lane.LaneBuffers;
import io.rdmakv.client.internal.lane.LaneCounters;
import io.rdmakv.client.internal.lane.RemoteIndex;
import io.rdmakv.client.internal.lane.SpaceLease;
import io.rdmakv.peer.Status;
import io.rdmakv.common.layout.KvBlock;
import io.rdmakv.common.layout.KvBlockDescriptor;
import io.rdmakv.common.layout.SlotWord;
import org.agrona.concurrent.NanoClock;

import java.lang.foreign.MemorySegment;

/**
 * PUT of up to {@link LaneBuffers#BATCH} entries of one node in two or three doorbells, not one to three each.
 * Each entry's block is reserved in the {@link SpaceLease} (several reservations in flight in one extent, one
 * write rkey) and then, per entry, under the single PUT's rules ({@link PutProtocol}):
 * <ol>
 * <li>one chain: every entry's WRITE, then for a fresh cache entry the CAS from the cached word; for an older
 *     entry the READ of its slot and block (the confirmation); for a key with no entry the READ of both
 *     candidate groups;</li>
 * <li>one chain: the CAS of every confirmed entry (the slot still held the word, its block is this key's,
 *     seen within half the grace period); the READ of the one candidate block of each key read by groups;</li>
 * <li>one chain: the CAS of every key whose candidate block is its own.</li>
 * </ol>
 * An entry whose CAS won is {@link Status#OK}. Anything else (a lost CAS, a stale entry, an absent key that
 * needs the insert lock, two candidates, a damaged or long block) is left {@link #PENDING}: the caller runs it
 * as a single PUT, which retries, inserts and repairs as usual. Its block here was never named by a slot: the
 * space before the last committed block goes to FREE, the space after it is reused ({@link SpaceLease#settle}).
 * Each entry is linearizable on its own (one CAS); the batch is not atomic across keys. Allocates nothing.
 */
final class BatchPut
{
    /** An entry the batch did not write: run it as a single PUT. */
    static final int PENDING = BatchGet.PENDING;

    private static final int TRUSTED = 1;
    private static final int CONFIRM = 2;
    private static final int GROUPS = 3;
    private static final int CANDIDATE = 4;

    private final MemorySegment mem;
    private final BatchRequests requests;
    private final CachedSlot cached;
    private final SpaceLease space;
    private final LaneCounters counters;
    private final NanoClock clock;
    private final long trustNanos;
    private final CachedSlot.Entry entry = new CachedSlot.Entry();
    private final KeyLocation[] keys = new KeyLocation[LaneBuffers.BATCH];
    private final KvBlock[] read = new KvBlock[LaneBuffers.BATCH];
    private final KvBlock[] written = new KvBlock[LaneBuffers.BATCH];
    private final int[] mode = new int[LaneBuffers.BATCH];
    private final int[] outcome = new int[LaneBuffers.BATCH];
    private final long[] slotAddress = new long[LaneBuffers.BATCH];
    private final long[] expected = new long[LaneBuffers.BATCH];
    private final long[] word = new long[LaneBuffers.BATCH];
    private final long[] seen = new long[LaneBuffers.BATCH];
    private final long[] offsets = new long[LaneBuffers.BATCH];
    private final int[] lengths = new int[LaneBuffers.BATCH];
    private final boolean[] committed = new boolean[LaneBuffers.BATCH];

    BatchPut(final MemorySegment mem, final BatchRequests requests, final RemoteIndex remote, final CachedSlot cached,
        final SpaceLease space, final LaneCounters counters, final NanoClock clock, final long trustNanos)
    {
        this.mem = mem;
        this.requests = requests;
        this.cached = cached;
        this.space = space;
        this.counters = counters;
        this.clock = clock;
        this.trustNanos = trustNanos;
        for (int i = 0; i < LaneBuffers.BATCH; i++)
        {
            keys[i] = new KeyLocation(remote, mem, LaneBuffers.batchGroups(i));
            read[i] = new KvBlock().wrap(mem, LaneBuffers.batchBlock(i));
            written[i] = new KvBlock().wrap(mem, LaneBuffers.batchWrite(i));
        }
    }

    /** The longest value a batch entry with a key of {@code keyLength} bytes may have (longer: a single PUT). */
    static int maxValueLength(final int keyLength)
    {
        return LaneBuffers.BATCH_BLOCK_LENGTH - KvBlockDescriptor.blockLength(keyLength, 0);
    }

    /** Stages entry {@code i}: its key and its block (lengths checked by the caller, value within {@link #maxValueLength}). */
    void entry(final int i, final MemorySegment key, final long keyOffset, final int keyLength, final long hash,
        final long segment, final MemorySegment value, final long valueOffset, final int valueLength)
    {
        keys[i].aim(hash, keyLength, segment);
        MemorySegment.copy(key, keyOffset, mem, LaneBuffers.batchKey(i), keyLength);
        lengths[i] = written[i].write(mem, LaneBuffers.batchKey(i), keyLength, value, valueOffset, valueLength, 0);
    }

    /**
     * PUTs entries {@code 0 .. count - 1} as far as one extent holds them: returns how many it took (at least
     * one; {@link #outcome} of each is {@link Status#OK} or {@link #PENDING}; the rest are for the next call),
     * or a negative {@link Status}: ALLOC failed for the first (nothing written) or the lane failed.
     */
    int put(final int count)
    {
        int rc = space.maintain();
        if (rc != Status.OK)
        {
            return rc;
        }
        int taken = 0;
        while (taken < count && space.fitsNext(lengths[taken]))
        {
            if ((rc = space.reserveNext(lengths[taken])) != Status.OK)
            {
                return rc;
            }
            offsets[taken] = space.batchOffset();
            word[taken] = SlotWord.encodeBlock(keys[taken].fingerprint(), offsets[taken], lengths[taken]);
            taken++;
        }
        if ((rc = writeAndLook(taken)) != Status.OK || (rc = confirmOrSearch(taken)) != Status.OK ||
            (rc = casCandidates(taken)) != Status.OK)
        {
            space.abandon();
            return rc;
        }
        for (int i = 0; i < taken; i++)
        {
            if (mode[i] == CANDIDATE && outcome[i] == PENDING && expected[i] != SlotWord.EMPTY)
            {
                casSettled(i);
            }
        }
        rc = space.settle(offsets, lengths, committed, taken);
        for (int i = 0; i < taken && rc == Status.OK; i++)
        {
            if (committed[i] && expected[i] != SlotWord.EMPTY)
            {
                rc = space.release(SlotWord.blockOffset(expected[i]), SlotWord.blockLength(expected[i]));
            }
        }
        return rc == Status.OK ? taken : rc;
    }

    /** {@link Status#OK} or {@link #PENDING}. */
    int outcome(final int i)
    {
        return outcome[i];
    }

    /** The first doorbell: every WRITE, with the CAS, the confirmation READs or the groups READ of each entry. */
    private int writeAndLook(final int count)
    {
        final SlotCache cache = cached.cache();
        final int rkey = space.writeRkey();
        requests.clear();
        final long start = clock.nanoTime();
        for (int i = 0; i < count; i++)
        {
            outcome[i] = PENDING;
            committed[i] = false;
            expected[i] = SlotWord.EMPTY;
            seen[i] = start;
            requests.writeBlock(i, word[i], rkey);
            if (!cache.find(keys[i].hash(), entry) || !keys[i].isCandidate(entry.slotAddress()))
            {
                counters.increment(ClientCounter.CACHE_MISSES);
                mode[i] = GROUPS;
                requests.readGroups(i, keys[i]);
                continue;
            }
            slotAddress[i] = entry.slotAddress();
            expected[i] = entry.word();
            if (start - entry.seenNanos() < trustNanos)
            {
                mode[i] = TRUSTED;
                requests.casSlot(i, slotAddress[i], expected[i], word[i]);
            }
            else if (SlotWord.blockLength(expected[i]) <= LaneBuffers.BATCH_BLOCK_LENGTH)
            {
                mode[i] = CONFIRM;
                requests.readSlotAndBlock(i, slotAddress[i], expected[i]);
            }
            else
            {
                mode[i] = GROUPS;
                requests.readGroups(i, keys[i]);
            }
        }
        return requests.ring();
    }

    /** The second doorbell: the CASes of confirmed entries, the candidate block READs of the others. */
    private int confirmOrSearch(final int count)
    {
        final SlotCache cache = cached.cache();
        requests.clear();
        final long now = clock.nanoTime();
        final boolean inTime = now - seen[0] < trustNanos;
        for (int i = 0; i < count; i++)
        {
            switch (mode[i])
            {
                case TRUSTED -> casSettled(i);
                case CONFIRM ->
                {
                    if (inTime && requests.slotRead(i) == expected[i] && validate(i, expected[i]) == KvBlock.VALID)
                    {
                        seen[i] = now;
                        requests.casSlot(i, slotAddress[i], expected[i], word[i]);
                    }
                    else
                    {
                        counters.increment(ClientCounter.CACHE_MISSES);
                        cache.invalidate(keys[i].hash(), expected[i]);
                        expected[i] = SlotWord.EMPTY;
                    }
                }
                default -> candidate(i);
            }
        }
        return requests.ring();
    }

    /** The third doorbell: the CAS of each key whose candidate block is its own. */
    private int casCandidates(final int count)
    {
        for (int i = 0; i < count; i++)
        {
            if (mode[i] == CONFIRM && expected[i] != SlotWord.EMPTY)
            {
                casSettled(i);
            }
        }
        requests.clear();
        final long now = clock.nanoTime();
        for (int i = 0; i < count; i++)
        {
            if (mode[i] == CANDIDATE && expected[i] != SlotWord.EMPTY)
            {
                if (validate(i, expected[i]) == KvBlock.VALID)
                {
                    seen[i] = now;
                    requests.casSlot(i, slotAddress[i], expected[i], word[i]);
                }
                else
                {
                    expected[i] = SlotWord.EMPTY;
                }
            }
        }
        return requests.ring();
    }

    /** After the groups READ: READ the one candidate's block, or leave the key to a single PUT. */
    private void candidate(final int i)
    {
        final KeyLocation key = keys[i];
        mode[i] = CANDIDATE;
        expected[i] = SlotWord.EMPTY;
        final int first = key.moved() ? KeyLocation.NONE : key.firstMatch();
        if (first == KeyLocation.NONE || key.matchesAfter(first) != KeyLocation.NONE ||
            SlotWord.blockLength(key.word(first)) > LaneBuffers.BATCH_BLOCK_LENGTH || SlotWord.isMoving(key.word(first)))
        {
            return; // left to a single PUT, which inserts, waits on a frozen partition or follows the map
        }
        expected[i] = key.word(first);
        slotAddress[i] = key.slotAddress(first);
        requests.readBlock(i, expected[i]);
    }

    /** After entry {@code i}'s CAS came back: committed when it found the expected word. */
    private void casSettled(final int i)
    {
        if (requests.casRead(i) == expected[i])
        {
            committed[i] = true;
            outcome[i] = Status.OK;
            counters.increment(ClientCounter.PUTS);
            if (mode[i] != CANDIDATE)
            {
                counters.increment(ClientCounter.CACHE_HITS);
            }
            cached.cache().put(keys[i].hash(), slotAddress[i], word[i], seen[i]);
            return;
        }
        counters.increment(ClientCounter.CAS_RETRIES);
        if (mode[i] != CANDIDATE)
        {
            cached.cache().invalidate(keys[i].hash(), expected[i]);
        }
        expected[i] = SlotWord.EMPTY;
    }

    private int validate(final int i, final long slotWord)
    {
        return read[i].validate(mem, LaneBuffers.batchKey(i), keys[i].keyLength(), SlotWord.blockLength(slotWord));
    }
}
