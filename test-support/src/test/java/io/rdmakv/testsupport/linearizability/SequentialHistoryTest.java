package io.rdmakv.testsupport.linearizability;

import org.junit.jupiter.api.Test;

import java.util.List;

import static io.rdmakv.testsupport.linearizability.Histories.ABSENT;
import static io.rdmakv.testsupport.linearizability.Histories.assertLinearizable;
import static io.rdmakv.testsupport.linearizability.Histories.assertVerdict;
import static io.rdmakv.testsupport.linearizability.Histories.assertViolation;
import static io.rdmakv.testsupport.linearizability.Histories.some;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SequentialHistoryTest
{
    @Test
    void emptyHistoryIsLinearizable()
    {
        assertLinearizable(List.of());
    }

    @Test
    void correctSequentialHistoryIsLinearizableInItsOwnOrder()
    {
        final List<Op> history = List.of(
            Op.get(0, 0, 10, ABSENT),
            Op.put(1, 1, 20, 30),
            Op.get(0, 40, 50, some(1)),
            Op.compareAndSet(2, some(1), 2, 60, 70, true),
            Op.compareAndSet(1, some(1), 3, 80, 90, false),
            Op.get(2, 100, 110, some(2)),
            Op.delete(0, 120, 130, true),
            Op.delete(1, 140, 150, false),
            Op.compareAndSet(0, ABSENT, 4, 160, 170, true),
            Op.get(1, 180, 190, some(4)));
        final CheckResult result = assertLinearizable(history);
        assertEquals(history, result.linearization());
    }

    @Test
    void getOfAValueNeverWrittenIsAViolation()
    {
        final CheckResult result = assertViolation(List.of(
            Op.put(0, 1, 0, 10),
            Op.get(1, 20, 30, some(99))));
        assertTrue(result.explanation().contains("it read 99 but the register holds 1"), result::explanation);
    }

    @Test
    void staleReadAfterACompletedPutIsAViolation()
    {
        final Op stale = Op.get(2, 40, 50, some(1));
        final CheckResult result = assertViolation(List.of(
            Op.put(0, 1, 0, 10),
            Op.put(1, 2, 20, 30),
            stale,
            Op.put(0, 3, 60, 70)));
        assertEquals(stale, result.involved().getFirst(), result::explanation);
    }

    @Test
    void readingAbsentAfterAPutIsAViolation()
    {
        assertViolation(List.of(
            Op.put(0, 1, 0, 10),
            Op.get(0, 20, 30, ABSENT)));
    }

    @Test
    void deleteThatFoundNothingWhileAValueWasPresentIsAViolation()
    {
        assertViolation(List.of(
            Op.put(0, 1, 0, 10),
            Op.delete(1, 20, 30, false)));
    }

    @Test
    void failedCompareAndSetWhoseExpectationHeldIsAViolation()
    {
        assertViolation(List.of(
            Op.put(0, 1, 0, 10),
            Op.compareAndSet(1, some(1), 2, 20, 30, false)));
    }

    @Test
    void initialValueIsHonoured()
    {
        final List<Op> history = List.of(Op.get(0, 0, 10, some(5)));
        assertVerdict(Verdict.LINEARIZABLE, history, some(5));
        assertVerdict(Verdict.NOT_LINEARIZABLE, history, ABSENT);
    }
}
