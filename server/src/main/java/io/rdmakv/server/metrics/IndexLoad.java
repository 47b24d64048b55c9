package io.rdmakv.server.metrics;

import java.util.function.LongSupplier;

/**
 * Used index slots, recounted at most once per {@code maxAgeNanos}: counting walks the whole index
 * (O(index size), milliseconds per GiB of region), so scrapes share one recent count instead of each
 * paying for a walk. Thread-safe: concurrent scrapes wait for one walk.
 */
public final class IndexLoad
{
    private final LongSupplier scan;
    private final LongSupplier clock;
    private final long maxAgeNanos;
    private long usedSlots;
    private long scannedAt;
    private long scans;
    private boolean scanned;

    /**
     * @param scan        counts used slots (walks the index)
     * @param clock       nanosecond clock ({@link System#nanoTime} outside tests)
     * @param maxAgeNanos how old a count may be before the next read walks again (0: every read walks)
     */
    public IndexLoad(final LongSupplier scan, final LongSupplier clock, final long maxAgeNanos)
    {
        this.scan = scan;
        this.clock = clock;
        this.maxAgeNanos = maxAgeNanos;
    }

    /** Used slots, counted now or at most {@code maxAgeNanos} ago. */
    public synchronized long usedSlots()
    {
        final long now = clock.getAsLong();
        if (!scanned || now - scannedAt >= maxAgeNanos)
        {
            usedSlots = scan.getAsLong();
            scannedAt = now;
            scanned = true;
            scans++;
        }
        return usedSlots;
    }

    /** How many walks were made (tests). */
    public synchronized long scans()
    {
        return scans;
    }
}
