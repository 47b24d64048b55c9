package io.rdmakv.verbs.util;

import java.util.concurrent.TimeUnit;

/**
 * What an accept loop does when {@code accept} fails (out of file descriptors, say): back off, doubling
 * from {@link #MIN_BACKOFF_NANOS} to {@link #MAX_BACKOFF_NANOS} instead of spinning, and give up (the
 * owner's fatal path) once it has failed without a break for the given time. One per loop, its thread only.
 */
public final class AcceptFailures
{
    public static final long MIN_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(5);
    public static final long MAX_BACKOFF_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** Give up after this long without a successful accept. */
    public static final long DEFAULT_FATAL_AFTER_NANOS = TimeUnit.SECONDS.toNanos(5);

    /** {@link #failed} when the loop should stop: it has failed for too long. */
    public static final long GIVE_UP = -1;

    private final long fatalAfterNanos;
    private boolean failing;
    private long failingSince;
    private long backoffNanos;

    public AcceptFailures(final long fatalAfterNanos)
    {
        this.fatalAfterNanos = fatalAfterNanos;
    }

    /** An accept succeeded; returns true when it ends a run of failures (the loop recovered). */
    public boolean succeeded()
    {
        final boolean recovered = failing;
        failing = false;
        backoffNanos = 0;
        return recovered;
    }

    /** True when {@link #failed} is about to start a run of failures (none since the last success). */
    public boolean healthy()
    {
        return !failing;
    }

    /** An accept failed at {@code nowNanos}: how long to back off, or {@link #GIVE_UP}. */
    public long failed(final long nowNanos)
    {
        if (!failing)
        {
            failing = true;
            failingSince = nowNanos; // nanoTime may be any value, 0 included: the flag says whether it is set
        }
        if (nowNanos - failingSince >= fatalAfterNanos)
        {
            return GIVE_UP;
        }
        backoffNanos = Math.clamp(2 * backoffNanos, MIN_BACKOFF_NANOS, MAX_BACKOFF_NANOS);
        return backoffNanos;
    }

    /** The give-up time, in whole seconds (for the fatal message). */
    public long fatalAfterSeconds()
    {
        return TimeUnit.NANOSECONDS.toSeconds(fatalAfterNanos);
    }
}
