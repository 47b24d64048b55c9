package io.rdmakv.server.config;

import java.util.Locale;

/**
 * How clients change a node's index ({@code --write-path}): with their own RDMA compare-and-swap (one-sided), or by
 * asking the node to CAS for them over the session's control channel (SLOT_CAS, node-assisted), for a device
 * without remote atomics. Blocks are WRITTEN one-sided and GETs read one-sided either way.
 */
public enum WritePath
{
    /** One-sided where the device has remote atomics (atomic capability HCA or GLOB), node-assisted where it has none. */
    AUTO,
    /** Clients CAS the index themselves; a node on a device without remote atomics refuses to start. */
    ONE_SIDED,
    /** Clients send every index CAS to the node as SLOT_CAS, whatever the device (to test or measure the path). */
    NODE_ASSISTED;

    /** The command line's spelling: {@code auto}, {@code one-sided}, {@code node-assisted}. */
    public String label()
    {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** Parses {@code auto|one-sided|node-assisted} (any case); null when it is none of them. */
    public static WritePath parse(final String text)
    {
        for (final WritePath path : values())
        {
            if (path.label().equalsIgnoreCase(text == null ? "" : text.trim()))
            {
                return path;
            }
        }
        return null;
    }

    /**
     * Whether a node with this setting on a device of {@code atomicCapability} ({@code NONE}, {@code HCA},
     * {@code GLOB}) has its clients write node-assisted.
     *
     * @throws IllegalArgumentException for {@link #ONE_SIDED} on a device without remote atomics (every write would
     *     fail)
     */
    public boolean nodeAssistedOn(final String atomicCapability)
    {
        final boolean none = "NONE".equals(atomicCapability);
        if (this == ONE_SIDED && none)
        {
            throw new IllegalArgumentException("--write-path one-sided on a device without remote atomics (atomic " +
                "capability NONE): clients could not CAS the index, every write would fail; use auto or node-assisted");
        }
        return this == NODE_ASSISTED || (this == AUTO && none);
    }
}
