package io.rdmakv.client.internal;

import org.agrona.concurrent.NanoClock;

/**
 * Whether the staged key's cached slot can be used (see {@link SlotCache}): a <em>fresh</em> entry is
 * trusted as it is; an older one after one doorbell that READs the slot and the block it names and finds
 * the slot unchanged and the block this key's, within half the grace period.
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

    private final SlotCache cache;
    private final KeyLocation key;
    private final LaneRequests requests;
    private final BlockSearch search;
    private final NanoClock clock;
    private final long trustNanos;

    CachedSlot(final SlotCache cache, final KeyLocation key, final LaneRequests requests, final BlockSearch search,
        final NanoClock clock, final long trustNanos)
    {
        this.cache = cache;
        this.key = key;
        this.requests = requests;
        this.search = search;
        this.clock = clock;
        this.trustNanos = trustNanos;
    }

    /** The cache entry of the staged key, or -1. */
    int lookup()
    {
        return cache.lookup(key.hash());
    }

    /**
     * Checks entry {@code entry} at time {@code now}; the READs carry the WRITE of {@code block} in front
     * when it is given and has not gone out yet.
     */
    Check check(final int entry, final long now, final NewBlock block)
    {
        if (cache.isFresh(entry, now))
        {
            return Check.TRUSTED;
        }
        final long word = cache.word(entry);
        final long slotAddress = cache.slotAddress(entry);
        final int rc = block == null ? requests.readSlotAndBlock(slotAddress, word) :
            block.readSlotAndBlock(slotAddress, word);
        if (rc != Status.OK)
        {
            return Check.FAILED;
        }
        if (holds(word) && clock.nanoTime() - now < trustNanos)
        {
            return Check.TRUSTED;
        }
        cache.invalidate(key.hash());
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

    long now()
    {
        return clock.nanoTime();
    }

    /** Drops the staged key's entry. */
    void invalidate()
    {
        cache.invalidate(key.hash());
    }

    SlotCache cache()
    {
        return cache;
    }
}
