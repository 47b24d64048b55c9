package io.rdmakv.testsupport.linearizability;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * Linearizability by exhaustive enumeration, for small histories: tries every order of every set
 * of operations that includes all completed ones, as the definition says. Slow and obviously
 * right, to check the checker against.
 */
final class BruteForce
{
    private BruteForce()
    {
    }

    /** Whether {@code history} from {@code initial} has a linearization. */
    static boolean linearizable(final List<Op> history, final OptionalLong initial)
    {
        return extend(new ArrayList<>(history), initial);
    }

    private static boolean extend(final List<Op> left, final OptionalLong state)
    {
        if (left.stream().noneMatch(Op::completed))
        {
            return true;
        }
        for (int i = 0; i < left.size(); i++)
        {
            final Op next = left.get(i);
            final boolean mayGoNext = left.stream().noneMatch(o -> o.responseNanos() < next.invokeNanos());
            final OptionalLong after = mayGoNext ? SequentialRegister.apply(next, state) : null;
            if (after != null)
            {
                final List<Op> rest = new ArrayList<>(left);
                rest.remove(i);
                if (extend(rest, after))
                {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * The history as it stood at time {@code cut}: the operations invoked by then, those still
     * running then with their outcome unknown.
     */
    static List<Op> prefix(final List<Op> history, final long cut)
    {
        return history.stream().filter(op -> op.invokeNanos() <= cut)
            .map(op -> op.responseNanos() <= cut ? op : op.withUnknownOutcome()).toList();
    }

    /** Whether {@code order} is a linearization of {@code history} from {@code initial}. */
    static boolean isLinearization(final List<Op> history, final List<Op> order, final OptionalLong initial)
    {
        if (!history.stream().filter(Op::completed).allMatch(order::contains) || !history.containsAll(order)
            || SequentialRegister.run(order, initial) == null)
        {
            return false;
        }
        for (int i = 0; i < order.size(); i++)
        {
            for (int j = i + 1; j < order.size(); j++)
            {
                if (order.get(j).responseNanos() < order.get(i).invokeNanos())
                {
                    return false;
                }
            }
        }
        final List<Op> skipped = history.stream().filter(o -> !order.contains(o)).toList();
        return skipped.stream().allMatch(s -> order.stream().noneMatch(o -> s.responseNanos() < o.invokeNanos()));
    }
}
