package io.rdmakv.client.internal.op;

import io.rdmakv.client.internal.lane.ClientCounter;
import io.rdmakv.client.internal.lane.KeyLocation;
import io.rdmakv.client.internal.lane.LaneCounters;
import io.rdmakv.client.internal.lane.LaneRequests;
import io.rdmakv.peer.Status;
import org.agrona.concurrent.NanoClock;

/**
 * The staged key's entry in the client's {@link SlotCache}, as this lane copied it out, and whether it
 * can be used: a <em>fresh</em> entry (seen less than half the grace period ago) is trusted as it is; an
 * older one after one doorbell that READs the slot and the block it names and finds the slot unchanged
 * and the block this key's, within half the grace period. A wrong entry is dropped (if no other lane
 * replaced it meanwhile) and the caller falls back to the groups, which puts the right one in.
 */
final class CachedSlot
{
    enum Check
    {
        /** The slot holds the cached word, which names this key's block: CAS from it. */
        TRUSTED,
        /** The entry was wrong or too slow to confirm; it is dropped. */
        CHANGED,
        /** The lane failed. */
        FAILED
    }

    /** One lane's copy of an entry (filled by {@link SlotCache#find}); reused, never shared. */
    static final class Entry
    {
        private long slotAddress;
        private long word;
        private long seenNanos;

        void set(final long slotAddress, final long word, final long seenNanos)
        {
            this.slotAddress = slotAddress;
            this.word = word;
            this.seenNanos = seenNanos;
        }

        long slotAddress()
        {
            return slotAddress;
        }

        long word()
        {
            return word;
        }

        long seenNanos()
        {
            return seenNanos;
        }
    }

    private final Entry entry = new Entry();
    private final KeyLocation key;
    private final LaneRequests requests;
    private final BlockSearch search;
    private final LaneCounters counters;
    private final NanoClock clock;
    private final long trustNanos;
    private SlotCache cache = SlotCache.DISABLED;

    CachedSlot(final KeyLocation key, final LaneRequests requests, final BlockSearch search,
        final LaneCounters counters, final NanoClock clock, final long trustNanos)
    {
        this.key = key;
        this.requests = requests;
        this.search = search;
        this.counters = counters;
        this.clock = clock;
        this.trustNanos = trustNanos;
    }

    /** Uses {@code shared} from now on (the client's cache; set before the lane runs operations). */
    void use(final SlotCache shared)
    {
        this.cache = shared;
    }

    /** The cache this lane uses now (a batch looks up keys other than the staged one). */
    SlotCache cache()
    {
        return cache;
    }

    /** Copies the staged key's entry; false (and a miss counted) when there is none. */
    boolean lookup()
    {
        if (cache.find(key.hash(), entry) && key.isCandidate(entry.slotAddress))
        {
            return true;
        }
        counters.increment(ClientCounter.CACHE_MISSES);
        return false;
    }

    /** After {@link #lookup()}: the slot's remote address. */
    long slotAddress()
    {
        return entry.slotAddress;
    }

    /** After {@link #lookup()}: the word the slot held. */
    long word()
    {
        return entry.word;
    }

    /**
     * True when the entry found may be trusted at {@code nowNanos} without reading the slot first: seen less than
     * half the grace period ago, and after the client adopted the key's partition's current placement (an older
     * entry may name the slot of the group or segment the partition left: growth.md §6).
     */
    boolean isFresh(final long nowNanos)
    {
        return nowNanos - entry.seenNanos < trustNanos && key.trustsSeenAt(entry.seenNanos);
    }

    /**
     * Checks the entry found at time {@code now}; the READs carry the WRITE of {@code block} in front
     * when it is given and has not gone out yet.
     */
    Check check(final long now, final NewBlock block)
    {
        if (isFresh(now))
        {
            return Check.TRUSTED;
        }
        final int rc = block == null ? requests.readSlotAndBlock(entry.slotAddress, entry.word) :
            block.readSlotAndBlock(entry.slotAddress, entry.word);
        if (rc != Status.OK)
        {
            return Check.FAILED;
        }
        if (holds(entry.word) && clock.nanoTime() - now < trustNanos)
        {
            return Check.TRUSTED;
        }
        invalidate();
        return Check.CHANGED;
    }

    /** After a READ of the slot and its block: the slot still holds {@code word} and the block is this key's. */
    boolean holds(final long word)
    {
        return requests.slotRead() == word && search.holdsKey(word);
    }

    /** True when a read that started at {@code startNanos} finished soon enough to trust what it saw. */
    boolean inTime(final long startNanos)
    {
        return clock.nanoTime() - startNanos < trustNanos;
    }

    /** {@link #inTime(long)} with the clock already read: {@code nowNanos}. */
    boolean inTime(final long startNanos, final long nowNanos)
    {
        return nowNanos - startNanos < trustNanos;
    }

    long now()
    {
        return clock.nanoTime();
    }

    /** Remembers that the staged key's slot at {@code slotAddress} held {@code word} at {@code seenNanos}. */
    void remember(final long slotAddress, final long word, final long seenNanos)
    {
        cache.put(key.hash(), slotAddress, word, seenNanos);
    }

    /** Counts a use of the entry found that served the operation. */
    void hit()
    {
        counters.increment(ClientCounter.CACHE_HITS);
    }

    /** Counts an entry found that was wrong (the operation falls back to the groups). */
    void missed()
    {
        counters.increment(ClientCounter.CACHE_MISSES);
    }

    /** Drops the entry found, unless another lane has replaced it since. */
    void invalidate()
    {
        cache.invalidate(key.hash(), entry.word);
    }
}
