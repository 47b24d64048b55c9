package io.rdmakv.server.bootstrap;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * The most bootstrap connections a node holds at once: handshakes waiting for their HELLO and sessions
 * together. The acceptor takes a slot before it makes a thread for a connection and closes a connection it
 * has no slot for at once, so a flood of idle peers costs the node a bounded number of descriptors and
 * threads instead of all of them (which would end the node, and the data it holds, through the accept
 * loop's fatal path). Thread-safe: the acceptor takes slots, each connection's thread gives its own back.
 * The default limit comes from the descriptor limit ({@link io.rdmakv.server.config.ConnectionDefaults}).
 */
public final class ConnectionLimit
{
    private final int max;
    private final AtomicInteger open = new AtomicInteger();
    private final LongAdder refused = new LongAdder();

    public ConnectionLimit(final int max)
    {
        if (max < 1)
        {
            throw new IllegalArgumentException("a connection limit of " + max + ": at least 1");
        }
        this.max = max;
    }

    /** Takes a slot for a new connection; false (and counted as refused) when every slot is taken. */
    public boolean tryAcquire()
    {
        int now = open.get();
        while (now < max)
        {
            if (open.compareAndSet(now, now + 1))
            {
                return true;
            }
            now = open.get();
        }
        refused.increment();
        return false;
    }

    /** Gives back the slot of a connection that ended (once per successful {@link #tryAcquire}). */
    public void release()
    {
        if (open.decrementAndGet() < 0)
        {
            open.incrementAndGet();
            throw new IllegalStateException("a connection slot given back that was not taken");
        }
    }

    public int max()
    {
        return max;
    }

    /** Connections holding a slot now. */
    public int open()
    {
        return open.get();
    }

    /** Connections closed at accept since start because every slot was taken. */
    public long refused()
    {
        return refused.sum();
    }
}
