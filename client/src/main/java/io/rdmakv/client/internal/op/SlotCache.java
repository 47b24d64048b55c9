package io.rdmakv.client.internal.op;

import io.rdmakv.common.layout.SlotWord;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Where keys' slots are and what they held, shared by every lane of a client: set-associative
 * ({@value #WAYS} ways), indexed by key hash, one {@code long[]} of {@value #STRIDE}-long entries
 * {@code [meta, hash, slotAddress, word]}. No locks and no allocation on any path.
 *
 * <p><b>What an entry means.</b> The key whose hash is {@code hash} was seen in the slot at
 * {@code slotAddress} holding {@code word}, at the time in {@code meta}. It is only a hint: every use
 * re-checks it against the node (a GET READs the slot with the block and accepts only an unchanged word
 * naming a block with this key; a write's CAS succeeds only on exactly the cached word). The one use that
 * trusts an entry without a READ is a blind CAS from an entry seen less than half the grace period ago
 * ({@link CachedSlot}): its block cannot have been freed and reused in that time, so a slot still holding
 * the word still holds this key. That is why an entry's four words must never mix two writes: a word
 * from one observation with the stamp of a later one would make an old word look fresh.
 *
 * <p><b>Why a seqlock.</b> {@code meta} packs the stamp (microseconds since this cache was made, 47 bits,
 * rounded down, so an entry only ever looks older than it is), a 16-bit write counter and a busy bit.
 * A writer CASes meta from an idle value to busy (and gives up if it loses: dropping an update of a hint
 * is always allowed, it only costs a later miss), stores hash, slot and word, and publishes the new meta
 * with a release store (new stamp, counter + 1). A reader loads meta with acquire, skips it if busy,
 * loads the three fields, issues a load fence and loads meta again: equal means no write overlapped
 * (StampedLock's optimistic read, the same fences). A write that overlapped changes the counter, and an
 * undetected overlap would need 65,536 completed writes of one entry between two loads of one reader.
 * Entries are never torn; slot addresses are only valid for the node region they were seen in, so a client
 * whose node restarted with a new region calls {@link #clear()} ({@code Router} does).
 *
 * <p>Replacement: the way holding the same key, else an empty way, else the way seen longest ago. An
 * update of the same key with an older stamp than the entry's is dropped (a slower lane does not put back
 * a word that a faster one already replaced). Capacity 0 disables the cache (every lookup misses).
 */
public final class SlotCache
{
    /** Ways per set: a set is two cache lines. */
    static final int WAYS = 4;
    /** Longs per entry. */
    static final int STRIDE = 4;
    /** The most entries a client may ask for (2^26: 2 GiB of heap). */
    public static final int MAX_ENTRIES = 1 << 26;
    /** A disabled cache. */
    static final SlotCache DISABLED = new SlotCache(0);

    private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);
    private static final int META = 0;
    private static final int HASH = 1;
    private static final int SLOT = 2;
    private static final int WORD = 3;
    private static final long BUSY = 1L;
    private static final int COUNTER_SHIFT = 1;
    private static final long COUNTER_MASK = 0xFFFFL << COUNTER_SHIFT;
    private static final int STAMP_SHIFT = 17;
    /** Stamp units: 2^10 ns (about a microsecond); 47 bits of them last 4.5 years. */
    private static final int NANOS_SHIFT = 10;

    private final long[] table;
    private final int setMask;
    private final long baseNanos;

    /**
     * A cache of {@code entries} entries, rounded up to a power of two (at least {@value #WAYS}), or a
     * disabled cache for 0.
     */
    public SlotCache(final int entries)
    {
        this(entries, System.nanoTime());
    }

    SlotCache(final int entries, final long baseNanos)
    {
        if (entries < 0 || entries > MAX_ENTRIES)
        {
            throw new IllegalArgumentException("slot cache entries must be 0 (off) to " + MAX_ENTRIES + ": " + entries);
        }
        final int capacity = entries == 0 ? 0 : Math.max(WAYS, Integer.highestOneBit(entries - 1) << 1);
        this.table = new long[capacity * STRIDE];
        this.setMask = capacity / WAYS - 1;
        this.baseNanos = baseNanos;
    }

    /** How many entries it holds at most (0: disabled). */
    public int capacity()
    {
        return table.length / STRIDE;
    }

    /**
     * Copies the entry of {@code keyHash} into {@code into} (slot address, word, when it was seen) and
     * returns true, or returns false when there is none (or it was being written just now).
     */
    boolean find(final long keyHash, final CachedSlot.Entry into)
    {
        if (setMask < 0)
        {
            return false;
        }
        final int set = set(keyHash);
        for (int way = 0; way < WAYS; way++)
        {
            final int e = set + way * STRIDE;
            if ((long)LONGS.getOpaque(table, e + HASH) != keyHash)
            {
                continue;
            }
            final long meta = (long)LONGS.getAcquire(table, e + META);
            final long hash = (long)LONGS.getOpaque(table, e + HASH);
            final long slot = (long)LONGS.getOpaque(table, e + SLOT);
            final long word = (long)LONGS.getOpaque(table, e + WORD);
            VarHandle.loadLoadFence();
            if ((meta & BUSY) != 0 || (long)LONGS.getVolatile(table, e + META) != meta || hash != keyHash || word == 0)
            {
                return false;
            }
            into.set(slot, word, seenNanos(meta));
            return true;
        }
        return false;
    }

    /**
     * Remembers that the key's slot at {@code slotAddress} held {@code word} at {@code seenNanos} (for a
     * read: when it started; for a CAS: when the operation began).
     */
    void put(final long keyHash, final long slotAddress, final long word, final long seenNanos)
    {
        if (setMask < 0 || SlotWord.isMoving(word))
        {
            // a frozen word is never cached: the cached path (READ the slot, accept only the cached word) must miss
            // on every slot of a frozen partition and fall back to the group READ, which sees a MOVED mark
            return;
        }
        if (seenNanos < baseNanos)
        {
            return;
        }
        final long stamp = stampOf(seenNanos);
        final int set = set(keyHash);
        int victim = -1;
        long victimStamp = Long.MAX_VALUE;
        for (int way = 0; way < WAYS; way++)
        {
            final int e = set + way * STRIDE;
            final long meta = (long)LONGS.getOpaque(table, e + META);
            if ((long)LONGS.getOpaque(table, e + HASH) == keyHash && (long)LONGS.getOpaque(table, e + WORD) != 0)
            {
                if (stamp < (meta >>> STAMP_SHIFT))
                {
                    return;
                }
                victim = e;
                break;
            }
            final long age = (long)LONGS.getOpaque(table, e + WORD) == 0 ? -1 : meta >>> STAMP_SHIFT;
            if (age < victimStamp)
            {
                victimStamp = age;
                victim = e;
            }
        }
        write(victim, keyHash, slotAddress, word, stamp);
    }

    /** Drops the entry of {@code keyHash} if it still holds {@code word} (a newer one is left alone). */
    void invalidate(final long keyHash, final long word)
    {
        if (setMask < 0)
        {
            return;
        }
        final int set = set(keyHash);
        for (int way = 0; way < WAYS; way++)
        {
            final int e = set + way * STRIDE;
            if ((long)LONGS.getOpaque(table, e + HASH) == keyHash && (long)LONGS.getOpaque(table, e + WORD) == word)
            {
                final long meta = (long)LONGS.getOpaque(table, e + META);
                write(e, keyHash, 0L, 0L, meta >>> STAMP_SHIFT);
                return;
            }
        }
    }

    /** Drops every entry (control path: a node's region changed). Entries written meanwhile may stay. */
    public void clear()
    {
        for (int e = 0; e < table.length; e += STRIDE)
        {
            if ((long)LONGS.getOpaque(table, e + WORD) != 0)
            {
                write(e, 0L, 0L, 0L, 0L);
            }
        }
    }

    /** Entries that hold a slot now (control path: walks the table; for tests and statistics). */
    int occupied()
    {
        int n = 0;
        for (int e = 0; e < table.length; e += STRIDE)
        {
            if ((long)LONGS.getOpaque(table, e + WORD) != 0)
            {
                n++;
            }
        }
        return n;
    }

    /** The table itself (tests look at and set an entry's meta word). */
    long[] table()
    {
        return table;
    }

    /** The seqlock write of entry {@code e}; gives up (drops the update) when another writer holds it. */
    private void write(final int e, final long keyHash, final long slotAddress, final long word, final long stamp)
    {
        final long meta = (long)LONGS.getVolatile(table, e + META);
        if ((meta & BUSY) != 0 || !LONGS.compareAndSet(table, e + META, meta, meta | BUSY))
        {
            return;
        }
        LONGS.setOpaque(table, e + HASH, keyHash);
        LONGS.setOpaque(table, e + SLOT, slotAddress);
        LONGS.setOpaque(table, e + WORD, word);
        final long counter = (meta + (1L << COUNTER_SHIFT)) & COUNTER_MASK;
        LONGS.setRelease(table, e + META, stamp << STAMP_SHIFT | counter);
    }

    /** The first long of the set of {@code keyHash} in the table. */
    int set(final long keyHash)
    {
        final long mixed = keyHash ^ (keyHash >>> 29) ^ (keyHash >>> 47);
        return ((int)mixed & setMask) * WAYS * STRIDE;
    }

    /** Rounded down: an entry never looks younger than it is. (Times before the base are not stored.) */
    private long stampOf(final long nanos)
    {
        return (nanos - baseNanos) >>> NANOS_SHIFT;
    }

    private long seenNanos(final long meta)
    {
        return baseNanos + ((meta >>> STAMP_SHIFT) << NANOS_SHIFT);
    }
}
