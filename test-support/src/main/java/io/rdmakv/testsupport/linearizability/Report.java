package io.rdmakv.testsupport.linearizability;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;

/** Writes the readable explanation of a check. Times are nanoseconds since the history's first invocation. */
final class Report
{
    private static final int PREFIX_SHOWN = 12;
    private static final int NEIGHBOURS_SHOWN = 40;

    private Report()
    {
    }

    /** The first line: verdict and size of the history. */
    static String headline(final Verdict verdict, final Op[] ops, final int ignored, final long steps,
                           final int configurations, final Duration elapsed)
    {
        final long processes = Arrays.stream(ops).mapToInt(Op::process).distinct().count();
        final long unknown = Arrays.stream(ops).filter(op -> !op.completed()).count();
        return verdict.name().replace('_', ' ') + ": " + ops.length + " ops from " + processes + " processes ("
            + unknown + " with unknown outcome, " + ignored + " unconstrained reads ignored); " + steps + " steps, "
            + configurations + " configurations, " + elapsed.toMillis() + " ms";
    }

    /** Why the budget ran out, and how far the search got. */
    static String unknown(final String headline, final Search.Result result, final int size)
    {
        return headline + "\nbudget exceeded (" + result.limit() + ") before a decision; the deepest partial"
            + " linearization reached " + furthest(result).length + " of " + size + " ops";
    }

    /** The longest partial linearization a search reached: where it stopped, or its deepest dead end. */
    static int[] furthest(final Search.Result result)
    {
        final Search.DeadEnd deepest = result.deepest();
        return deepest == null || deepest.prefix().length <= result.linearization().length
            ? result.linearization() : deepest.prefix();
    }

    /** The operations at {@code indices} of {@code ops}, in that order. */
    static List<Op> ops(final Op[] ops, final int[] indices)
    {
        final List<Op> picked = new ArrayList<>(indices.length);
        for (final int i : indices)
        {
            picked.add(ops[i]);
        }
        return picked;
    }

    /** The operation that cannot be linearized, then the operations overlapping it. */
    static List<Op> involved(final Failure failure)
    {
        final Op[] shown = failure.shown();
        final int stuck = stuckOp(failure);
        final List<Op> involved = new ArrayList<>();
        involved.add(shown[stuck]);
        for (final int i : overlapping(shown, stuck))
        {
            involved.add(shown[i]);
        }
        return involved;
    }

    /** The deepest partial linearization of a failure, as recorded. */
    static List<Op> partial(final Failure failure)
    {
        return ops(failure.shown(), failure.result().deepest().prefix());
    }

    /** The explanation of a violation. */
    static String violation(final String headline, final Failure failure)
    {
        final Op[] shown = failure.shown();
        final long origin = shown[0].invokeNanos();
        final Search.DeadEnd dead = failure.result().deepest();
        final StringBuilder out = new StringBuilder(headline).append('\n');
        if (failure.cut() >= 0)
        {
            out.append(failure.shortest() ? "Shortest failing prefix" : "Shortest failing prefix found (shrinking ran"
                    + " out of budget)").append(": the ").append(shown.length)
                .append(" ops invoked up to the response of\n    ").append(show(failure, failure.cut(), origin))
                .append("\n  (ops still running then count as outcome-unknown; the history up to just before that"
                    + " response is linearizable)\n");
        }
        final int[] prefix = dead.prefix();
        final List<Op> order = new ArrayList<>();
        for (final int i : prefix)
        {
            order.add(failure.ops()[i]);
        }
        final OptionalLong register = SequentialRegister.run(order, failure.initial());
        out.append("Deepest partial linearization: ").append(prefix.length).append(" ops");
        if (prefix.length > PREFIX_SHOWN)
        {
            out.append(", the last ").append(PREFIX_SHOWN).append(" shown");
        }
        out.append('\n');
        for (int k = Math.max(0, prefix.length - PREFIX_SHOWN); k < prefix.length; k++)
        {
            out.append(String.format("  %5d. ", k + 1)).append(show(failure, prefix[k], origin)).append('\n');
        }
        out.append("  register then: ").append(register == null ? "?" : Op.show(register)).append('\n');
        out.append("Stuck at the response of ").append(show(failure, dead.blocking(), origin))
            .append("\nOps that could come next, and why none fits:\n");
        for (final int c : dead.candidates())
        {
            final Op op = failure.ops()[c];
            final String why = register != null && SequentialRegister.apply(op, register) == null
                ? SequentialRegister.whyRejected(op, register)
                : "fits, but every continuation was already explored and failed";
            out.append("    ").append(show(failure, c, origin)).append(": ").append(why).append('\n');
        }
        final int stuck = stuckOp(failure);
        out.append("Ops overlapping ").append(shown[stuck].describe()).append(" (* = in the partial linearization):\n");
        final boolean[] in = new boolean[shown.length];
        for (final int i : prefix)
        {
            in[i] = true;
        }
        final List<Integer> neighbours = overlapping(shown, stuck);
        if (neighbours.isEmpty())
        {
            out.append("    (none)\n");
        }
        for (final int i : neighbours.subList(0, Math.min(NEIGHBOURS_SHOWN, neighbours.size())))
        {
            out.append(in[i] ? "  * " : "    ").append(show(failure, i, origin)).append('\n');
        }
        if (neighbours.size() > NEIGHBOURS_SHOWN)
        {
            out.append("    ... and ").append(neighbours.size() - NEIGHBOURS_SHOWN).append(" more\n");
        }
        return out.toString();
    }

    /** Operation {@code i} as recorded, noting when an observation pinned down its unknown outcome. */
    private static String show(final Failure failure, final int i, final long origin)
    {
        final Op recorded = failure.shown()[i];
        final Op searched = failure.ops()[i];
        final String text = recorded.describe(origin);
        return !recorded.completed() && searched.completed()
            ? text + ", observed by " + (searched.responseNanos() - origin) : text;
    }

    /** The operation the failure is pinned on: the one answered at the cut, else the one the search stuck at. */
    private static int stuckOp(final Failure failure)
    {
        return failure.cut() >= 0 ? failure.cut() : failure.result().deepest().blocking();
    }

    private static List<Integer> overlapping(final Op[] ops, final int of)
    {
        final List<Integer> found = new ArrayList<>();
        for (int i = 0; i < ops.length; i++)
        {
            if (i != of && ops[i].invokeNanos() <= ops[of].responseNanos()
                && ops[of].invokeNanos() <= ops[i].responseNanos())
            {
                found.add(i);
            }
        }
        return found;
    }
}
