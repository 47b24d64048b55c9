package io.rdmakv.server.bootstrap;

import java.net.InetAddress;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Slows down token guessing without ever refusing the right token: it is asked only once a token has been
 * compared and found wrong. An address that presents {@link #FREE_FAILURES} wrong tokens within
 * {@link #WINDOW_NANOS} has the refusal of each further one held back, {@link #FIRST_DELAY_NANOS} doubling with
 * every further failure up to {@link #MAX_DELAY_NANOS} (held where the {@link Tarpit} has room, else answered
 * at once). Remembers a bounded number of addresses (least recently failed forgotten first), so a flood from
 * many addresses costs bounded memory. Thread-safe; counts wrong tokens and throttled ones for the metrics.
 */
public final class AuthThrottle
{
    static final int FREE_FAILURES = 5;
    static final long WINDOW_NANOS = TimeUnit.SECONDS.toNanos(10);
    static final long FIRST_DELAY_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** Below a client's default connect timeout (5 s): a held-back refusal still reaches it with its reason. */
    static final long MAX_DELAY_NANOS = TimeUnit.SECONDS.toNanos(4);
    static final int MAX_ADDRESSES = 4096;

    /** What is remembered of one address. */
    private static final class Record
    {
        long windowStart;
        int failures;
        long delayedUntil;
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

    /**
     * {@code address} presented a wrong token: returns how long to hold its refusal back (0: a free failure,
     * answered at once); a positive delay is counted as throttled. A window of failures ends
     * {@link #WINDOW_NANOS} after it began, once the last delay has passed, so a steady flood stays throttled.
     */
    public synchronized long failed(final InetAddress address, final long nowNanos)
    {
        failures.incrementAndGet();
        final Record r = records.computeIfAbsent(address, a -> new Record());
        if (r.failures == 0 || nowNanos - r.windowStart > WINDOW_NANOS && nowNanos - r.delayedUntil >= 0)
        {
            r.windowStart = nowNanos;
            r.failures = 0;
        }
        r.failures++;
        if (r.failures <= FREE_FAILURES)
        {
            return 0;
        }
        final int doublings = Math.min(r.failures - FREE_FAILURES - 1, 6);
        final long delay = Math.min(MAX_DELAY_NANOS, FIRST_DELAY_NANOS << doublings);
        r.delayedUntil = nowNanos + delay;
        throttled.incrementAndGet();
        return delay;
    }

    /** Wrong tokens presented since start (each one read and compared). */
    public long failures()
    {
        return failures.get();
    }

    /** Wrong tokens presented past their address's free failures (their refusal held back where there was room). */
    public long throttled()
    {
        return throttled.get();
    }
}
