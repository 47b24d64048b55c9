package io.rdmakv.testsupport.linearizability;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;

/**
 * The sequential specification of one register, compiled for one history: every value the history
 * observes gets a small state number, so that a model state is an {@code int} and a step is a few
 * comparisons. Values written but never observed (no get returns them, no compare-and-set expects
 * them) all behave alike for every operation of the history, so they share one state,
 * {@link #UNOBSERVED}: the search then meets fewer distinct configurations. So does an observed
 * value once every operation that observes it is linearized ({@link Frontier#canonical}).
 */
final class RegisterModel
{
    /** The state of a register that holds no value. */
    static final int ABSENT = 0;
    /** The state of a register that holds a value no operation of the history observes. */
    static final int UNOBSERVED = 1;
    /** The states from this one up are observed values. */
    static final int FIRST_OBSERVED = 2;
    /** What {@link #step} returns when the operation cannot happen in the state. */
    static final int REJECTED = -1;

    private final Map<Long, Integer> ids = new HashMap<>();
    private final Op[] ops;
    private final int[] argument;
    private final int[] comparand;
    private final int initial;

    /** Compiles {@code ops} (indexed as given) starting from {@code initial}. */
    RegisterModel(final Op[] ops, final OptionalLong initial)
    {
        this.ops = ops;
        this.argument = new int[ops.length];
        this.comparand = new int[ops.length];
        final Set<Long> observed = new HashSet<>();
        for (final Op op : ops)
        {
            (op.kind() == OpKind.GET ? op.read() : op.expected()).ifPresent(observed::add);
        }
        for (final long v : observed)
        {
            final int id = ids.size() + FIRST_OBSERVED;
            ids.put(v, id);
        }
        this.initial = id(initial);
        for (int i = 0; i < ops.length; i++)
        {
            final Op op = ops[i];
            switch (op.kind())
            {
                case GET -> comparand[i] = id(op.read());
                case PUT -> argument[i] = id(OptionalLong.of(op.value()));
                case DELETE -> argument[i] = ABSENT;
                case COMPARE_AND_SET ->
                {
                    argument[i] = id(OptionalLong.of(op.value()));
                    comparand[i] = id(op.expected());
                }
            }
        }
    }

    /** How many states there are: they are numbered from 0. */
    int states()
    {
        return ids.size() + FIRST_OBSERVED;
    }

    /** The state the register starts in. */
    int initial()
    {
        return initial;
    }

    /**
     * Whether {@code op} never changes the state where its result allows it: a get, a failed
     * compare-and-set, a delete that found nothing.
     */
    boolean isObserver(final int op)
    {
        return ops[op].kind() == OpKind.GET || ops[op].outcome() == Outcome.FALSE;
    }

    /** Whether what {@code op} does depends on the state (a compare-and-set), rather than always the same. */
    boolean isConditional(final int op)
    {
        return ops[op].kind() == OpKind.COMPARE_AND_SET;
    }

    /**
     * The observed value {@code op} compares the state with (a get's result, a compare-and-set's
     * expected value), or -1 if none: while it is not linearized, that value is not interchangeable
     * with an unobserved one.
     */
    int observes(final int op)
    {
        final boolean compares = ops[op].kind() == OpKind.COMPARE_AND_SET
            || ops[op].kind() == OpKind.GET && ops[op].outcome() != Outcome.UNKNOWN;
        return compares && comparand[op] >= FIRST_OBSERVED ? comparand[op] : -1;
    }

    /** The state {@code op} leaves if it takes effect (a put's value, a compare-and-set's new one, absent for a delete). */
    int argument(final int op)
    {
        return argument[op];
    }

    /**
     * What {@code op} does, as a number: operations with equal behaviours accept the same states
     * and change them alike (puts of values no op observes are all alike, and so are deletes that
     * found a value).
     */
    long behaviour(final int op)
    {
        return behaviour(op, argument[op]);
    }

    /** {@link #behaviour} of {@code op} were the state it leaves {@code argument} instead. */
    long behaviour(final int op, final int argument)
    {
        final Op o = ops[op];
        final long condition = o.kind() == OpKind.COMPARE_AND_SET ? comparand[op] : 0;
        return (long) o.kind().ordinal() << 60 | (long) o.outcome().ordinal() << 56 | condition << 28 | argument;
    }

    /** The state after operation {@code op} in {@code state}, or {@link #REJECTED} if its result rules that out. */
    int step(final int op, final int state)
    {
        final Outcome outcome = ops[op].outcome();
        return switch (ops[op].kind())
        {
            case GET -> outcome == Outcome.UNKNOWN || state == comparand[op] ? state : REJECTED;
            case PUT -> argument[op];
            case DELETE -> switch (outcome)
            {
                case TRUE -> state != ABSENT ? ABSENT : REJECTED;
                case FALSE -> state == ABSENT ? ABSENT : REJECTED;
                default -> ABSENT;
            };
            case COMPARE_AND_SET -> switch (outcome)
            {
                case TRUE -> state == comparand[op] ? argument[op] : REJECTED;
                case FALSE -> state != comparand[op] ? state : REJECTED;
                default -> state == comparand[op] ? argument[op] : state;
            };
        };
    }

    private int id(final OptionalLong value)
    {
        if (value.isEmpty())
        {
            return ABSENT;
        }
        final Integer known = ids.get(value.getAsLong());
        return known == null ? UNOBSERVED : known;
    }
}
