package io.rdmakv.client.linearizability;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;

/**
 * Finds the shortest failing prefix of a non-linearizable history by binary search over response
 * times. The prefix at time T holds every operation invoked by T; those still running at T become
 * outcome-unknown. Failing is monotone in T (a linearization of a longer prefix, cut where the
 * first operation invoked after T appears, is one of the shorter), so the search is exact: the
 * operation answered at the shortest failing cut cannot be linearized with everything before it.
 */
final class Shrinker
{
    private Shrinker()
    {
    }

    /** The shortest failing prefix of {@code whole}, or the shortest found before the deadline. */
    static Failure shrink(final Failure whole, final OptionalLong initial, final Budget budget, final long deadlineNanos,
                          final long[] stepsTaken)
    {
        final Op[] ops = whole.ops();
        final long[] cuts = Arrays.stream(ops).filter(Op::completed).mapToLong(Op::responseNanos)
            .sorted().distinct().toArray();
        if (cuts.length == 0)
        {
            return whole;
        }
        Failure best = whole;
        int lo = 0;
        int hi = cuts.length - 1;
        while (lo < hi)
        {
            final int mid = (lo + hi) >>> 1;
            final Failure probe = prefix(ops, cuts[mid], initial, budget, deadlineNanos);
            stepsTaken[0] += probe.result().steps();
            switch (probe.result().verdict())
            {
                case LINEARIZABLE -> lo = mid + 1;
                case NOT_LINEARIZABLE ->
                {
                    hi = mid;
                    best = probe;
                }
                case UNKNOWN ->
                {
                    return best;
                }
            }
        }
        if (best == whole)
        {
            return new Failure(whole.ops(), whole.shown(), whole.search(), whole.result(),
                answeredAt(whole.shown(), cuts[hi]), true);
        }
        return new Failure(best.ops(), best.shown(), best.search(), best.result(), best.cut(), true);
    }

    private static Failure prefix(final Op[] ops, final long cut, final OptionalLong initial, final Budget budget,
                                  final long deadlineNanos)
    {
        final List<Op> kept = new ArrayList<>();
        final List<Op> shown = new ArrayList<>();
        for (final Op op : ops)
        {
            if (op.invokeNanos() > cut)
            {
                break;
            }
            if (op.responseNanos() <= cut)
            {
                kept.add(op);
                shown.add(op);
            }
            else if (op.writes())
            {
                kept.add(op.withUnknownOutcome());
                shown.add(op);
            }
        }
        final Op[] prefixOps = kept.toArray(Op[]::new);
        final Op[] prefixShown = shown.toArray(Op[]::new);
        final Search search = new Search(prefixOps, initial, budget, deadlineNanos);
        return new Failure(prefixOps, prefixShown, search, search.run(), answeredAt(prefixShown, cut), false);
    }

    private static int answeredAt(final Op[] ops, final long time)
    {
        for (int i = 0; i < ops.length; i++)
        {
            if (ops[i].completed() && ops[i].responseNanos() == time)
            {
                return i;
            }
        }
        return -1;
    }
}
