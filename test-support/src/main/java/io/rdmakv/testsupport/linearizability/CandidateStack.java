package io.rdmakv.testsupport.linearizability;

import java.util.Arrays;

/**
 * The candidates of each configuration on the search path that still has alternatives, in the
 * order they are to be tried: one level per configuration, all levels in one array.
 */
final class CandidateStack
{
    private int[] pool = new int[1024];
    private long[] keys = new long[1024];
    private int top;
    private int[] start = new int[64];
    private int[] next = new int[64];
    private int[] end = new int[64];
    private int levels;

    /** Starts a new level. */
    void open()
    {
        if (levels == start.length)
        {
            start = Arrays.copyOf(start, levels * 2);
            next = Arrays.copyOf(next, levels * 2);
            end = Arrays.copyOf(end, levels * 2);
        }
        start[levels] = top;
        next[levels] = top;
    }

    /** Adds a candidate to the level being opened; lower keys are tried first, equal keys in the order added. */
    void add(final int op, final long key)
    {
        if (top == pool.length)
        {
            pool = Arrays.copyOf(pool, top * 2);
            keys = Arrays.copyOf(keys, top * 2);
        }
        int i = top++;
        while (i > start[levels] && keys[i - 1] > key)
        {
            pool[i] = pool[i - 1];
            keys[i] = keys[i - 1];
            i--;
        }
        pool[i] = op;
        keys[i] = key;
    }

    /** Finishes opening the level. */
    void seal()
    {
        end[levels] = top;
        levels++;
    }

    /** The next candidate of the top level, or -1 when it has none left. */
    int take()
    {
        final int level = levels - 1;
        return next[level] < end[level] ? pool[next[level]++] : -1;
    }

    /** Drops the top level. */
    void drop()
    {
        levels--;
        top = start[levels];
    }
}
