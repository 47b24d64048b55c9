package io.rdmakv.testsupport.linearizability;

import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * How much the checker searches on long, heavily overlapping histories. The histories come from
 * {@link SimulatedClients#simulate}, so each is the same on every run and every machine, and so is
 * the search: the tests bound its steps and configurations (about 1.3 times what it takes now),
 * which a lost pruning rule multiplies, and print the CPU time only for information. How fast the
 * checker is, is for a benchmark to say.
 */
class CheckerPerformanceTest
{
    /** A safety net only: the step limits decide. */
    private static final Duration TIME = Duration.ofMinutes(2);
    private static final int THREADS = 16;
    private static final int OPS = 5_008;

    /** One key's history; with {@code yields} clients pause inside operations, so that many overlap. */
    private static List<Op> oneKey(final boolean yields, final double unknownOutcomes, final long seed)
    {
        return new SimulatedClients(THREADS, OPS / THREADS, 1, unknownOutcomes, yields)
            .simulate(seed, SimulatedRegister::atomic).byKey().get(0);
    }

    /**
     * Asserts that {@code ops} are linearizable, found in at most {@code steps} search steps (all
     * searches together, each also limited to that many) and {@code configurations} configurations.
     */
    private static void assertChecksWithin(final List<Op> ops, final long steps, final int configurations)
    {
        final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        final long before = threads.getCurrentThreadCpuTime();
        final CheckResult result = new LinearizabilityChecker(
            new Budget(TIME, steps, Budget.DEFAULT.maxConfigurations())).check(ops);
        final Duration cpu = Duration.ofNanos(threads.getCurrentThreadCpuTime() - before);
        System.out.println(result.explanation() + "; " + cpu.toMillis() + " ms of CPU");
        assertTrue(result.isLinearizable(), result::explanation);
        assertTrue(result.steps() <= steps, () -> "more than " + steps + " steps: " + result.explanation());
        assertTrue(result.configurations() <= configurations,
            () -> "more than " + configurations + " configurations: " + result.explanation());
    }

    /** Little overlap: 81,845 steps, 25,663 configurations. */
    @Test
    void sixteenThreadsFiveThousandOpsCheckWithinTheBudget()
    {
        final List<Op> ops = oneKey(false, 0, 42);
        assertEquals(OPS, ops.size());
        assertChecksWithin(ops, 110_000, 34_000);
    }

    /**
     * While an operation runs, 15 others are invoked (median; 30 at the 90th percentile), much as
     * with 16 real threads that yield (15; 31): 305,708 steps, 102,664 configurations. Without
     * trying the most urgent write first, 481,218 steps; without trying only the first due of
     * writes that behave alike, 951,273.
     */
    @Test
    void heavilyOverlappingSixteenThreadsFiveThousandOpsCheckWithinTheBudget()
    {
        assertChecksWithin(oneKey(true, 0, 43), 400_000, 135_000);
    }

    /**
     * 54 lost writes (2% of the operations), but a linearization needs none of them, so the first
     * search, which leaves them out, finds one: 283,235 steps, 100,140 configurations.
     */
    @Test
    void heavilyOverlappingHistoryWithLostResponsesChecksWithinTheBudget()
    {
        assertChecksWithin(oneKey(true, 0.02, 44), 370_000, 130_000);
    }

    /**
     * Here a linearization needs some of the lost writes: the first search stops at its step
     * limit (100 per operation: 496,900), and the full one finds a linearization, 1,535,467 steps
     * and 152,891 configurations in all. Lost writes of values whose observers were all linearized each stayed
     * a move of their own before: 6,271,505 steps (5,859,079 with the first search's step limit),
     * 327,158 configurations; without the rule that of lost writes that behave alike only one is
     * tried, 45,351,772 steps; with configurations subsumed only by equal ones, 18,541,726.
     */
    @Test
    void heavilyOverlappingHistoryThatNeedsLostWritesChecksWithinTheBudget()
    {
        assertChecksWithin(oneKey(true, 0.02, 99), 2_000_000, 200_000);
    }

    @Test
    void exhaustedBudgetIsReportedAsUnknown()
    {
        final List<Op> ops = oneKey(false, 0, 45);
        final CheckResult bySteps = new LinearizabilityChecker(Budget.ofTime(TIME).withMaxSteps(100)).check(ops);
        assertEquals(Verdict.UNKNOWN, bySteps.verdict(), bySteps::explanation);
        assertTrue(bySteps.explanation().contains("step limit 100"), bySteps::explanation);
        final CheckResult byTime = new LinearizabilityChecker(Budget.ofTime(Duration.ZERO)).check(ops);
        assertEquals(Verdict.UNKNOWN, byTime.verdict(), byTime::explanation);
        assertTrue(byTime.explanation().contains("time limit"), byTime::explanation);
        final CheckResult bySize = new LinearizabilityChecker(new Budget(TIME, Long.MAX_VALUE, 10)).check(ops);
        assertEquals(Verdict.UNKNOWN, bySize.verdict(), bySize::explanation);
        assertTrue(bySize.explanation().contains("configuration limit 10"), bySize::explanation);
    }
}
