package io.rdmakv.testsupport.linearizability;

import java.util.HashMap;
import java.util.Map;

/**
 * Which operations the search tries next in a configuration, and in what order. Beyond the
 * just-in-time rule (only operations invoked before the first outstanding response), it leaves
 * out moves that are dominated by others, each for a reason that keeps the search complete:
 * <ul>
 * <li>An observer (a get, a failed compare-and-set, a delete that found nothing) that fits the
 * state is taken at once and alone: moving it to the front of any linearization from here keeps
 * that a linearization.</li>
 * <li>Of completed writes that behave alike, only the one due first: swapping two such writes in a
 * linearization keeps every real-time order, and every state as far as the operations left can
 * tell.</li>
 * <li>Outcome-unknown operations come after the completed ones, so configurations that skip them
 * are reached first and subsume those that take them; of those that behave alike only the earliest
 * invoked (once invoked they are interchangeable, none has a deadline); an unconditional one never
 * right after another (it would erase it); and only one that lets some candidate do what it cannot
 * do now.</li>
 * </ul>
 * Writes behave alike when they do from the configuration on: a write of an observed value whose
 * observers are all linearized acts like a write of an unobserved one ({@link Frontier#canonical}).
 * Without that, each lost write that was observed only by operations long done (say, by its
 * client's next compare-and-set, which expects the value the client wrote last, and failed) would
 * stay a move of its own to the end of the history, and wherever the search backtracked it would
 * try each of them, and their combinations.
 *
 * <p>Writes are tried most urgent first: by their own deadline, or that of an observer they let fit.
 */
final class Moves
{
    private final Op[] ops;
    private final RegisterModel model;
    private final Frontier frontier;
    private final long[] behaviour;
    private final int[] sameBehaviourBefore;
    private final int[] observers;
    private final int[] representatives;
    private final boolean gambles;

    /** Moves over {@code ops}, linearized as {@code frontier} says; outcome-unknown ones only if {@code gambles}. */
    Moves(final Op[] ops, final RegisterModel model, final Frontier frontier, final boolean gambles)
    {
        this.gambles = gambles;
        this.ops = ops;
        this.model = model;
        this.frontier = frontier;
        this.behaviour = new long[ops.length];
        this.sameBehaviourBefore = new int[ops.length];
        this.observers = new int[ops.length];
        this.representatives = new int[ops.length];
        final Map<Long, Integer> last = new HashMap<>();
        for (int i = 0; i < ops.length; i++)
        {
            behaviour[i] = model.behaviour(i);
            sameBehaviourBefore[i] = -1;
            if (!ops[i].completed())
            {
                final Integer before = last.put(behaviour[i], i);
                sameBehaviourBefore[i] = before == null ? -1 : before;
            }
        }
    }

    /** A candidate observer that fits {@code state}, or -1. */
    int fittingObserver(final int state)
    {
        final EntryList completed = frontier.completed();
        for (int e = completed.first(); EntryList.isCall(e); e = completed.next(e))
        {
            final int op = EntryList.op(e);
            if (model.isObserver(op) && model.step(op, state) != RegisterModel.REJECTED)
            {
                return op;
            }
        }
        return -1;
    }

    /**
     * Adds to {@code level} the writes worth trying in {@code state}, where no observer fits;
     * {@code afterGamble} says whether the configuration was reached by an outcome-unknown operation.
     */
    void list(final CandidateStack level, final int state, final boolean afterGamble)
    {
        final EntryList completed = frontier.completed();
        final int due = frontier.due();
        int count = 0;
        for (int e = completed.first(); e != due; e = completed.next(e))
        {
            if (model.isObserver(EntryList.op(e)))
            {
                observers[count++] = EntryList.op(e);
            }
        }
        for (int e = completed.first(); e != due; e = completed.next(e))
        {
            final int op = EntryList.op(e);
            if (!model.isObserver(op) && model.step(op, state) != RegisterModel.REJECTED && firstDue(op, due))
            {
                level.add(op, urgency(op, state, count));
            }
        }
        if (!gambles)
        {
            return;
        }
        final EntryList unknown = frontier.unknown();
        int representatives = 0;
        for (int e = unknown.first(); e != EntryList.NIL && frontier.invokedBy(EntryList.op(e), due);
             e = unknown.next(e))
        {
            if (firstInvoked(EntryList.op(e)) && !behavesLikeAny(EntryList.op(e), representatives))
            {
                this.representatives[representatives++] = EntryList.op(e);
            }
        }
        for (int i = 0; i < representatives; i++)
        {
            final int op = this.representatives[i];
            final int after = frontier.canonical(model.step(op, state));
            if (after != state && (!afterGamble || model.isConditional(op))
                && enablesAny(state, after, due, representatives))
            {
                level.add(op, Long.MAX_VALUE);
            }
        }
    }

    /** Whether no other candidate behaves like completed {@code op} and is due sooner. */
    private boolean firstDue(final int op, final int due)
    {
        final long mine = ops[op].responseNanos();
        final long like = behaviourNow(op);
        final EntryList completed = frontier.completed();
        for (int e = completed.first(); e != due; e = completed.next(e))
        {
            final int other = EntryList.op(e);
            final long theirs = ops[other].responseNanos();
            if (other != op && (theirs < mine || theirs == mine && other < op) && behaviourNow(other) == like)
            {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether outcome-unknown {@code op} is the earliest invoked of those that behave like it for
     * the whole history and are left (cheap, the first sieve) ...
     */
    private boolean firstInvoked(final int op)
    {
        final int before = sameBehaviourBefore[op];
        return before < 0 || frontier.contains(before);
    }

    /** ... and whether it behaves from here on like one of the first {@code count} representatives, invoked earlier. */
    private boolean behavesLikeAny(final int op, final int count)
    {
        final long like = behaviourNow(op);
        for (int i = 0; i < count; i++)
        {
            if (behaviourNow(representatives[i]) == like)
            {
                return true;
            }
        }
        return false;
    }

    /** What {@code op} does from here on: its behaviour, with the state it leaves {@link Frontier#canonical}. */
    private long behaviourNow(final int op)
    {
        final int argument = model.argument(op);
        final int canonical = frontier.canonical(argument);
        return canonical == argument ? behaviour[op] : model.behaviour(op, canonical);
    }

    /** {@code op}'s deadline, or that of a candidate observer it lets fit if sooner; the first {@code count} of observers are those. */
    private long urgency(final int op, final int state, final int count)
    {
        final int after = model.step(op, state);
        long due = ops[op].responseNanos();
        for (int i = 0; i < count; i++)
        {
            if (model.step(observers[i], after) != RegisterModel.REJECTED)
            {
                due = Math.min(due, ops[observers[i]].responseNanos());
            }
        }
        return due;
    }

    /**
     * Whether moving the register from {@code state} to {@code after} lets some candidate do what
     * it cannot do now: happen at all, or (a compare-and-set whose result is unknown) happen
     * differently. If not, every configuration the move leads to is subsumed by one reached
     * without it: no observer fits now, and every other write gives the same state from both or
     * is rejected after the move. Of the outcome-unknown operations only the first
     * {@code representatives} need asking: the others behave like one of them.
     */
    private boolean enablesAny(final int state, final int after, final int due, final int representatives)
    {
        final EntryList completed = frontier.completed();
        for (int e = completed.first(); e != due; e = completed.next(e))
        {
            if (enables(EntryList.op(e), state, after))
            {
                return true;
            }
        }
        for (int i = 0; i < representatives; i++)
        {
            if (enables(this.representatives[i], state, after))
            {
                return true;
            }
        }
        return false;
    }

    private boolean enables(final int op, final int state, final int after)
    {
        final int now = model.step(op, state);
        final int then = model.step(op, after);
        return then != RegisterModel.REJECTED && (now == RegisterModel.REJECTED
            || model.isConditional(op) && ops[op].outcome() == Outcome.UNKNOWN && now != then);
    }
}
