package io.rdmakv.testsupport.linearizability;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * What {@link LinearizabilityChecker#check} found for one register's history.
 *
 * @param verdict        linearizable, not, or unknown (budget exceeded)
 * @param linearization  {@link Verdict#LINEARIZABLE}: a linearization, in order (operations whose outcome
 *                       was unknown and that need not have taken effect are left out); otherwise the
 *                       longest partial linearization the search found
 * @param involved       {@link Verdict#NOT_LINEARIZABLE}: the operation that cannot be linearized first,
 *                       then the operations overlapping it; otherwise empty
 * @param explanation    a readable report; for a violation it shows the shortest failing prefix, the
 *                       deepest partial linearization, why no operation can follow it, and its neighbours
 * @param steps          search steps taken (all searches of the check)
 * @param configurations distinct configurations the main search reached
 * @param elapsed        how long the check took
 */
public record CheckResult(Verdict verdict, List<Op> linearization, List<Op> involved, String explanation,
                          long steps, int configurations, Duration elapsed)
{
    /** Copies the lists. */
    public CheckResult
    {
        Objects.requireNonNull(verdict, "verdict");
        linearization = List.copyOf(linearization);
        involved = List.copyOf(involved);
        Objects.requireNonNull(explanation, "explanation");
        Objects.requireNonNull(elapsed, "elapsed");
    }

    /** Whether a linearization exists. */
    public boolean isLinearizable()
    {
        return verdict == Verdict.LINEARIZABLE;
    }

    /** Whether the history certainly has no linearization. */
    public boolean isViolation()
    {
        return verdict == Verdict.NOT_LINEARIZABLE;
    }

    /** Whether the check gave up. */
    public boolean isUnknown()
    {
        return verdict == Verdict.UNKNOWN;
    }

    @Override
    public String toString()
    {
        return explanation;
    }
}
