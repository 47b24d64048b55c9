package io.rdmakv.server.control;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The control agent's counters: one {@code long[]} indexed by {@link ServerCounter#ordinal()}, followed
 * by {@value #STATUS_CODES} counts of failed completions by {@code ibv_wc_status}.
 *
 * <p>Single writer: only the agent's thread writes, with a plain read and a release store (no atomic
 * read-modify-write on the agent's path). Any thread reads, with acquire loads (metrics at scrape time,
 * statistics, tests), and sees each value grow in order. No padding: the writer is alone and readers
 * are rare.
 */
public final class ServerCounters
{
    /** Completion status codes counted one by one; higher codes are counted under the last. */
    public static final int STATUS_CODES = 32;

    private static final VarHandle VALUES = MethodHandles.arrayElementVarHandle(long[].class);

    private final long[] values = new long[ServerCounter.COUNT + STATUS_CODES];

    /** The current value of {@code counter}. Any thread. */
    public long get(final ServerCounter counter)
    {
        return (long)VALUES.getAcquire(values, counter.ordinal());
    }

    /** Failed completions with status code {@code status} ({@code enum ibv_wc_status}). Any thread. */
    public long completionErrors(final int status)
    {
        return (long)VALUES.getAcquire(values, ServerCounter.COUNT + status);
    }

    /** Adds one to {@code counter}. Agent thread only. */
    void increment(final ServerCounter counter)
    {
        add(counter.ordinal(), 1);
    }

    /** Adds {@code delta} to {@code counter}. Agent thread only. */
    void add(final ServerCounter counter, final long delta)
    {
        add(counter.ordinal(), delta);
    }

    /** Sets a gauge. Agent thread only. */
    void set(final ServerCounter counter, final long value)
    {
        VALUES.setRelease(values, counter.ordinal(), value);
    }

    /** Counts a failed completion, in the total and under its status. Agent thread only. */
    void completionError(final int status)
    {
        add(ServerCounter.COMPLETION_ERRORS.ordinal(), 1);
        add(ServerCounter.COUNT + (status >= 0 && status < STATUS_CODES ? status : STATUS_CODES - 1), 1);
    }

    private void add(final int index, final long delta)
    {
        VALUES.setRelease(values, index, (long)VALUES.get(values, index) + delta);
    }

    // Shorthands for callers outside this module (the client module's fault tests); new code uses get().

    public long sessionsOpened()
    {
        return get(ServerCounter.SESSIONS_OPENED);
    }

    public long sessionsClosed()
    {
        return get(ServerCounter.SESSIONS_CLOSED);
    }

    public long allocRequests()
    {
        return get(ServerCounter.ALLOC_REQUESTS);
    }

    public long allocFailures()
    {
        return get(ServerCounter.ALLOC_FAILURES);
    }

    public long byeRequests()
    {
        return get(ServerCounter.BYE_REQUESTS);
    }

    public long freedBlocks()
    {
        return get(ServerCounter.FREED_BLOCKS);
    }

    public long refusedFrees()
    {
        return get(ServerCounter.REFUSED_FREES);
    }

    public long malformedMessages()
    {
        return get(ServerCounter.MALFORMED_MESSAGES);
    }

    public long completionErrors()
    {
        return get(ServerCounter.COMPLETION_ERRORS);
    }

    public long reclaimedBytes()
    {
        return get(ServerCounter.RECLAIMED_BYTES);
    }
}
