package io.rdmakv.client.linearizability;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CheckerPerformanceTest
{
    private static final Budget BUDGET = Budget.DEFAULT;
    private static final int THREADS = 16;
    private static final int OPS = 5_008;

    /** One key's history; with {@code yields} threads stall inside operations, so that many overlap. */
    private static List<Op> oneKey(final boolean yields, final double unknownOutcomes, final long seed)
    {
        return new SimulatedClients(THREADS, OPS / THREADS, 1, unknownOutcomes, yields)
            .run(seed, SimulatedRegister::atomic).byKey().get(0);
    }

    private static void assertChecksInBudget(final List<Op> ops)
    {
        final CheckResult result = new LinearizabilityChecker(BUDGET).check(ops);
        System.out.println(result.explanation());
        assertTrue(result.isLinearizable(), result::explanation);
        assertTrue(result.elapsed().compareTo(BUDGET.time()) < 0, result::explanation);
    }

    @Test
    void sixteenThreadsFiveThousandOpsCheckWithinTheBudget()
    {
        final List<Op> ops = oneKey(false, 0, 42);
        assertEquals(OPS, ops.size());
        assertChecksInBudget(ops);
    }

    @Test
    void heavilyOverlappingSixteenThreadsFiveThousandOpsCheckWithinTheBudget()
    {
        assertChecksInBudget(oneKey(true, 0, 43));
    }

    @Test
    void heavilyOverlappingHistoryWithLostResponsesChecksWithinTheBudget()
    {
        assertChecksInBudget(oneKey(true, 0.02, 44));
    }

    @Test
    void exhaustedBudgetIsReportedAsUnknown()
    {
        final List<Op> ops = oneKey(false, 0, 45);
        final CheckResult bySteps = new LinearizabilityChecker(BUDGET.withMaxSteps(100)).check(ops);
        assertEquals(Verdict.UNKNOWN, bySteps.verdict(), bySteps::explanation);
        assertTrue(bySteps.explanation().contains("step limit 100"), bySteps::explanation);
        final CheckResult byTime = new LinearizabilityChecker(Budget.ofTime(Duration.ZERO)).check(ops);
        assertEquals(Verdict.UNKNOWN, byTime.verdict(), byTime::explanation);
        assertTrue(byTime.explanation().contains("time limit"), byTime::explanation);
        final CheckResult bySize = new LinearizabilityChecker(new Budget(Duration.ofSeconds(10), Long.MAX_VALUE, 10))
            .check(ops);
        assertEquals(Verdict.UNKNOWN, bySize.verdict(), bySize::explanation);
        assertTrue(bySize.explanation().contains("configuration limit 10"), bySize::explanation);
    }
}
