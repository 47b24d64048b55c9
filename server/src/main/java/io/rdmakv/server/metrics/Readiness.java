package io.rdmakv.server.metrics;

/**
 * Whether the node serves: false while starting, true once the region is registered and the listener
 * accepts clients, false while a listener cannot accept and from the moment shutdown begins. Read by
 * {@code /ready} and {@code rdmakv_ready}.
 */
public final class Readiness
{
    private volatile boolean ready;
    private volatile boolean stopping;
    private volatile java.util.function.BooleanSupplier healthy = () -> true;

    /** Ready only while {@code check} also holds (e.g. the listeners can accept). */
    public void requires(final java.util.function.BooleanSupplier check)
    {
        healthy = check;
    }

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
        return ready && !stopping && healthy.getAsBoolean();
    }

    public boolean isStopping()
    {
        return stopping;
    }
}
