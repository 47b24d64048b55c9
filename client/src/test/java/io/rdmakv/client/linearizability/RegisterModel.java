package io.rdmakv.client.linearizability;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalLong;

/**
 * The sequential specification of one register, compiled for one history: every value the history
 * mentions gets a small state number ({@link #ABSENT} is 0), so that a model state is an {@code int}
 * and a step is a few comparisons.
 */
final class RegisterModel
{
    /** The state of a register that holds no value. */
    static final int ABSENT = 0;
    /** What {@link #step} returns when the operation cannot happen in the state. */
    static final int REJECTED = -1;

    private final Map<Long, Integer> ids = new HashMap<>();
    private long[] values = new long[16];
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
        this.initial = intern(initial);
        for (int i = 0; i < ops.length; i++)
        {
            final Op op = ops[i];
            switch (op.kind())
            {
                case GET -> comparand[i] = intern(op.read());
                case PUT -> argument[i] = intern(OptionalLong.of(op.value()));
                case DELETE -> argument[i] = ABSENT;
                case COMPARE_AND_SET ->
                {
                    argument[i] = intern(OptionalLong.of(op.value()));
                    comparand[i] = intern(op.expected());
                }
            }
        }
    }

    /** The state the register starts in. */
    int initial()
    {
        return initial;
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

    /** Why {@code op} cannot happen in {@code state}, for a report. */
    String whyRejected(final int op, final int state)
    {
        final Op o = ops[op];
        return switch (o.kind())
        {
            case GET -> "it read " + describe(comparand[op]) + " but the value is " + describe(state);
            case DELETE -> o.outcome() == Outcome.TRUE
                ? "it found a value but the register is absent"
                : "it found nothing but the value is " + describe(state);
            case COMPARE_AND_SET -> o.outcome() == Outcome.TRUE
                ? "it succeeded expecting " + describe(comparand[op]) + " but the value is " + describe(state)
                : "it failed but the value is the expected " + describe(state);
            case PUT -> "a put always applies";
        };
    }

    /** A state as text: the value or {@code absent}. */
    String describe(final int state)
    {
        return state == ABSENT ? "absent" : Long.toString(values[state - 1]);
    }

    private int intern(final OptionalLong value)
    {
        if (value.isEmpty())
        {
            return ABSENT;
        }
        final long v = value.getAsLong();
        final Integer known = ids.get(v);
        if (known != null)
        {
            return known;
        }
        final int id = ids.size() + 1;
        if (id > values.length)
        {
            values = Arrays.copyOf(values, values.length * 2);
        }
        values[id - 1] = v;
        ids.put(v, id);
        return id;
    }
}
