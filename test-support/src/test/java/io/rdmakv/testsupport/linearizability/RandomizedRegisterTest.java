package io.rdmakv.testsupport.linearizability;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RandomizedRegisterTest
{
    private static final LinearizabilityChecker CHECKER =
        new LinearizabilityChecker(Budget.ofTime(Duration.ofSeconds(20)));

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3})
    void atomicRegistersAreAlwaysLinearizable(final long seed)
    {
        final KeyedHistory<Integer> history = new SimulatedClients(16, 400, 4, 0).run(seed, SimulatedRegister::atomic);
        final KeyedCheckResult<Integer> result = history.check(CHECKER);
        assertEquals(4, result.results().size());
        assertTrue(result.isLinearizable(), () -> "seed " + seed + ": " + result.summary());
    }

    @ParameterizedTest
    @ValueSource(longs = {4, 5, 6})
    void atomicRegistersWithLostResponsesAreAlwaysLinearizable(final long seed)
    {
        final KeyedHistory<Integer> history = new SimulatedClients(16, 400, 4, 0.03)
            .run(seed, SimulatedRegister::atomic);
        final KeyedCheckResult<Integer> result = history.check(CHECKER);
        assertTrue(result.isLinearizable(), () -> "seed " + seed + ": " + result.summary());
    }

    @ParameterizedTest
    @ValueSource(longs = {7, 8})
    void atomicRegistersUnderHeavyOverlapAreAlwaysLinearizable(final long seed)
    {
        final KeyedHistory<Integer> history = new SimulatedClients(16, 400, 4, 0.03, true)
            .run(seed, SimulatedRegister::atomic);
        final KeyedCheckResult<Integer> result = history.check(CHECKER);
        assertTrue(result.isLinearizable(), () -> "seed " + seed + ": " + result.summary());
    }

    @Test
    void staleReadsAreCaught()
    {
        final int threads = 8;
        KeyedCheckResult<Integer> result = null;
        for (long seed = 10; seed < 15 && (result == null || result.violations().isEmpty()); seed++)
        {
            result = new SimulatedClients(threads, 300, 2, 0)
                .run(seed, () -> SimulatedRegister.withStaleReads(0.05, threads)).check(CHECKER);
        }
        final KeyedCheckResult<Integer> last = result;
        assertFalse(last.violations().isEmpty(), last::summary);
        final CheckResult violation = last.violations().values().iterator().next();
        assertTrue(violation.involved().stream().anyMatch(op -> op.kind() == OpKind.GET), violation::explanation);
        System.out.println(last.summary());
    }
}
