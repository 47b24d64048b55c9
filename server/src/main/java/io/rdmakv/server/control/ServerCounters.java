package io.rdmakv.server.control;

/**
 * What the control agent counts. Written by the agent's thread only; read as gauges by statistics
 * and metrics (volatile, so a reader sees recent values; never atomics on the agent's path).
 */
public final class ServerCounters
{
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
}
