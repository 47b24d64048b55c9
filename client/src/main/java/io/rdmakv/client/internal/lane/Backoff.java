package io.rdmakv.client.internal.lane;

import java.util.concurrent.locks.LockSupport;

/** Bounded back-off between attempts of an operation that lost a race: spin, then yield, then park. */
public final class Backoff
{
    /** How many times an operation retries after lost races before it gives up. */
    public static final int MAX_ATTEMPTS = 1000;

    private Backoff()
    {
    }

    public static void pause(final int attempt)
    {
        if (attempt < 4)
        {
            Thread.onSpinWait();
        }
        else if (attempt < 16)
        {
            Thread.yield();
        }
        else
        {
            LockSupport.parkNanos(1_000L << Math.min(attempt - 16, 10));
        }
    }
}
