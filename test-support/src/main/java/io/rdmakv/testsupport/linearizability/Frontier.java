package io.rdmakv.testsupport.linearizability;

/**
 * Which operations of a history the search has linearized and which are left: a bitset and a
 * list of entries for the completed operations, and the same for the outcome-unknown ones (calls
 * only: they have no response to wait for); and, per observed value, how many of the operations
 * that observe it are left.
 */
final class Frontier
{
    private final Op[] ops;
    private final EntryList completed;
    private final EntryList unknown;
    private final int[] slot;
    private final LinearizedSet completedSet;
    private final LinearizedSet unknownSet;
    private final int completedCount;
    /** Per operation: the state it observes ({@link RegisterModel#observes}), or -1. */
    private final int[] observes;
    /** Per state: how many of the operations that observe it are not linearized. */
    private final int[] observersLeft;
    private int done;

    /** Nothing of {@code ops} (in invocation order), compiled as {@code model}, linearized. */
    Frontier(final Op[] ops, final RegisterModel model)
    {
        this.ops = ops;
        this.observes = new int[ops.length];
        this.observersLeft = new int[model.states()];
        for (int i = 0; i < ops.length; i++)
        {
            observes[i] = model.observes(i);
            if (observes[i] >= 0)
            {
                observersLeft[observes[i]]++;
            }
        }
        this.completed = EntryList.completed(ops);
        this.unknown = EntryList.unknown(ops);
        this.slot = new int[ops.length];
        int c = 0;
        int u = 0;
        for (int i = 0; i < ops.length; i++)
        {
            slot[i] = ops[i].completed() ? c++ : u++;
        }
        this.completedCount = c;
        this.completedSet = new LinearizedSet(c);
        this.unknownSet = new LinearizedSet(u);
    }

    /** Whether every completed operation is linearized, which is all a linearization needs. */
    boolean complete()
    {
        return done == completedCount;
    }

    /** Linearizes {@code op}. */
    void include(final int op)
    {
        if (observes[op] >= 0)
        {
            observersLeft[observes[op]]--;
        }
        if (ops[op].completed())
        {
            completedSet.set(slot[op]);
            completed.lift(op);
            done++;
        }
        else
        {
            unknownSet.set(slot[op]);
            unknown.lift(op);
        }
    }

    /** Undoes the latest {@link #include}, of {@code op}. */
    void exclude(final int op)
    {
        if (observes[op] >= 0)
        {
            observersLeft[observes[op]]++;
        }
        if (ops[op].completed())
        {
            completedSet.clear(slot[op]);
            completed.unlift(op);
            done--;
        }
        else
        {
            unknownSet.clear(slot[op]);
            unknown.unlift(op);
        }
    }

    /** Whether {@code op} is linearized. */
    boolean contains(final int op)
    {
        return (ops[op].completed() ? completedSet : unknownSet).contains(slot[op]);
    }

    /**
     * {@code state}, or {@link RegisterModel#UNOBSERVED} if it is an observed value whose observers
     * are all linearized: no operation left tells the two apart (each accepts both or neither, and
     * leaves them as they are or replaces both alike), now or after any further linearization, so
     * configurations that differ only there have the same futures, and writes that differ only
     * there behave alike.
     */
    int canonical(final int state)
    {
        return state >= RegisterModel.FIRST_OBSERVED && observersLeft[state] == 0 ? RegisterModel.UNOBSERVED : state;
    }

    /** Remembers this configuration, with the register in {@code state}; false if {@code memo} subsumes it. */
    boolean remember(final Memo memo, final int state)
    {
        return memo.add(completedSet.probe(state), unknownSet);
    }

    /** The completed operations left, as entries in time order. */
    EntryList completed()
    {
        return completed;
    }

    /** The outcome-unknown operations left, as calls in invocation order. */
    EntryList unknown()
    {
        return unknown;
    }

    /** The first return still outstanding: everything invoked before it is a candidate. Valid while not complete. */
    int due()
    {
        return completed.firstReturn();
    }

    /** Whether outcome-unknown {@code op} was invoked by the outstanding return {@code due}, so that it may go next. */
    boolean invokedBy(final int op, final int due)
    {
        return ops[op].invokeNanos() <= ops[EntryList.op(due)].responseNanos();
    }
}
