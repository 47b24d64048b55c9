package io.rdmakv.server.health;

import io.rdmakv.verbs.util.FatalLatch;

import java.util.function.Consumer;

/**
 * Whether the node's listeners can serve, as their accept loops see it: a loop whose accept keeps failing
 * (descriptors or memory exhausted) marks itself impaired, so the node stops reporting ready, and clears it
 * when it recovers; a loop that cannot go on at all is fatal: the node must stop and exit non-zero with the
 * reason (a supervisor such as systemd restarts it), never linger as a ready zombie.
 */
public final class NodeHealth
{
    private final java.util.Set<String> impaired = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private final FatalLatch fatal = new FatalLatch();

    /** {@code component} (e.g. "bootstrap listener") cannot accept now, for {@code reason}. */
    public void impaired(final String component)
    {
        impaired.add(component);
    }

    /** {@code component} accepts again. */
    public void recovered(final String component)
    {
        impaired.remove(component);
    }

    /** True while every listener can accept and nothing was fatal. */
    public boolean isHealthy()
    {
        return impaired.isEmpty() && fatal.reason() == null;
    }

    /** The node cannot go on: runs the fatal listeners once, with {@code reason} (the first one counts). */
    public void fatal(final String reason)
    {
        fatal.trip(reason);
    }

    /** The first fatal reason, or null. */
    public String fatalReason()
    {
        return fatal.reason();
    }

    /** Calls {@code listener} with the reason when (or if already) the node hits a fatal error. */
    public void onFatal(final Consumer<String> listener)
    {
        fatal.onTrip(listener);
    }
}
