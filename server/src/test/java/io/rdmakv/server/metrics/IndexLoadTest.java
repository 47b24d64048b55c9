package io.rdmakv.server.metrics;

import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;

class IndexLoadTest
{
    @Test
    void walksTheIndexAtMostOncePerMaxAge()
    {
        final AtomicLong clock = new AtomicLong(1_000);
        final AtomicLong used = new AtomicLong(7);
        final IndexLoad load = new IndexLoad(used::get, clock::get, 100);
        assertEquals(7, load.usedSlots());
        used.set(9);
        clock.addAndGet(99);
        assertEquals(7, load.usedSlots(), "a count younger than max age is reused");
        assertEquals(1, load.scans());
        clock.addAndGet(1);
        assertEquals(9, load.usedSlots(), "a count as old as max age is redone");
        assertEquals(2, load.scans());
    }

    @Test
    void aMaxAgeOfZeroWalksEveryTime()
    {
        final AtomicLong used = new AtomicLong();
        final IndexLoad load = new IndexLoad(used::incrementAndGet, () -> 5, 0);
        assertEquals(1, load.usedSlots());
        assertEquals(2, load.usedSlots());
    }
}
