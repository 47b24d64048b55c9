package io.rdmakv.testsupport.linearizability;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * Decides whether the history of one key-value register is linearizable: whether its operations
 * can be put in one order, consistent with real time (an operation answered before another was
 * invoked comes first) and with a register's sequential behaviour.
 *
 * <p>The search is Wing &amp; Gong's with Lowe's just-in-time linearization and memoization of
 * (linearized set, register state), as in Horn &amp; Kroening's and later checkers. It stops at its
 * {@link Budget} with {@link Verdict#UNKNOWN}. For a violation it then shrinks the history to its
 * shortest failing prefix (taking at most a few times as long as the search, within the budget) and
 * explains where that one gets stuck.
 *
 * <p>Immutable and thread-safe: one checker may check many histories at once.
 */
public final class LinearizabilityChecker
{
    /** Shrinking a violation may take this many times as long as finding it took ... */
    private static final long SHRINK_FACTOR = 4;
    /** ... or this long, whichever is more, within the budget. */
    private static final long SHRINK_MINIMUM_NANOS = 500_000_000L;

    private final Budget budget;
    private final boolean shrink;

    /** A checker with {@link Budget#DEFAULT} that shrinks violations. */
    public LinearizabilityChecker()
    {
        this(Budget.DEFAULT, true);
    }

    /** A checker with {@code budget} that shrinks violations. */
    public LinearizabilityChecker(final Budget budget)
    {
        this(budget, true);
    }

    /** A checker with {@code budget}; {@code shrink} says whether to look for a violation's shortest failing prefix. */
    public LinearizabilityChecker(final Budget budget, final boolean shrink)
    {
        this.budget = Objects.requireNonNull(budget, "budget");
        this.shrink = shrink;
    }

    /** The limits of each check. */
    public Budget budget()
    {
        return budget;
    }

    /** Checks {@code history} of one register that starts absent. */
    public CheckResult check(final List<Op> history)
    {
        return check(history, OptionalLong.empty());
    }

    /**
     * Checks {@code history} (any order) of one register that starts holding {@code initial} (empty:
     * absent). Reads that constrain nothing (outcome unknown) are ignored.
     */
    public CheckResult check(final List<Op> history, final OptionalLong initial)
    {
        Objects.requireNonNull(initial, "initial");
        final long start = System.nanoTime();
        final long deadline = start + Math.min(budget.time().toNanos(), Long.MAX_VALUE / 4);
        final List<Op> relevant = new ArrayList<>(history.size());
        for (final Op op : history)
        {
            if (op.writes() || op.outcome() != Outcome.UNKNOWN)
            {
                relevant.add(op);
            }
        }
        relevant.sort(Comparator.comparingLong(Op::invokeNanos).thenComparingLong(Op::responseNanos));
        final Op[] shown = relevant.toArray(Op[]::new);
        final Op[] ops = ObservedWrites.pin(shown);
        final int ignored = history.size() - ops.length;
        final Search.Result result = Search.decide(ops, initial, budget, deadline);
        return switch (result.verdict())
        {
            case LINEARIZABLE -> linearizable(shown, ignored, result, start);
            case UNKNOWN -> unknown(shown, ignored, result, start);
            case NOT_LINEARIZABLE -> violation(new Failure(initial, ops, shown, result, -1, false), ignored, start,
                deadline);
        };
    }

    private static CheckResult linearizable(final Op[] shown, final int ignored, final Search.Result result,
                                            final long start)
    {
        final Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
        final String headline = Report.headline(Verdict.LINEARIZABLE, shown, ignored, result.steps(),
            result.configurations(), elapsed);
        return new CheckResult(Verdict.LINEARIZABLE, Report.ops(shown, result.linearization()), List.of(), headline,
            result.steps(), result.configurations(), elapsed);
    }

    private static CheckResult unknown(final Op[] shown, final int ignored, final Search.Result result,
                                       final long start)
    {
        final Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
        final String headline = Report.headline(Verdict.UNKNOWN, shown, ignored, result.steps(),
            result.configurations(), elapsed);
        return new CheckResult(Verdict.UNKNOWN, Report.ops(shown, Report.furthest(result)), List.of(),
            Report.unknown(headline, result, shown.length), result.steps(), result.configurations(), elapsed);
    }

    private CheckResult violation(final Failure whole, final int ignored, final long start, final long deadline)
    {
        final long[] steps = {whole.result().steps()};
        final long searched = System.nanoTime() - start;
        final long shrinkBy = Math.min(deadline,
            System.nanoTime() + Math.max(SHRINK_FACTOR * searched, SHRINK_MINIMUM_NANOS));
        final Failure failure = shrink ? Shrinker.shrink(whole, budget, shrinkBy, steps) : whole;
        final Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
        final int configurations = whole.result().configurations();
        final String headline = Report.headline(Verdict.NOT_LINEARIZABLE, whole.shown(), ignored, steps[0],
            configurations, elapsed);
        return new CheckResult(Verdict.NOT_LINEARIZABLE, Report.partial(failure), Report.involved(failure),
            Report.violation(headline, failure), steps[0], configurations, elapsed);
    }
}
