package io.rdmakv.verbs.util;

import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * The first reason something cannot go on, kept once and told to every listener once, also to those that
 * register after it happened. Thread-safe.
 */
public final class FatalLatch
{
    private final CopyOnWriteArrayList<Consumer<String>> listeners = new CopyOnWriteArrayList<>();
    private volatile String reason;

    /** Records {@code why} unless a reason is already kept; tells the listeners the first time. */
    public void trip(final String why)
    {
        synchronized (this)
        {
            if (reason != null)
            {
                return;
            }
            reason = why;
        }
        listeners.forEach(l -> l.accept(why));
    }

    /** Calls {@code listener} with the reason when (or, if already, now) the latch trips. */
    public void onTrip(final Consumer<String> listener)
    {
        listeners.add(listener);
        final String why = reason;
        if (why != null)
        {
            listener.accept(why);
        }
    }

    /** The first reason, or null. */
    public String reason()
    {
        return reason;
    }
}
