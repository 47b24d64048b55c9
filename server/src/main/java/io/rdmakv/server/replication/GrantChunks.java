package io.rdmakv.server.replication;

import java.util.Arrays;

/**
 * The mover grants one copy has taken (each an extent of this node's data area, taken whole by {@link
 * PartitionCopier}), so that {@link TargetChain} can tell which grant a block it WRITEs to a backup lies in: the
 * window it binds there is over that grant. Grows by doubling when a grant is taken (never per block); forgotten when
 * the grants are given back or handed over. Not thread-safe: the copier's worker.
 */
final class GrantChunks
{
    private long[] offsets = new long[16];
    private long[] ends = new long[16];
    private int count;

    /** The grant {@code [offset, end)} was taken. */
    void add(final long offset, final long end)
    {
        if (count == offsets.length)
        {
            offsets = Arrays.copyOf(offsets, count * 2);
            ends = Arrays.copyOf(ends, count * 2);
        }
        offsets[count] = offset;
        ends[count] = end;
        count++;
    }

    /**
     * The index of a grant holding all of {@code [offset, offset + length)}, the newest first (where new blocks go);
     * -1 when none does.
     */
    int find(final long offset, final int length)
    {
        for (int i = count - 1; i >= 0; i--)
        {
            if (offsets[i] <= offset && offset + length <= ends[i])
            {
                return i;
            }
        }
        return -1;
    }

    long offset(final int chunk)
    {
        return offsets[chunk];
    }

    long end(final int chunk)
    {
        return ends[chunk];
    }

    /** Grants taken and not given back. */
    int count()
    {
        return count;
    }

    /** The grants were given back or handed over. */
    void clear()
    {
        count = 0;
    }
}
