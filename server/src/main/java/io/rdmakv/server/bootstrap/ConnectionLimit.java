package io.rdmakv.server.bootstrap;

import com.sun.management.UnixOperatingSystemMXBean;

import java.lang.management.ManagementFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * The most bootstrap connections a node holds at once: handshakes waiting for their HELLO and sessions
 * together. The acceptor takes a slot before it makes a thread for a connection and closes a connection it
 * has no slot for at once, so a flood of idle peers costs the node a bounded number of descriptors and
 * threads instead of all of them (which would end the node, and the data it holds, through the accept
 * loop's fatal path). Thread-safe: the acceptor takes slots, each connection's thread gives its own back.
 */
public final class ConnectionLimit
{
    /**
     * Descriptors one session costs on the {@code tcp} provider: its bootstrap socket and the two sockets of
     * its queue pair (the one the node opens at RTR and the one the client opens to the node). The
     * {@code ibverbs} provider costs fewer; the default is sized for the costlier one.
     */
    public static final int DESCRIPTORS_PER_SESSION = 3;
    /**
     * Descriptors left to the node itself: the JVM (its jars, libraries, epoll pollers), the region, the
     * transport's listener and selectors, the metrics endpoint and its scrapes, ZooKeeper, logs.
     */
    public static final int RESERVED_DESCRIPTORS = 128;
    /** The default never goes above this, however high the descriptor limit (threads and memory bound it too). */
    public static final int MAX_DEFAULT = 16_384;
    /** The default when the descriptor limit cannot be read (not a Unix JVM). */
    public static final int UNKNOWN_DESCRIPTORS_DEFAULT = 1_024;

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

    /**
     * The default limit for a process that may open {@code maxDescriptors} files (0 or less: unknown):
     * what is left after {@link #RESERVED_DESCRIPTORS}, shared by sessions of {@link #DESCRIPTORS_PER_SESSION}
     * each, at least 1 and at most {@link #MAX_DEFAULT}.
     */
    public static int defaultFor(final long maxDescriptors)
    {
        if (maxDescriptors <= 0)
        {
            return UNKNOWN_DESCRIPTORS_DEFAULT;
        }
        return (int)Math.clamp((maxDescriptors - RESERVED_DESCRIPTORS) / DESCRIPTORS_PER_SESSION, 1, MAX_DEFAULT);
    }

    /** This process's descriptor limit, or -1 when the JVM does not say. */
    public static long processDescriptorLimit()
    {
        return ManagementFactory.getOperatingSystemMXBean() instanceof UnixOperatingSystemMXBean unix ?
            unix.getMaxFileDescriptorCount() : -1;
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
