package io.rdmakv.systemtests;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Bounded polling for conditions another thread (a server's agent, a child process) makes true. */
public final class Await
{
    private static final long POLL_NANOS = 2_000_000L;

    private Await()
    {
    }

    /**
     * Polls {@code condition} until it holds or {@code timeout} passes; fails with {@code what} and the
     * last {@code state} otherwise. Returns the nanoseconds it took.
     */
    public static long until(final String what, final Duration timeout, final BooleanSupplier condition,
        final Supplier<String> state)
    {
        final long start = System.nanoTime();
        final long deadline = start + timeout.toNanos();
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() - deadline > 0)
            {
                throw new AssertionError("not within " + timeout.toMillis() + " ms: " + what + " (" + state.get() +
                    ")");
            }
            LockSupport.parkNanos(POLL_NANOS);
        }
        return System.nanoTime() - start;
    }

    public static long until(final String what, final Duration timeout, final BooleanSupplier condition)
    {
        return until(what, timeout, condition, () -> "condition still false");
    }
}
