package io.rdmakv.testsupport.linearizability;

import java.util.List;
import java.util.OptionalLong;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Helpers for the hand-made histories of the tests. */
final class Histories
{
    static final OptionalLong ABSENT = OptionalLong.empty();
    static final long INF = Op.INFINITY;

    private Histories()
    {
    }

    static OptionalLong some(final long value)
    {
        return OptionalLong.of(value);
    }

    static CheckResult check(final List<Op> history)
    {
        return new LinearizabilityChecker().check(history);
    }

    /** Asserts that the history (starting absent) is linearizable, showing the report if not. */
    static CheckResult assertLinearizable(final List<Op> history)
    {
        return assertVerdict(Verdict.LINEARIZABLE, history, ABSENT);
    }

    /** Asserts that the history (starting absent) is not linearizable, showing the report if it is. */
    static CheckResult assertViolation(final List<Op> history)
    {
        return assertVerdict(Verdict.NOT_LINEARIZABLE, history, ABSENT);
    }

    static CheckResult assertVerdict(final Verdict expected, final List<Op> history, final OptionalLong initial)
    {
        final CheckResult result = new LinearizabilityChecker().check(history, initial);
        assertEquals(expected, result.verdict(), result::explanation);
        return result;
    }
}
