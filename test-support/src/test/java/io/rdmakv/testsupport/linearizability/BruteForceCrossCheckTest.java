package io.rdmakv.testsupport.linearizability;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.SplittableRandom;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The checker agrees with exhaustive enumeration on many small random histories, right or wrong;
 * its linearizations are linearizations, and the operation it blames answers the shortest prefix
 * that fails.
 */
class BruteForceCrossCheckTest
{
    private static final int HISTORIES = 20_000;

    @Test
    void agreesWithBruteForceOnRandomSmallHistories()
    {
        crossCheck(new SplittableRandom(2024), BruteForceCrossCheckTest::randomHistory);
    }

    /**
     * Histories where a lost write is observed only by its client's next compare-and-set, long
     * done when the search backtracks: the search takes such a value for an unobserved one.
     */
    @Test
    void agreesWithBruteForceWhenClientsCompareAndSetFromTheirOwnWrites()
    {
        crossCheck(new SplittableRandom(2025), BruteForceCrossCheckTest::clientHistory);
    }

    private static void crossCheck(final SplittableRandom random, final Function<SplittableRandom, List<Op>> histories)
    {
        final LinearizabilityChecker checker = new LinearizabilityChecker();
        int linearizable = 0;
        for (int h = 0; h < HISTORIES; h++)
        {
            final List<Op> history = histories.apply(random);
            final OptionalLong initial = random.nextInt(4) == 0 ? OptionalLong.of(100) : OptionalLong.empty();
            final boolean expected = BruteForce.linearizable(history, initial);
            final CheckResult result = checker.check(history, initial);
            final int index = h;
            assertEquals(expected ? Verdict.LINEARIZABLE : Verdict.NOT_LINEARIZABLE, result.verdict(),
                () -> "history " + index + " from " + Op.show(initial) + ":\n" + String.join("\n",
                    history.stream().map(Op::toString).toList()) + "\n" + result.explanation());
            if (expected)
            {
                linearizable++;
                assertTrue(BruteForce.isLinearization(history, result.linearization(), initial),
                    () -> "not a linearization: " + result.linearization());
            }
            else
            {
                assertShortestFailingPrefix(history, initial, result);
            }
        }
        final int both = linearizable;
        assertTrue(both > HISTORIES / 10 && both < HISTORIES * 9 / 10, () -> both + " linearizable: a poor mix");
    }

    /** The violation is pinned on the operation whose response makes the history fail: before it, it did not. */
    private static void assertShortestFailingPrefix(final List<Op> history, final OptionalLong initial,
                                                    final CheckResult result)
    {
        final Op culprit = result.involved().getFirst();
        assertTrue(culprit.completed(), result::explanation);
        final long cut = culprit.responseNanos();
        assertFalse(BruteForce.linearizable(BruteForce.prefix(history, cut), initial), result::explanation);
        final long before = history.stream().filter(Op::completed).mapToLong(Op::responseNanos)
            .filter(t -> t < cut).max().orElse(Long.MIN_VALUE);
        assertTrue(BruteForce.linearizable(BruteForce.prefix(history, before), initial), result::explanation);
    }

    /**
     * Up to 7 operations by up to 4 processes on values 1..3 (unique per write, except that a
     * few histories reuse one), with random overlapping intervals and random results, a few with
     * unknown outcomes. Most results are plausible, so that both verdicts are common.
     */
    private static List<Op> randomHistory(final SplittableRandom random)
    {
        final int size = 1 + random.nextInt(7);
        final List<Op> history = new ArrayList<>();
        final long[] free = new long[4];
        long nextValue = 1;
        for (int i = 0; i < size; i++)
        {
            final int process = random.nextInt(4);
            final long invoke = free[process] + random.nextInt(10);
            final long response = invoke + 1 + random.nextInt(12);
            free[process] = response + 1;
            final OptionalLong someValue = random.nextInt(4) == 0 ? OptionalLong.empty()
                : OptionalLong.of(random.nextInt(5) == 0 ? 100 : 1 + random.nextLong(Math.max(1, nextValue)));
            final long written = random.nextInt(10) == 0 ? 1 : nextValue++;
            final Op op = switch (random.nextInt(4))
            {
                case 0 -> Op.get(process, invoke, response, someValue);
                case 1 -> Op.put(process, written, invoke, response);
                case 2 -> Op.delete(process, invoke, response, random.nextInt(8) == 0 ? Outcome.UNKNOWN
                    : Outcome.of(random.nextBoolean()));
                default -> Op.compareAndSet(process, someValue, written, invoke, response, random.nextBoolean());
            };
            history.add(random.nextInt(6) == 0 ? op.withUnknownOutcome() : op);
        }
        return history;
    }

    /**
     * Up to 8 operations by up to 4 clients, each writing fresh values and (mostly) expecting in a
     * compare-and-set, or reading, the value it wrote last, whether or not that write was lost;
     * a quarter of the operations with unknown outcome.
     */
    private static List<Op> clientHistory(final SplittableRandom random)
    {
        final int size = 1 + random.nextInt(8);
        final List<Op> history = new ArrayList<>();
        final long[] free = new long[4];
        final long[] wroteLast = new long[4];
        long nextValue = 1;
        for (int i = 0; i < size; i++)
        {
            final int process = random.nextInt(4);
            final long invoke = free[process] + random.nextInt(6);
            final long response = invoke + 1 + random.nextInt(14);
            free[process] = response + 1;
            final OptionalLong expected = wroteLast[process] != 0 && random.nextInt(5) != 0
                ? OptionalLong.of(wroteLast[process])
                : random.nextBoolean() ? OptionalLong.empty() : OptionalLong.of(1 + random.nextLong(nextValue));
            final long written = nextValue++;
            final Op op = switch (random.nextInt(5))
            {
                case 0 -> Op.get(process, invoke, response, expected);
                case 1, 2 -> Op.put(process, written, invoke, response);
                case 3 -> Op.delete(process, invoke, response, random.nextBoolean());
                default -> Op.compareAndSet(process, expected, written, invoke, response, random.nextBoolean());
            };
            if (op.kind() == OpKind.PUT || op.kind() == OpKind.COMPARE_AND_SET)
            {
                wroteLast[process] = written;
            }
            history.add(random.nextInt(4) == 0 ? op.withUnknownOutcome() : op);
        }
        return history;
    }
}
