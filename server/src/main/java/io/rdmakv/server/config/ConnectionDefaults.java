package io.rdmakv.server.config;

import com.sun.management.UnixOperatingSystemMXBean;

import java.lang.management.ManagementFactory;

/**
 * The default connection limit ({@code --max-connections} 0): how many bootstrap connections (handshakes and
 * sessions together) a node holds at once, derived from the process's descriptor limit. The limit itself is
 * {@link io.rdmakv.server.bootstrap.ConnectionLimit}.
 */
public final class ConnectionDefaults
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

    private ConnectionDefaults()
    {
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
}
