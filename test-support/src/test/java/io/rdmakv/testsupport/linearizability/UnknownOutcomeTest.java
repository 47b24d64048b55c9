package io.rdmakv.testsupport.linearizability;

import org.junit.jupiter.api.Test;

import java.util.List;

import static io.rdmakv.testsupport.linearizability.Histories.ABSENT;
import static io.rdmakv.testsupport.linearizability.Histories.INF;
import static io.rdmakv.testsupport.linearizability.Histories.assertLinearizable;
import static io.rdmakv.testsupport.linearizability.Histories.assertViolation;
import static io.rdmakv.testsupport.linearizability.Histories.some;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

class UnknownOutcomeTest
{
    @Test
    void unknownPutThatWasObservedIsLinearizable()
    {
        assertLinearizable(List.of(
            Op.put(0, 1, 0, 10),
            Op.put(1, 2, 20, INF),
            Op.get(2, 500, 510, some(2)),
            Op.get(2, 520, 530, some(2))));
    }

    @Test
    void unknownPutThatNeverHappenedIsLinearizable()
    {
        final CheckResult result = assertLinearizable(List.of(
            Op.put(0, 1, 0, 10),
            Op.put(1, 2, 20, INF),
            Op.get(2, 500, 510, some(1)),
            Op.get(2, 520, 530, some(1))));
        assertFalse(result.linearization().stream().anyMatch(op -> !op.completed()),
            "the lost put need not be in the linearization: " + result.linearization());
    }

    @Test
    void unknownPutTakingEffectLateIsLinearizable()
    {
        assertLinearizable(List.of(
            Op.put(0, 1, 0, 10),
            Op.put(1, 2, 20, INF),
            Op.get(2, 500, 510, some(1)),
            Op.get(2, 900, 910, some(2))));
    }

    @Test
    void unknownPutObservedBeforeItsInvocationIsAViolation()
    {
        assertViolation(List.of(
            Op.put(0, 1, 0, 10),
            Op.get(2, 20, 30, some(2)),
            Op.put(1, 2, 40, INF)));
    }

    @Test
    void unknownPutCannotBeUndoneOnceObserved()
    {
        assertViolation(List.of(
            Op.put(0, 1, 0, 10),
            Op.put(1, 2, 20, INF),
            Op.get(2, 500, 510, some(2)),
            Op.get(2, 520, 530, some(1))));
    }

    @Test
    void unknownCompareAndSetWritesOnlyIfItsExpectationHolds()
    {
        assertLinearizable(List.of(
            Op.put(0, 1, 0, 10),
            Op.compareAndSet(1, some(1), 2, 20, INF, false),
            Op.get(2, 500, 510, some(2))));
        assertViolation(List.of(
            Op.put(0, 1, 0, 10),
            Op.put(0, 3, 20, 30),
            Op.compareAndSet(1, some(1), 2, 40, INF, true),
            Op.get(2, 500, 510, some(2))));
    }

    @Test
    void unknownDeleteMayHappenOrNot()
    {
        assertLinearizable(List.of(
            Op.put(0, 1, 0, 10),
            Op.delete(1, 20, INF, true),
            Op.get(2, 500, 510, some(1))));
        assertLinearizable(List.of(
            Op.put(0, 1, 0, 10),
            Op.delete(1, 20, INF, true),
            Op.get(2, 500, 510, ABSENT)));
    }

    @Test
    void completedDeleteWithUnknownResultStillDeletes()
    {
        assertLinearizable(List.of(
            Op.delete(1, 0, 10, Outcome.UNKNOWN),
            Op.put(0, 1, 20, 30),
            Op.delete(1, 40, 50, Outcome.UNKNOWN),
            Op.get(2, 60, 70, ABSENT)));
        assertViolation(List.of(
            Op.put(0, 1, 0, 10),
            Op.delete(1, 20, 30, Outcome.UNKNOWN),
            Op.get(2, 40, 50, some(1))));
    }

    @Test
    void readsWithUnknownOutcomeAreIgnored()
    {
        final CheckResult result = assertLinearizable(List.of(
            Op.put(0, 1, 0, 10),
            Op.get(1, 20, INF, some(7)),
            Op.get(2, 30, 40, some(1))));
        assertEquals(2, result.linearization().size());
    }

    @Test
    void aResponseAtInfinityDiscardsTheResult()
    {
        final Op op = Op.compareAndSet(1, some(1), 2, 20, 30, true).withUnknownOutcome();
        assertEquals(Outcome.UNKNOWN, op.outcome());
        assertEquals(INF, op.responseNanos());
        assertFalse(op.completed());
        assertEquals(Op.get(0, 5, INF, ABSENT), Op.get(0, 5, INF, some(3)));
    }
}
