package io.rdmakv.server.space;

import java.util.List;

/** A byte range of the data area: {@code [offset, offset + length)}, both multiples of the block alignment. */
public record Extent(long offset, long length)
{
    public long end()
    {
        return offset + length;
    }

    /** The index of the extent of {@code sorted} (disjoint, by offset) that holds {@code offset}, or -1. */
    public static int indexHolding(final List<Extent> sorted, final long offset)
    {
        int lo = 0;
        int hi = sorted.size() - 1;
        while (lo <= hi)
        {
            final int mid = (lo + hi) >>> 1;
            final Extent e = sorted.get(mid);
            if (offset < e.offset())
            {
                hi = mid - 1;
            }
            else if (offset >= e.end())
            {
                lo = mid + 1;
            }
            else
            {
                return mid;
            }
        }
        return -1;
    }
}
