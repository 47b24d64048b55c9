package io.rdmakv.testsupport.linearizability;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The per-key results of checking a multi-key history.
 *
 * @param results each key's result, keys in order of first invocation
 * @param <K>     the key type
 */
public record KeyedCheckResult<K>(Map<K, CheckResult> results)
{
    private static final int EXPLAINED = 3;

    /** Copies the map, keeping its order. */
    public KeyedCheckResult
    {
        results = Collections.unmodifiableMap(new LinkedHashMap<>(results));
    }

    /** Whether every key is linearizable. */
    public boolean isLinearizable()
    {
        return results.values().stream().allMatch(CheckResult::isLinearizable);
    }

    /** The keys whose history is certainly not linearizable, with their results. */
    public Map<K, CheckResult> violations()
    {
        return only(Verdict.NOT_LINEARIZABLE);
    }

    /** The keys whose check ran out of budget, with their results. */
    public Map<K, CheckResult> unknown()
    {
        return only(Verdict.UNKNOWN);
    }

    /** A count per verdict, then the explanations of the first few keys that are not linearizable. */
    public String summary()
    {
        final Map<K, CheckResult> violations = violations();
        final Map<K, CheckResult> unknown = unknown();
        final StringBuilder out = new StringBuilder().append(results.size()).append(" keys: ")
            .append(results.size() - violations.size() - unknown.size()).append(" linearizable, ")
            .append(violations.size()).append(" not linearizable, ").append(unknown.size()).append(" unknown\n");
        final Map<K, CheckResult> failing = new LinkedHashMap<>(violations);
        failing.putAll(unknown);
        failing.entrySet().stream().limit(EXPLAINED).forEach(e ->
            out.append("key ").append(e.getKey()).append(": ").append(e.getValue().explanation()).append('\n'));
        if (failing.size() > EXPLAINED)
        {
            out.append("... and ").append(failing.size() - EXPLAINED).append(" more keys\n");
        }
        return out.toString();
    }

    @Override
    public String toString()
    {
        return summary();
    }

    private Map<K, CheckResult> only(final Verdict verdict)
    {
        final Map<K, CheckResult> only = new LinkedHashMap<>();
        results.forEach((k, r) ->
        {
            if (r.verdict() == verdict)
            {
                only.put(k, r);
            }
        });
        return only;
    }
}
