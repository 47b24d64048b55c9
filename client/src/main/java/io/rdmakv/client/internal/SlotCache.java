package io.rdmakv.client.internal;

/**
 * A direct-mapped cache of where a key's slot is and what it held, indexed by key hash. One per lane,
 * single-threaded, allocation-free.
 *
 * <p>Any entry is a good guess for a read: READ the slot and the block it names in one doorbell, and
 * accept the block only if the slot still holds the cached word and the block holds this key. An entry
 * is <em>fresh</em> while younger than half the grace period: within that time the block it names cannot
 * have been reused, so a slot still holding the cached word still holds this key, and a blind CAS
 * against it is safe.
 */
final class SlotCache
{
    private final int mask;
    private final long[] hash;
    private final long[] slotAddress;
    private final long[] word;
    private final long[] stamp;
    private final long maxAgeNanos;

    SlotCache(final int entries, final long maxAgeNanos)
    {
        if (Integer.bitCount(entries) != 1)
        {
            throw new IllegalArgumentException("entries must be a power of two: " + entries);
        }
        this.mask = entries - 1;
        this.hash = new long[entries];
        this.slotAddress = new long[entries];
        this.word = new long[entries];
        this.stamp = new long[entries];
        this.maxAgeNanos = maxAgeNanos;
    }

    /** The entry index for {@code keyHash}, or -1. */
    int lookup(final long keyHash)
    {
        final int i = (int)(keyHash ^ (keyHash >>> 32)) & mask;
        return word[i] != 0 && hash[i] == keyHash ? i : -1;
    }

    /** True when the entry may be trusted without reading the slot first. */
    boolean isFresh(final int entry, final long nowNanos)
    {
        return nowNanos - stamp[entry] < maxAgeNanos;
    }

    long slotAddress(final int entry)
    {
        return slotAddress[entry];
    }

    long word(final int entry)
    {
        return word[entry];
    }

    /**
     * Remembers that the key's slot at {@code address} holds {@code slotWord}. The stamp is when the
     * caller last saw it hold it (for a read: the start of the read).
     */
    void put(final long keyHash, final long address, final long slotWord, final long seenNanos)
    {
        final int i = (int)(keyHash ^ (keyHash >>> 32)) & mask;
        hash[i] = keyHash;
        slotAddress[i] = address;
        word[i] = slotWord;
        stamp[i] = seenNanos;
    }

    void invalidate(final long keyHash)
    {
        final int i = (int)(keyHash ^ (keyHash >>> 32)) & mask;
        if (hash[i] == keyHash)
        {
            word[i] = 0;
        }
    }
}
