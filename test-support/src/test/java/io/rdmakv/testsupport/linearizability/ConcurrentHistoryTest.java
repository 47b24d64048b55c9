package io.rdmakv.testsupport.linearizability;

import org.junit.jupiter.api.Test;

import java.util.List;

import static io.rdmakv.testsupport.linearizability.Histories.ABSENT;
import static io.rdmakv.testsupport.linearizability.Histories.assertLinearizable;
import static io.rdmakv.testsupport.linearizability.Histories.assertViolation;
import static io.rdmakv.testsupport.linearizability.Histories.some;
import static org.junit.jupiter.api.Assertions.assertEquals;

class ConcurrentHistoryTest
{
    @Test
    void readsDuringOverlappingPutsMaySeeEitherOrder()
    {
        // put(1) and put(2) overlap; a read during both may see either, in either order.
        assertLinearizable(List.of(
            Op.put(0, 1, 0, 100),
            Op.put(1, 2, 0, 100),
            Op.get(2, 10, 20, some(1)),
            Op.get(2, 30, 40, some(2))));
        assertLinearizable(List.of(
            Op.put(0, 1, 0, 100),
            Op.put(1, 2, 0, 100),
            Op.get(2, 10, 20, some(2)),
            Op.get(2, 30, 40, some(1))));
    }

    @Test
    void afterOverlappingPutsCompleteOneWinnerStays()
    {
        assertLinearizable(List.of(
            Op.put(0, 1, 0, 100),
            Op.put(1, 2, 0, 100),
            Op.get(2, 110, 120, some(2)),
            Op.get(0, 130, 140, some(2))));
        assertViolation(List.of(
            Op.put(0, 1, 0, 100),
            Op.put(1, 2, 0, 100),
            Op.get(2, 110, 120, some(2)),
            Op.get(0, 130, 140, some(1))));
    }

    @Test
    void readConcurrentWithAPutMaySeeOldOrNew()
    {
        assertLinearizable(List.of(
            Op.put(0, 1, 0, 10),
            Op.put(0, 2, 20, 100),
            Op.get(1, 30, 40, some(1)),
            Op.get(2, 30, 40, some(2))));
    }

    @Test
    void newValueThenALaterReadOfTheOlderIsAViolation()
    {
        // put(2) is still running, but once a read has seen 2, no later read may see 1.
        final Op older = Op.get(2, 50, 60, some(1));
        final CheckResult result = assertViolation(List.of(
            Op.put(0, 1, 0, 10),
            Op.put(1, 2, 20, 100),
            Op.get(2, 30, 40, some(2)),
            older));
        assertEquals(older, result.involved().getFirst(), result::explanation);
    }

    @Test
    void twoOverlappingCompareAndSetsFromTheSameValueCannotBothSucceed()
    {
        assertViolation(List.of(
            Op.put(0, 1, 0, 10),
            Op.compareAndSet(1, some(1), 2, 20, 50, true),
            Op.compareAndSet(2, some(1), 3, 30, 60, true)));
    }

    @Test
    void twoOverlappingInsertsIfAbsentCannotBothSucceed()
    {
        assertViolation(List.of(
            Op.compareAndSet(1, ABSENT, 2, 20, 50, true),
            Op.compareAndSet(2, ABSENT, 3, 30, 60, true)));
    }

    @Test
    void overlappingCompareAndSetsOneWinsOneLoses()
    {
        assertLinearizable(List.of(
            Op.put(0, 1, 0, 10),
            Op.compareAndSet(1, some(1), 2, 20, 50, true),
            Op.compareAndSet(2, some(1), 3, 30, 60, false),
            Op.get(0, 70, 80, some(2))));
        assertLinearizable(List.of(
            Op.put(0, 1, 0, 10),
            Op.compareAndSet(1, some(1), 2, 20, 50, false),
            Op.compareAndSet(2, some(1), 3, 30, 60, true),
            Op.get(0, 70, 80, some(3))));
    }

    @Test
    void loserMustNotBeTheOneWhoseValueStays()
    {
        assertViolation(List.of(
            Op.put(0, 1, 0, 10),
            Op.compareAndSet(1, some(1), 2, 20, 50, true),
            Op.compareAndSet(2, some(1), 3, 30, 60, false),
            Op.get(0, 70, 80, some(3))));
    }

    @Test
    void oneValueCannotBeDeletedTwice()
    {
        assertViolation(List.of(
            Op.put(0, 1, 0, 10),
            Op.delete(1, 20, 30, true),
            Op.delete(2, 40, 50, true)));
        assertViolation(List.of(
            Op.put(0, 1, 0, 10),
            Op.delete(1, 20, 50, true),
            Op.delete(2, 30, 60, true)));
    }

    @Test
    void overlappingDeletesOneFindsTheValue()
    {
        assertLinearizable(List.of(
            Op.put(0, 1, 0, 10),
            Op.delete(1, 20, 50, false),
            Op.delete(2, 30, 60, true),
            Op.get(0, 70, 80, ABSENT)));
    }

    @Test
    void deleteConcurrentWithAPutMayGoEitherWay()
    {
        assertLinearizable(List.of(
            Op.put(0, 1, 0, 100),
            Op.delete(1, 10, 20, false),
            Op.get(2, 110, 120, some(1))));
        assertLinearizable(List.of(
            Op.put(0, 1, 0, 100),
            Op.delete(1, 10, 20, true),
            Op.get(2, 110, 120, ABSENT)));
    }

    @Test
    void operationsThatTouchInTimeCountAsConcurrent()
    {
        // The get is invoked at the very nanosecond the put returns: either order is allowed.
        assertLinearizable(List.of(
            Op.put(0, 1, 0, 10),
            Op.get(1, 10, 20, ABSENT)));
    }
}
