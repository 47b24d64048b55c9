package io.rdmakv.client.internal.op;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The shared slot cache: sets, replacement, invalidation, and entries never torn by racing lanes. */
class SlotCacheTest
{
    private static final long BASE = 1_000_000L;
    /** One stamp unit: seen times that are multiples of it come back exactly. */
    private static final long UNIT = 1024;

    private final CachedSlot.Entry found = new CachedSlot.Entry();

    @Test
    void remembersWhatItWasToldAndRoundsTheSeenTimeDown()
    {
        final SlotCache cache = new SlotCache(64, BASE);
        cache.put(42L, 0x1000L, 0x77L, BASE + 5 * UNIT + 3);
        assertTrue(cache.find(42L, found));
        assertEquals(0x1000L, found.slotAddress());
        assertEquals(0x77L, found.word());
        assertEquals(BASE + 5 * UNIT, found.seenNanos(), "an entry never looks younger than it is");
        assertFalse(cache.find(43L, found));
    }

    @Test
    void aSetHoldsFourKeysAndEvictsTheOneSeenLongestAgo()
    {
        final SlotCache cache = new SlotCache(1024, BASE);
        final long[] same = keysOfOneSet(cache, 5);
        for (int i = 0; i < 4; i++)
        {
            cache.put(same[i], 8L * i, 100 + i, BASE + (10 - i) * UNIT);
        }
        for (int i = 0; i < 4; i++)
        {
            assertTrue(cache.find(same[i], found), "way " + i);
        }
        cache.put(same[4], 64L, 200L, BASE + 20 * UNIT);
        assertTrue(cache.find(same[4], found));
        assertFalse(cache.find(same[3], found), "the oldest entry made room");
        for (int i = 0; i < 3; i++)
        {
            assertTrue(cache.find(same[i], found), "way " + i);
        }
    }

    @Test
    void anUpdateSeenEarlierThanTheEntryIsDropped()
    {
        final SlotCache cache = new SlotCache(64, BASE);
        cache.put(7L, 8L, 2L, BASE + 10 * UNIT);
        cache.put(7L, 8L, 1L, BASE + 5 * UNIT);
        assertTrue(cache.find(7L, found));
        assertEquals(2L, found.word(), "a slower lane does not put back an older word");
        cache.put(7L, 16L, 3L, BASE + 11 * UNIT);
        assertTrue(cache.find(7L, found));
        assertEquals(3L, found.word());
        assertEquals(16L, found.slotAddress());
        assertEquals(1, cache.occupied(), "one key, one entry");
    }

    @Test
    void invalidationDropsOnlyTheWordThatWasFoundWrong()
    {
        final SlotCache cache = new SlotCache(64, BASE);
        cache.put(7L, 8L, 2L, BASE + UNIT);
        cache.invalidate(7L, 1L);
        assertTrue(cache.find(7L, found), "another lane's newer word stays");
        cache.invalidate(7L, 2L);
        assertFalse(cache.find(7L, found));
        cache.put(7L, 8L, 4L, BASE + 2 * UNIT);
        cache.clear();
        assertFalse(cache.find(7L, found));
        assertEquals(0, cache.occupied());
    }

    @Test
    void sizesRoundUpZeroDisablesAndBadSizesAreRefused()
    {
        assertEquals(1024, new SlotCache(1000).capacity());
        assertEquals(SlotCache.WAYS, new SlotCache(1).capacity());
        final SlotCache off = new SlotCache(0);
        assertEquals(0, off.capacity());
        off.put(1L, 8L, 9L, System.nanoTime());
        assertFalse(off.find(1L, found));
        assertThrows(IllegalArgumentException.class, () -> new SlotCache(-1));
        assertThrows(IllegalArgumentException.class, () -> new SlotCache(SlotCache.MAX_ENTRIES + 1));
    }

    @Test
    void timesBeforeTheCacheWasMadeAreNotStored()
    {
        final SlotCache cache = new SlotCache(64, BASE);
        cache.put(7L, 8L, 2L, BASE - 1);
        assertFalse(cache.find(7L, found), "it would have looked younger than it is");
    }

    @Test
    void anEntryBeingWrittenIsNeitherReadNorWrittenByAnother()
    {
        final SlotCache cache = new SlotCache(SlotCache.WAYS, BASE);
        cache.put(7L, 8L, 2L, BASE + UNIT);
        final long[] table = cache.table();
        final long idle = table[0];
        table[0] = idle | 1;
        assertFalse(cache.find(7L, found), "a reader skips an entry another lane is writing");
        cache.put(7L, 16L, 3L, BASE + 2 * UNIT);
        table[0] = idle;
        assertTrue(cache.find(7L, found));
        assertEquals(2L, found.word(), "a writer that meets another drops its update");
        cache.put(7L, 16L, 3L, BASE + 2 * UNIT);
        assertTrue(cache.find(7L, found));
        assertEquals(3L, found.word());
        assertTrue(table[0] != idle, "every write changes the meta word (its counter), so a reader sees the overlap");
    }

    /**
     * Lanes racing on a small cache (many keys per set, constant eviction): every entry a reader finds
     * is one write, whole: slot, word and seen time all name the same key and the same write.
     */
    @Test
    void racingLanesNeverSeeATornEntry() throws Exception
    {
        final SlotCache cache = new SlotCache(64, BASE);
        final int threads = 8;
        final int keys = 96;
        final int rounds = 300_000;
        final AtomicReference<String> torn = new AtomicReference<>();
        final AtomicLong hits = new AtomicLong();
        final CountDownLatch start = new CountDownLatch(1);
        final List<Thread> lanes = new ArrayList<>();
        for (int t = 0; t < threads; t++)
        {
            final int lane = t;
            lanes.add(Thread.ofPlatform().start(() ->
            {
                final CachedSlot.Entry mine = new CachedSlot.Entry();
                final SplittableRandom random = new SplittableRandom(lane);
                try
                {
                    start.await();
                }
                catch (final InterruptedException e)
                {
                    return;
                }
                long found = 0;
                for (int i = 0; i < rounds && torn.get() == null; i++)
                {
                    final long key = 1 + random.nextInt(keys);
                    final long write = (long)lane << 32 | i;
                    switch (random.nextInt(4))
                    {
                        case 0, 1 -> cache.put(key, slotOf(key, write), wordOf(key, write), seenOf(write));
                        case 2 ->
                        {
                            if (cache.find(key, mine))
                            {
                                found++;
                                final String problem = check(key, mine);
                                if (problem != null)
                                {
                                    torn.compareAndSet(null, problem);
                                }
                                cache.invalidate(key, mine.word());
                            }
                        }
                        default ->
                        {
                            if (cache.find(key, mine))
                            {
                                found++;
                                final String problem = check(key, mine);
                                if (problem != null)
                                {
                                    torn.compareAndSet(null, problem);
                                }
                            }
                        }
                    }
                }
                hits.addAndGet(found);
            }));
        }
        start.countDown();
        for (final Thread lane : lanes)
        {
            lane.join();
        }
        assertNull(torn.get());
        assertTrue(hits.get() > 10_000, "the readers found entries (" + hits.get() + ")");
    }

    private static String check(final long key, final CachedSlot.Entry e)
    {
        final long write = e.slotAddress() / 8 - key * 1_000_003L;
        if (wordOf(key, write) != e.word() || seenOf(write) != e.seenNanos())
        {
            return "key " + key + ": slot " + e.slotAddress() + " word " + Long.toHexString(e.word()) + " seen " +
                e.seenNanos() + " are not one write";
        }
        return null;
    }

    private static long slotOf(final long key, final long write)
    {
        return (key * 1_000_003L + write) * 8;
    }

    private static long wordOf(final long key, final long write)
    {
        return (write * 31 + key) | 1L << 62;
    }

    /** Exact multiples of the stamp unit, increasing with the write (so no update counts as older). */
    private static long seenOf(final long write)
    {
        return BASE + ((write & 0xFFFFFFFFL) + (write >>> 32)) * UNIT;
    }

    private static long[] keysOfOneSet(final SlotCache cache, final int count)
    {
        final long[] keys = new long[count];
        final int set = cache.set(1L);
        int n = 0;
        for (long k = 1; n < count; k++)
        {
            if (cache.set(k) == set)
            {
                keys[n++] = k;
            }
        }
        return keys;
    }
}
