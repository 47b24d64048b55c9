package io.rdmakv.testsupport.linearizability;

import java.util.List;
import java.util.OptionalLong;

/** A register run one operation at a time with concrete values: for reports, and to verify linearizations. */
final class SequentialRegister
{
    private SequentialRegister()
    {
    }

    /** The value after {@code op} in {@code state}, or null if the operation's result rules that state out. */
    static OptionalLong apply(final Op op, final OptionalLong state)
    {
        final boolean matches = op.expected().equals(state);
        return switch (op.kind())
        {
            case GET -> op.outcome() == Outcome.UNKNOWN || op.read().equals(state) ? state : null;
            case PUT -> OptionalLong.of(op.value());
            case DELETE -> switch (op.outcome())
            {
                case TRUE -> state.isPresent() ? OptionalLong.empty() : null;
                case FALSE -> state.isEmpty() ? state : null;
                default -> OptionalLong.empty();
            };
            case COMPARE_AND_SET -> switch (op.outcome())
            {
                case TRUE -> matches ? OptionalLong.of(op.value()) : null;
                case FALSE -> matches ? null : state;
                default -> matches ? OptionalLong.of(op.value()) : state;
            };
        };
    }

    /** The value after running {@code order} from {@code initial}, or null if some operation's result rules it out. */
    static OptionalLong run(final List<Op> order, final OptionalLong initial)
    {
        OptionalLong state = initial;
        for (final Op op : order)
        {
            state = apply(op, state);
            if (state == null)
            {
                return null;
            }
        }
        return state;
    }

    /** Why {@code op} cannot happen in {@code state}, for a report. */
    static String whyRejected(final Op op, final OptionalLong state)
    {
        final String holds = "the register holds " + Op.show(state);
        return switch (op.kind())
        {
            case GET -> "it read " + Op.show(op.read()) + " but " + holds;
            case DELETE -> op.outcome() == Outcome.TRUE ? "it found a value but the register is absent"
                : "it found nothing but " + holds;
            case COMPARE_AND_SET -> op.outcome() == Outcome.TRUE
                ? "it succeeded expecting " + Op.show(op.expected()) + " but " + holds
                : "it failed but " + holds + ", the value it expected";
            case PUT -> "a put always applies";
        };
    }
}
