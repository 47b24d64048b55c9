package io.rdmakv.testsupport.linearizability;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The configurations the search has reached. A configuration is the set of completed operations
 * linearized, the register state, and the set of outcome-unknown operations linearized. One that
 * matches a remembered configuration in the first two and has linearized a superset of its
 * unknown operations is subsumed: it has fewer options left (unknown operations are optional), so
 * if the remembered one failed, so does it.
 */
final class Memo
{
    private static final long[] NONE = new long[0];

    private final Map<LinearizedSet.Key, Object> seen = new HashMap<>();
    private int size;

    /**
     * Remembers a configuration, given as a probe of the completed set with the state and the
     * live set of outcome-unknown operations; false if it (or one that subsumes it) was reached before.
     */
    boolean add(final LinearizedSet.Key completed, final LinearizedSet unknown)
    {
        final Object known = seen.get(completed);
        if (known == null)
        {
            seen.put(completed.copy(), unknown.isEmpty() ? NONE : unknown.words());
            size++;
            return true;
        }
        if (known instanceof long[] one)
        {
            if (unknown.includes(one))
            {
                return false;
            }
            final long[] mine = unknown.words();
            if (unknown.within(one))
            {
                seen.replace(completed, mine);
                return true;
            }
            final List<long[]> many = new ArrayList<>(2);
            many.add(one);
            many.add(mine);
            seen.replace(completed, many);
            size++;
            return true;
        }
        @SuppressWarnings("unchecked") final List<long[]> many = (List<long[]>) known;
        for (final long[] other : many)
        {
            if (unknown.includes(other))
            {
                return false;
            }
        }
        final int before = many.size();
        many.removeIf(unknown::within);
        many.add(unknown.words());
        size += many.size() - before;
        return true;
    }

    /** How many configurations are remembered. */
    int size()
    {
        return size;
    }
}
