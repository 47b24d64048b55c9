package io.rdmakv.verbs.ibverbs;

import io.rdmakv.verbs.ibverbs.bindings.CallState;
import io.rdmakv.verbs.ibverbs.bindings.IbvConstants;
import io.rdmakv.verbs.ibverbs.bindings.LibIbverbs;
import io.rdmakv.verbs.ibverbs.layout.IbvGidEntry;
import io.rdmakv.verbs.resource.Errno;
import io.rdmakv.verbs.resource.VerbsException;
import io.rdmakv.verbs.ibverbs.IbvContext.GidEntry;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * The GID table of the one port an {@link IbvContext} uses: the whole table, one entry, and the choice
 * of the entry its queue pairs send from (made once, when the context opens).
 */
final class IbvPortGids
{
    private final MemorySegment context;
    private final String deviceName;
    private final int port;
    private final int portCount;
    private final int gidTableLength;

    IbvPortGids(
        final MemorySegment context, final String deviceName, final int port, final int portCount,
        final int gidTableLength)
    {
        this.context = context;
        this.deviceName = deviceName;
        this.port = port;
        this.portCount = portCount;
        this.gidTableLength = gidTableLength;
    }

    /** The valid entries of the port's table ({@code _ibv_query_gid_table}: one call for the whole table). */
    List<GidEntry> table()
    {
        try (Arena arena = Arena.ofConfined())
        {
            return table(arena, CallState.allocate(arena));
        }
    }

    List<GidEntry> table(final Arena arena, final MemorySegment state)
    {
        final int max = Math.max(1, gidTableLength) * portCount; // the call returns the entries of every port
        final MemorySegment entries = arena.allocate(IbvGidEntry.LAYOUT, max);
        final long n = LibIbverbs.ibvQueryGidTable(state, context, entries, max);
        if (n < 0)
        {
            throw new VerbsException("ibv_query_gid_table", (int)-n, "GID table of device " + deviceName);
        }
        final List<GidEntry> table = new ArrayList<>();
        for (int i = 0; i < n; i++)
        {
            final MemorySegment entry = entries.asSlice((long)i * IbvGidEntry.SIZE, IbvGidEntry.SIZE);
            if (entry.get(JAVA_INT, IbvGidEntry.PORT_NUM) == port)
            {
                table.add(new GidEntry(entry.get(JAVA_INT, IbvGidEntry.GID_INDEX),
                    entry.asSlice(IbvGidEntry.GID, 16).toArray(JAVA_BYTE), entry.get(JAVA_INT, IbvGidEntry.GID_TYPE)));
            }
        }
        return table;
    }

    /** Entry {@code index} of the port's table ({@code _ibv_query_gid_ex}); throws when it is empty. */
    GidEntry query(final int index)
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment state = CallState.allocate(arena);
            final MemorySegment entry = arena.allocate(IbvGidEntry.LAYOUT);
            final int rc = LibIbverbs.ibvQueryGidEx(state, context, port, index, entry);
            if (rc != 0)
            {
                final int errno = CallState.errnoOf(rc, state);
                throw new VerbsException("ibv_query_gid_ex", errno, "GID index " + index + " of port " + port +
                    " of device " + deviceName + (errno == IbvConstants.ENODATA ? " is empty" : ""));
            }
            return new GidEntry(index, entry.asSlice(IbvGidEntry.GID, 16).toArray(JAVA_BYTE),
                entry.get(JAVA_INT, IbvGidEntry.GID_TYPE));
        }
    }

    /**
     * InfiniBand: GID index 0. RoCE: the first RoCE v2 entry, preferring an IPv4-mapped address
     * ({@code ::ffff:a.b.c.d}, what rdma_cm uses for IPv4), then a non-link-local IPv6 one, then any;
     * RoCE v1 only when there is no v2 entry.
     */
    GidEntry choose(final Arena arena, final MemorySegment state, final boolean ethernet)
    {
        if (!ethernet)
        {
            return query(0);
        }
        GidEntry best = null;
        int bestRank = Integer.MAX_VALUE;
        for (final GidEntry entry : table(arena, state))
        {
            final int rank = rank(entry);
            if (rank < bestRank)
            {
                best = entry;
                bestRank = rank;
            }
        }
        if (best == null)
        {
            throw new VerbsException("ibv_query_gid_table", Errno.ENODEV, "port " + port + " of device " +
                deviceName + " has no usable GID (is the Ethernet interface up and addressed?)");
        }
        return best;
    }

    private static int rank(final GidEntry entry)
    {
        final byte[] g = entry.gid();
        boolean zero = true;
        for (final byte b : g)
        {
            zero &= b == 0;
        }
        if (zero)
        {
            return Integer.MAX_VALUE;
        }
        boolean ipv4Mapped = g[10] == (byte)0xff && g[11] == (byte)0xff;
        for (int i = 0; i < 10; i++)
        {
            ipv4Mapped &= g[i] == 0;
        }
        final boolean linkLocal = g[0] == (byte)0xfe && (g[1] & 0xc0) == 0x80;
        final int base = entry.type() == IbvConstants.IBV_GID_TYPE_ROCE_V2 ? 0 : 10;
        return base + (ipv4Mapped ? 0 : linkLocal ? 2 : 1);
    }
}
