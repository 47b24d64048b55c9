package io.rdmakv.testsupport.linearizability;

import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CheckerPerformanceTest
{
    /** Wall-clock time is at the mercy of whatever else the machine runs: the budget is generous ... */
    private static final Budget BUDGET = Budget.ofTime(Duration.ofSeconds(60));
    /** ... and the claim is about the checking thread's own CPU time. */
    private static final Duration CPU_LIMIT = Duration.ofSeconds(5);
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
        final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        final long before = threads.getCurrentThreadCpuTime();
        final CheckResult result = new LinearizabilityChecker(BUDGET).check(ops);
        final Duration cpu = Duration.ofNanos(threads.getCurrentThreadCpuTime() - before);
        System.out.println(result.explanation() + "; " + cpu.toMillis() + " ms of CPU");
        assertTrue(result.isLinearizable(), result::explanation);
        assertTrue(cpu.compareTo(CPU_LIMIT) < 0, () -> cpu + " of CPU: " + result.explanation());
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
