package io.rdmakv.client.linearizability;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CheckerPerformanceTest
{
    private static final Budget BUDGET = Budget.ofTime(Duration.ofSeconds(5));

    private static List<Op> oneKey(final int threads, final int ops, final double unknownOutcomes, final long seed)
    {
        final KeyedHistory<Integer> history = new SimulatedClients(threads, ops / threads, 1, unknownOutcomes)
            .run(seed, SimulatedRegister::atomic);
        return history.byKey().get(0);
    }

    @Test
    void sixteenThreadsFiveThousandOpsCheckWithinTheBudget()
    {
        final List<Op> ops = oneKey(16, 5_008, 0, 42);
        assertEquals(5_008, ops.size());
        final CheckResult result = new LinearizabilityChecker(BUDGET).check(ops);
        System.out.println(result.explanation());
        assertTrue(result.isLinearizable(), result::explanation);
        assertTrue(result.elapsed().compareTo(BUDGET.time()) < 0, result::explanation);
    }

    @Test
    void sixteenThreadsFiveThousandOpsWithLostResponsesCheckWithinTheBudget()
    {
        final List<Op> ops = oneKey(16, 5_000, 0.02, 43);
        final CheckResult result = new LinearizabilityChecker(BUDGET).check(ops);
        System.out.println(result.explanation());
        assertTrue(result.isLinearizable(), result::explanation);
    }

    @Test
    void exhaustedBudgetIsReportedAsUnknown()
    {
        final List<Op> ops = oneKey(16, 5_000, 0, 44);
        final CheckResult bySteps = new LinearizabilityChecker(BUDGET.withMaxSteps(100)).check(ops);
        assertEquals(Verdict.UNKNOWN, bySteps.verdict(), bySteps::explanation);
        assertTrue(bySteps.explanation().contains("step limit 100"), bySteps::explanation);
        final CheckResult byTime = new LinearizabilityChecker(Budget.ofTime(Duration.ZERO)).check(ops);
        assertEquals(Verdict.UNKNOWN, byTime.verdict(), byTime::explanation);
        assertTrue(byTime.explanation().contains("time limit"), byTime::explanation);
    }
}
