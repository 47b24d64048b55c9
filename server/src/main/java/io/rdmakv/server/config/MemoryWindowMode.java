package io.rdmakv.server.config;

import java.util.Locale;

/**
 * Whether a node scopes remote write access per session with type-2 memory windows ({@code
 * --memory-windows}). With windows the data area is remotely writable by nobody and each grant is writable
 * only through a window bound on its session's queue pair; without, every session writes the whole data
 * area with one rkey.
 */
public enum MemoryWindowMode
{
    /** Windows where the device can allocate one; otherwise off, with a warning at start. */
    AUTO,
    /** Windows, or the node refuses to start. */
    ON,
    /** No windows: the data area's own rkey grants WRITE to every session. */
    OFF;

    /** The command line's spelling: {@code auto}, {@code on}, {@code off}. */
    public String label()
    {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * Parses {@code auto|on|off} (any case; {@code true} and {@code false} too: a YAML 1.1 file turns an
     * unquoted {@code on}/{@code off} into them); null when it is none of them.
     */
    public static MemoryWindowMode parse(final String text)
    {
        if ("true".equalsIgnoreCase(text))
        {
            return ON;
        }
        if ("false".equalsIgnoreCase(text))
        {
            return OFF;
        }
        for (final MemoryWindowMode mode : values())
        {
            if (mode.label().equalsIgnoreCase(text == null ? "" : text.trim()))
            {
                return mode;
            }
        }
        return null;
    }
}
