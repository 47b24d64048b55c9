package io.rdmakv.client.linearizability;

import java.util.Arrays;
import java.util.HashSet;
import java.util.OptionalLong;
import java.util.Set;

/**
 * One Wing &amp; Gong search for a linearization, with Lowe's just-in-time pruning and memoization
 * of configurations: it tries, in time order, only the operations invoked before the first
 * outstanding response, linearizes one whose result the register allows, and backtracks when it
 * reaches a response it could not place. A configuration (set of linearized operations, register
 * state) it has seen before is never explored again. Operations whose response is at infinity need
 * not be linearized: the search succeeds once every completed operation is.
 */
final class Search
{
    private static final int CLOCK_MASK = 4095;

    private final Op[] ops;
    private final RegisterModel model;
    private final EntryList entries;
    private final LinearizedSet linearized;
    private final Set<LinearizedSet.Key> seen = new HashSet<>();
    private final int[] stackOp;
    private final int[] stackState;
    private final long deadlineNanos;
    private final Budget budget;
    private final int completed;
    private int depth;
    private DeadEnd deepest;

    /** A search over {@code ops} (in invocation order) from {@code initial}, giving up at {@code deadlineNanos}. */
    Search(final Op[] ops, final OptionalLong initial, final Budget budget, final long deadlineNanos)
    {
        this.ops = ops;
        this.model = new RegisterModel(ops, initial);
        this.entries = new EntryList(ops);
        this.linearized = new LinearizedSet(ops.length);
        this.stackOp = new int[ops.length];
        this.stackState = new int[ops.length];
        this.budget = budget;
        this.deadlineNanos = deadlineNanos;
        int c = 0;
        for (final Op op : ops)
        {
            c += op.completed() ? 1 : 0;
        }
        this.completed = c;
    }

    /** Where the search got stuck: after {@code prefix}, in {@code state}, at the response of {@code blocking}. */
    record DeadEnd(int[] prefix, int state, int blocking, int[] candidates)
    {
    }

    /**
     * What a search found.
     *
     * @param verdict       the answer
     * @param linearization the linearization (when there is one), else the current partial one
     * @param deepest       the dead end with the longest partial linearization, or null if none was hit
     * @param steps         operations tried
     * @param configurations distinct configurations reached
     * @param limit         which limit stopped an {@link Verdict#UNKNOWN} search, else null
     */
    record Result(Verdict verdict, int[] linearization, DeadEnd deepest, long steps, int configurations, String limit)
    {
    }

    RegisterModel model()
    {
        return model;
    }

    Result run()
    {
        int state = model.initial();
        int entry = entries.first();
        int done = 0;
        long steps = 0;
        while (done < completed)
        {
            steps++;
            final String limit = exceeded(steps);
            if (limit != null)
            {
                return result(Verdict.UNKNOWN, steps, limit);
            }
            if (EntryList.isCall(entry))
            {
                final int op = EntryList.op(entry);
                final int after = model.step(op, state);
                if (after != RegisterModel.REJECTED)
                {
                    linearized.set(op);
                    if (seen.add(linearized.key(after)))
                    {
                        stackOp[depth] = op;
                        stackState[depth] = state;
                        depth++;
                        done += ops[op].completed() ? 1 : 0;
                        state = after;
                        entries.lift(op);
                        entry = entries.first();
                        continue;
                    }
                    linearized.clear(op);
                }
                entry = entries.next(entry);
            }
            else
            {
                noteDeadEnd(entry, state);
                if (depth == 0)
                {
                    return result(Verdict.NOT_LINEARIZABLE, steps, null);
                }
                depth--;
                final int op = stackOp[depth];
                state = stackState[depth];
                done -= ops[op].completed() ? 1 : 0;
                linearized.clear(op);
                entries.unlift(op);
                entry = entries.next(EntryList.callOf(op));
            }
        }
        return result(Verdict.LINEARIZABLE, steps, null);
    }

    private String exceeded(final long steps)
    {
        if (steps > budget.maxSteps())
        {
            return "step limit " + budget.maxSteps();
        }
        if (seen.size() > budget.maxConfigurations())
        {
            return "configuration limit " + budget.maxConfigurations();
        }
        if ((steps & CLOCK_MASK) == 0 && System.nanoTime() - deadlineNanos > 0)
        {
            return "time limit " + budget.time();
        }
        return null;
    }

    private void noteDeadEnd(final int returnEntry, final int state)
    {
        if (deepest != null && deepest.prefix().length >= depth)
        {
            return;
        }
        int count = 0;
        for (int e = entries.first(); e != returnEntry; e = entries.next(e))
        {
            count++;
        }
        final int[] candidates = new int[count];
        int i = 0;
        for (int e = entries.first(); e != returnEntry; e = entries.next(e))
        {
            candidates[i++] = EntryList.op(e);
        }
        deepest = new DeadEnd(Arrays.copyOf(stackOp, depth), state, EntryList.op(returnEntry), candidates);
    }

    private Result result(final Verdict verdict, final long steps, final String limit)
    {
        return new Result(verdict, Arrays.copyOf(stackOp, depth), deepest, steps, seen.size(), limit);
    }
}
