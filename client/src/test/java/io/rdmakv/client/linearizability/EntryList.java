package io.rdmakv.client.linearizability;

import java.util.Arrays;
import java.util.Comparator;

/**
 * The calls and returns of a history in time order, as a doubly linked list from which the search
 * lifts an operation (both its entries) when it linearizes it and puts it back when it backtracks.
 * Entry {@code 2 * op} is the call of {@code op} and {@code 2 * op + 1} its return; at equal times a
 * call comes before a return, so operations that touch in time count as concurrent.
 */
final class EntryList
{
    /** The end of the list. */
    static final int NIL = -1;

    private final int head;
    private final int[] next;
    private final int[] prev;

    /** The entries of {@code ops}. */
    EntryList(final Op[] ops)
    {
        final int n = ops.length;
        head = 2 * n;
        next = new int[2 * n + 1];
        prev = new int[2 * n + 1];
        final Integer[] order = new Integer[2 * n];
        for (int e = 0; e < 2 * n; e++)
        {
            order[e] = e;
        }
        final Comparator<Integer> byTime = Comparator
            .comparingLong((Integer e) -> isCall(e) ? ops[op(e)].invokeNanos() : ops[op(e)].responseNanos())
            .thenComparingInt(e -> e & 1)
            .thenComparingInt(e -> e);
        Arrays.sort(order, byTime);
        int last = head;
        for (final int e : order)
        {
            next[last] = e;
            prev[e] = last;
            last = e;
        }
        next[last] = NIL;
    }

    static boolean isCall(final int entry)
    {
        return (entry & 1) == 0;
    }

    static int op(final int entry)
    {
        return entry >>> 1;
    }

    static int callOf(final int op)
    {
        return 2 * op;
    }

    /** The first entry still in the list, or {@link #NIL}. */
    int first()
    {
        return next[head];
    }

    int next(final int entry)
    {
        return next[entry];
    }

    /** Takes both entries of {@code op} out of the list. */
    void lift(final int op)
    {
        unlink(2 * op);
        unlink(2 * op + 1);
    }

    /** Puts back the entries of the operation lifted last. */
    void unlift(final int op)
    {
        relink(2 * op + 1);
        relink(2 * op);
    }

    private void unlink(final int e)
    {
        next[prev[e]] = next[e];
        if (next[e] != NIL)
        {
            prev[next[e]] = prev[e];
        }
    }

    private void relink(final int e)
    {
        next[prev[e]] = e;
        if (next[e] != NIL)
        {
            prev[next[e]] = e;
        }
    }
}
