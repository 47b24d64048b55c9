package io.rdmakv.server.region;

import io.rdmakv.server.config.MemoryWindowMode;
import io.rdmakv.verbs.MemoryWindow;
import io.rdmakv.verbs.ProtectionDomain;
import io.rdmakv.verbs.resource.VerbsException;

/** Decides at start whether the node writes grants through memory windows ({@link MemoryWindowMode}). */
public final class MemoryWindowProbe
{
    private static final System.Logger LOG = System.getLogger(MemoryWindowProbe.class.getName());

    private MemoryWindowProbe()
    {
    }

    /**
     * True when {@code mode} asks for windows and the device allocates one (tried once, then deallocated).
     *
     * @throws IllegalStateException for {@link MemoryWindowMode#ON} on a device without windows, naming the
     *                               device's answer and the way out
     */
    public static boolean decide(final MemoryWindowMode mode, final ProtectionDomain pd, final String provider)
    {
        if (mode == MemoryWindowMode.OFF)
        {
            LOG.log(System.Logger.Level.INFO, "memory windows off (--memory-windows=off): every session may " +
                "write the whole data area");
            return false;
        }
        try (MemoryWindow probe = pd.allocMemoryWindow())
        {
            LOG.log(System.Logger.Level.INFO, "memory windows on: each grant is writable only by its session " +
                "(probe rkey " + Integer.toHexString(probe.rkey()) + ")");
            return true;
        }
        catch (final VerbsException e)
        {
            if (mode == MemoryWindowMode.ON)
            {
                throw new IllegalStateException("--memory-windows=on, but the " + provider + " device has no " +
                    "memory windows (" + e.getMessage() + "); start with --memory-windows=auto or off to let every " +
                    "session write the whole data area");
            }
            LOG.log(System.Logger.Level.WARNING, "memory windows off: the " + provider + " device has none (" +
                e.getMessage() + "); every session may write the whole data area");
            return false;
        }
    }
}
