package io.rdmakv.testsupport.linearizability;

import java.time.Duration;
import java.util.Objects;

/**
 * How much work one check may do before it gives up with {@link Verdict#UNKNOWN}.
 *
 * @param time              wall-clock limit for the whole check (search and shrinking a failure)
 * @param maxSteps          search steps (one step tries one operation) per search
 * @param maxConfigurations distinct (linearized set, state) configurations remembered per search: bounds memory
 */
public record Budget(Duration time, long maxSteps, int maxConfigurations)
{
    /** Ten seconds, unlimited steps, four million configurations. */
    public static final Budget DEFAULT = new Budget(Duration.ofSeconds(10), Long.MAX_VALUE, 4_000_000);

    /** Checks the limits. */
    public Budget
    {
        Objects.requireNonNull(time, "time");
        if (time.isNegative() || maxSteps <= 0 || maxConfigurations <= 0)
        {
            throw new IllegalArgumentException("limits must be positive: " + time + ", " + maxSteps + ", "
                + maxConfigurations);
        }
    }

    /** The default limits with this wall-clock limit. */
    public static Budget ofTime(final Duration time)
    {
        return new Budget(time, DEFAULT.maxSteps, DEFAULT.maxConfigurations);
    }

    /** These limits with at most {@code steps} search steps. */
    public Budget withMaxSteps(final long steps)
    {
        return new Budget(time, steps, maxConfigurations);
    }
}
