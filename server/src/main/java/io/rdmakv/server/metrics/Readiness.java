package io.rdmakv.server.metrics;

/**
 * Whether the node serves: false while starting, true once the region is registered and the listener
 * accepts clients, false again from the moment shutdown begins. Read by {@code /ready} and
 * {@code rdmakv_ready}.
 */
public final class Readiness
{
    private volatile boolean ready;
    private volatile boolean stopping;

    /** The region is registered and clients are accepted. */
    public void ready()
    {
        ready = true;
    }

    /** Shutdown began: not ready any more, for good. */
    public void stopping()
    {
        stopping = true;
        ready = false;
    }

    public boolean isReady()
    {
        return ready && !stopping;
    }

    public boolean isStopping()
    {
        return stopping;
    }
}
