package io.rdmakv.server.bootstrap;

import java.net.InetAddress;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Slows down token guessing: an address that fails authentication {@link #FREE_FAILURES} times within
 * {@link #WINDOW_NANOS} is refused without a look at its token for a while, doubling with every further
 * failure up to {@link #MAX_BLOCK_NANOS}; a success forgets it. Remembers a bounded number of addresses
 * (least recently failed forgotten first), so a flood from many addresses costs bounded memory.
 * Thread-safe; counts failures and throttled attempts for the metrics.
 */
public final class AuthThrottle
{
    static final int FREE_FAILURES = 5;
    static final long WINDOW_NANOS = TimeUnit.SECONDS.toNanos(10);
    static final long FIRST_BLOCK_NANOS = TimeUnit.SECONDS.toNanos(1);
    static final long MAX_BLOCK_NANOS = TimeUnit.SECONDS.toNanos(60);
    static final int MAX_ADDRESSES = 4096;

    /** What is remembered of one address. */
    private static final class Record
    {
        long windowStart;
        int failures;
        long blockedUntil;
    }

    private final Map<InetAddress, Record> records = new LinkedHashMap<>(64, 0.75f, true)
    {
        @Override
        protected boolean removeEldestEntry(final Map.Entry<InetAddress, Record> eldest)
        {
            return size() > MAX_ADDRESSES;
        }
    };
    private final AtomicLong failures = new AtomicLong();
    private final AtomicLong throttled = new AtomicLong();

    /** Nanoseconds until {@code address} may try again (0: now); counts a throttled attempt when positive. */
    public synchronized long blockedFor(final InetAddress address, final long nowNanos)
    {
        final Record r = records.get(address);
        final long wait = r == null ? 0 : Math.max(0, r.blockedUntil - nowNanos);
        if (wait > 0)
        {
            throttled.incrementAndGet();
        }
        return wait;
    }

    /** {@code address} presented a wrong token; returns how many times in its current window. */
    public synchronized int failed(final InetAddress address, final long nowNanos)
    {
        failures.incrementAndGet();
        final Record r = records.computeIfAbsent(address, a -> new Record());
        if (r.failures == 0 || nowNanos - r.windowStart > WINDOW_NANOS && r.blockedUntil - nowNanos <= 0)
        {
            r.windowStart = nowNanos;
            r.failures = 0;
        }
        r.failures++;
        if (r.failures >= FREE_FAILURES)
        {
            final int doublings = Math.min(r.failures - FREE_FAILURES, 6);
            r.blockedUntil = nowNanos + Math.min(MAX_BLOCK_NANOS, FIRST_BLOCK_NANOS << doublings);
        }
        return r.failures;
    }

    /** {@code address} authenticated: its failures are forgotten. */
    public synchronized void succeeded(final InetAddress address)
    {
        records.remove(address);
    }

    /** Wrong tokens presented since start. */
    public long failures()
    {
        return failures.get();
    }

    /** Attempts refused unread because their address was throttled. */
    public long throttled()
    {
        return throttled.get();
    }
}
