package io.rdmakv.testsupport.linearizability;

import java.util.Arrays;
import java.util.OptionalLong;

/**
 * One Wing &amp; Gong search for a linearization, with Lowe's just-in-time linearization and
 * memoization of configurations (set of linearized operations, register state). It walks forward
 * linearizing one candidate at a time ({@link Moves} says which), backtracks at a dead end (the
 * first outstanding response is due and no candidate is left), and never explores a configuration
 * it has reached before, or one that such a configuration subsumes ({@link Memo}). It succeeds
 * once every completed operation is linearized: outcome-unknown ones are optional. The path is an
 * explicit stack, so long histories need no deep recursion.
 */
final class Search
{
    private static final int CLOCK_MASK = 1023;
    /**
     * The first search of {@link #decide}, without outcome-unknown operations, may take this many
     * steps per operation (where it finds a linearization it mostly takes a few dozen) ...
     */
    private static final long PROBE_STEPS_PER_OP = 100;
    /** ... and at least this many. */
    private static final long PROBE_MIN_STEPS = 10_000;
    /** An observer taken alone: if what follows fails, so does the configuration before it. */
    private static final byte FORCED = 0;
    /** A completed write, one of several candidates. */
    private static final byte CHOSEN = 1;
    /** An outcome-unknown operation, one of several candidates. */
    private static final byte GAMBLED = 2;

    private final Op[] ops;
    private final RegisterModel model;
    private final Frontier frontier;
    private final Moves moves;
    private final Memo memo = new Memo();
    private final CandidateStack candidates = new CandidateStack();
    private final int[] pathOp;
    private final int[] pathState;
    private final byte[] pathKind;
    private final Budget budget;
    private final long deadlineNanos;
    private int depth;
    private int state;
    private DeadEnd deepest;

    /**
     * Decides whether {@code ops} (in invocation order) from {@code initial} are linearizable,
     * giving up at {@code deadlineNanos}. Outcome-unknown operations make the search much wider,
     * and usually a linearization needs none of them: so a first search leaves them all out. It
     * gets a quarter of the time and {@link #PROBE_STEPS_PER_OP} steps per operation: where no
     * linearization without them exists, it could only find that out by exploring every
     * configuration up to where it fails, which on a long, heavily overlapping history can take
     * many times what the full search takes. Unless it finds a linearization, the full search runs.
     */
    static Result decide(final Op[] ops, final OptionalLong initial, final Budget budget, final long deadlineNanos)
    {
        if (Arrays.stream(ops).allMatch(Op::completed))
        {
            return new Search(ops, initial, budget, deadlineNanos, true).run();
        }
        final long now = System.nanoTime();
        final long probeSteps = Math.max(PROBE_MIN_STEPS, PROBE_STEPS_PER_OP * ops.length);
        final Result without = new Search(ops, initial, budget.withMaxSteps(Math.min(budget.maxSteps(), probeSteps)),
            now + (deadlineNanos - now) / 4, false).run();
        if (without.verdict() == Verdict.LINEARIZABLE)
        {
            return without;
        }
        final Result with = new Search(ops, initial, budget, deadlineNanos, true).run();
        return new Result(with.verdict(), with.linearization(), with.deepest(), without.steps() + with.steps(),
            with.configurations(), with.limit());
    }

    /** A search over {@code ops} from {@code initial} that tries outcome-unknown operations if {@code gambles}. */
    private Search(final Op[] ops, final OptionalLong initial, final Budget budget, final long deadlineNanos,
                   final boolean gambles)
    {
        this.ops = ops;
        this.model = new RegisterModel(ops, initial);
        this.frontier = new Frontier(ops, model);
        this.moves = new Moves(ops, model, frontier, gambles);
        this.pathOp = new int[ops.length];
        this.pathState = new int[ops.length];
        this.pathKind = new byte[ops.length];
        this.budget = budget;
        this.deadlineNanos = deadlineNanos;
        this.state = frontier.canonical(model.initial());
    }

    /**
     * Where the search got stuck: after the operations {@code prefix}, in model state
     * {@code state}, the response of {@code blocking} was due and none of {@code candidates} led
     * anywhere.
     */
    record DeadEnd(int[] prefix, int state, int blocking, int[] candidates)
    {
    }

    /**
     * What a search found.
     *
     * @param verdict        the answer
     * @param linearization  the linearization (when there is one), else the partial one where the search stopped
     * @param deepest        the dead end with the longest partial linearization, or null if none was hit
     * @param steps          search steps (of all searches that decided)
     * @param configurations distinct configurations remembered
     * @param limit          which limit stopped an {@link Verdict#UNKNOWN} search, else null
     */
    record Result(Verdict verdict, int[] linearization, DeadEnd deepest, long steps, int configurations, String limit)
    {
    }

    Result run()
    {
        frontier.remember(memo, state);
        boolean entering = true;
        long steps = 0;
        while (!frontier.complete())
        {
            steps++;
            final String limit = exceeded(steps);
            if (limit != null)
            {
                return result(Verdict.UNKNOWN, steps, limit);
            }
            if (entering)
            {
                entering = false;
                final int observer = moves.fittingObserver(state);
                if (observer < 0)
                {
                    candidates.open();
                    moves.list(candidates, state, depth > 0 && pathKind[depth - 1] == GAMBLED);
                    candidates.seal();
                }
                else if (push(observer, FORCED))
                {
                    entering = true;
                }
                else if (!backtrack())
                {
                    return result(Verdict.NOT_LINEARIZABLE, steps, null);
                }
                continue;
            }
            final int op = candidates.take();
            if (op >= 0)
            {
                entering = push(op, ops[op].completed() ? CHOSEN : GAMBLED);
                continue;
            }
            noteDeadEnd();
            candidates.drop();
            if (!backtrack())
            {
                return result(Verdict.NOT_LINEARIZABLE, steps, null);
            }
        }
        return result(Verdict.LINEARIZABLE, steps, null);
    }

    /**
     * Linearizes {@code op} next if its result allows and that reaches a configuration not yet
     * explored. The state is kept {@link Frontier#canonical}: a value nothing left observes is no
     * different from an unobserved one.
     */
    private boolean push(final int op, final byte kind)
    {
        final int stepped = model.step(op, state);
        if (stepped == RegisterModel.REJECTED)
        {
            return false;
        }
        frontier.include(op);
        final int after = frontier.canonical(stepped);
        if (!frontier.remember(memo, after))
        {
            frontier.exclude(op);
            return false;
        }
        pathOp[depth] = op;
        pathState[depth] = state;
        pathKind[depth] = kind;
        depth++;
        state = after;
        return true;
    }

    /** Undoes linearizations up to the last one that left alternatives; false if there is none. */
    private boolean backtrack()
    {
        while (depth > 0)
        {
            depth--;
            frontier.exclude(pathOp[depth]);
            state = pathState[depth];
            if (pathKind[depth] != FORCED)
            {
                return true;
            }
        }
        return false;
    }

    private String exceeded(final long steps)
    {
        if (steps > budget.maxSteps())
        {
            return "step limit " + budget.maxSteps();
        }
        if (memo.size() > budget.maxConfigurations())
        {
            return "configuration limit " + budget.maxConfigurations();
        }
        if ((steps & CLOCK_MASK) == 0 && System.nanoTime() - deadlineNanos > 0)
        {
            return "time limit " + budget.time();
        }
        return null;
    }

    /** Records this dead end if it is the deepest yet. */
    private void noteDeadEnd()
    {
        if (deepest != null && deepest.prefix().length >= depth)
        {
            return;
        }
        final int due = frontier.due();
        final EntryList completed = frontier.completed();
        final EntryList unknown = frontier.unknown();
        final int[] found = new int[ops.length];
        int count = 0;
        for (int e = completed.first(); e != due; e = completed.next(e))
        {
            found[count++] = EntryList.op(e);
        }
        for (int e = unknown.first(); e != EntryList.NIL && frontier.invokedBy(EntryList.op(e), due);
             e = unknown.next(e))
        {
            found[count++] = EntryList.op(e);
        }
        deepest = new DeadEnd(Arrays.copyOf(pathOp, depth), state, EntryList.op(due), Arrays.copyOf(found, count));
    }

    private Result result(final Verdict verdict, final long steps, final String limit)
    {
        return new Result(verdict, Arrays.copyOf(pathOp, depth), deepest, steps, memo.size(), limit);
    }
}
