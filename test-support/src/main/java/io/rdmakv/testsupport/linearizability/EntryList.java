package io.rdmakv.testsupport.linearizability;

import java.util.Arrays;
import java.util.Comparator;
import java.util.stream.IntStream;

/**
 * Entries of a history in time order, as a doubly linked list from which the search lifts an
 * operation when it linearizes it and puts it back when it backtracks. Entry {@code 2 * op} is the
 * call of {@code op} and {@code 2 * op + 1} its return; at equal times a call comes before a
 * return, so operations that touch in time count as concurrent.
 *
 * <p>The search keeps two lists: the calls and returns of the completed operations, and the calls
 * alone of the operations whose outcome is unknown (they have no return to wait for).
 */
final class EntryList
{
    /** The end of the list. */
    static final int NIL = -1;

    private final int head;
    private final int[] next;
    private final int[] prev;
    private final boolean withReturns;

    private EntryList(final Op[] ops, final boolean completed)
    {
        final int n = ops.length;
        head = 2 * n;
        next = new int[2 * n + 1];
        prev = new int[2 * n + 1];
        withReturns = completed;
        final Integer[] order = IntStream.range(0, 2 * n)
            .filter(e -> ops[op(e)].completed() == completed && (completed || isCall(e)))
            .boxed().toArray(Integer[]::new);
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

    /** The calls and returns of the completed operations among {@code ops}. */
    static EntryList completed(final Op[] ops)
    {
        return new EntryList(ops, true);
    }

    /** The calls of the operations among {@code ops} whose outcome is unknown. */
    static EntryList unknown(final Op[] ops)
    {
        return new EntryList(ops, false);
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

    /** The first return still in the list, or {@link #NIL}. */
    int firstReturn()
    {
        int e = first();
        while (e != NIL && isCall(e))
        {
            e = next[e];
        }
        return e;
    }

    /** Takes the entries of {@code op} out of the list. */
    void lift(final int op)
    {
        unlink(2 * op);
        if (withReturns)
        {
            unlink(2 * op + 1);
        }
    }

    /** Puts back the entries of the operation lifted last. */
    void unlift(final int op)
    {
        if (withReturns)
        {
            relink(2 * op + 1);
        }
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
