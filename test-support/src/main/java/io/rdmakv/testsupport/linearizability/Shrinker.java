package io.rdmakv.testsupport.linearizability;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

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
    static Failure shrink(final Failure whole, final Budget budget, final long deadlineNanos, final long[] stepsTaken)
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
            final Failure probe = prefix(whole, cuts[mid], budget, deadlineNanos);
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
            return new Failure(whole.initial(), whole.ops(), whole.shown(), whole.result(),
                answeredAt(whole.ops(), whole.shown(), cuts[hi]), true);
        }
        return new Failure(best.initial(), best.ops(), best.shown(), best.result(), best.cut(), true);
    }

    private static Failure prefix(final Failure whole, final long cut, final Budget budget, final long deadlineNanos)
    {
        final Op[] ops = whole.ops();
        final List<Op> kept = new ArrayList<>();
        final List<Op> shown = new ArrayList<>();
        for (int i = 0; i < ops.length && ops[i].invokeNanos() <= cut; i++)
        {
            final Op op = ops[i];
            if (op.responseNanos() <= cut)
            {
                kept.add(op);
                shown.add(whole.shown()[i]);
            }
            else if (op.writes())
            {
                kept.add(op.withUnknownOutcome());
                shown.add(whole.shown()[i]);
            }
        }
        final Op[] prefixOps = kept.toArray(Op[]::new);
        final Op[] prefixShown = shown.toArray(Op[]::new);
        return new Failure(whole.initial(), prefixOps, prefixShown,
            Search.decide(prefixOps, whole.initial(), budget, deadlineNanos), answeredAt(prefixOps, prefixShown, cut),
            false);
    }

    /** The operation answered at {@code time}, preferring one whose response was recorded over a pinned one. */
    private static int answeredAt(final Op[] ops, final Op[] shown, final long time)
    {
        int found = -1;
        for (int i = 0; i < ops.length; i++)
        {
            if (ops[i].completed() && ops[i].responseNanos() == time)
            {
                if (shown[i].completed())
                {
                    return i;
                }
                found = found < 0 ? i : found;
            }
        }
        return found;
    }
}
