package io.rdmakv.server.control;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * What the control agent counts. Written by the agent's thread only; read as gauges by statistics
 * and metrics (volatile, so a reader sees recent values; never atomics on the agent's path).
 */
public final class ServerCounters
{
    /** Completion status codes counted one by one; higher codes are counted under the last. */
    public static final int STATUS_CODES = 32;

    volatile long sessionsOpened;
    volatile long sessionsClosed;
    volatile long allocRequests;
    volatile long allocFailures;
    volatile long freeRequests;
    volatile long freedBlocks;
    volatile long refusedFrees;
    volatile long statsRequests;
    volatile long byeRequests;
    volatile long malformedMessages;
    volatile long completionErrors;
    volatile long reclaimedBytes;
    volatile long locksReleased;
    volatile long agentErrors;
    /** Failed completions by {@code ibv_wc_status} code (agent thread writes with release stores, no RMW). */
    private final AtomicLongArray completionErrorsByStatus = new AtomicLongArray(STATUS_CODES);

    void completionError(final int status)
    {
        completionErrors++;
        final int i = status >= 0 && status < STATUS_CODES ? status : STATUS_CODES - 1;
        completionErrorsByStatus.setRelease(i, completionErrorsByStatus.getPlain(i) + 1);
    }

    /** Failed completions with status code {@code status} ({@code enum ibv_wc_status}). */
    public long completionErrors(final int status)
    {
        return completionErrorsByStatus.getAcquire(status);
    }

    public long sessionsOpened()
    {
        return sessionsOpened;
    }

    public long sessionsClosed()
    {
        return sessionsClosed;
    }

    public long allocRequests()
    {
        return allocRequests;
    }

    public long allocFailures()
    {
        return allocFailures;
    }

    public long freeRequests()
    {
        return freeRequests;
    }

    public long freedBlocks()
    {
        return freedBlocks;
    }

    public long refusedFrees()
    {
        return refusedFrees;
    }

    public long statsRequests()
    {
        return statsRequests;
    }

    public long byeRequests()
    {
        return byeRequests;
    }

    public long malformedMessages()
    {
        return malformedMessages;
    }

    public long completionErrors()
    {
        return completionErrors;
    }

    public long reclaimedBytes()
    {
        return reclaimedBytes;
    }

    public long locksReleased()
    {
        return locksReleased;
    }

    /** Unexpected exceptions the control agent caught and survived (each is logged). */
    public long agentErrors()
    {
        return agentErrors;
    }
}
