package io.rdmakv.server.space;

/**
 * The used-slot count STATS reports, taken a bounded number of groups per duty cycle instead of one
 * walk of the whole index per request: a request finds a count at most {@code maxAgeNanos} old, or waits
 * for the pass that {@link #advance} is making. Like the walk it replaces, a pass reads slots while
 * clients change them, so the count is what the index held while the pass went by. Agent thread only.
 */
public final class IndexCensus
{
    private final IndexScanner scanner;
    private final long maxAgeNanos;
    private long cursor;
    private long partial;
    private long usedSlots;
    private long startedAt;
    private long countedAt;
    private long passes;
    private boolean counted;

    /**
     * @param maxAgeNanos how old a count may be and still answer a request; a new pass starts only when
     *                    the last one is older (so a flood of requests costs at most one pass per period)
     */
    public IndexCensus(final IndexScanner scanner, final long maxAgeNanos)
    {
        this.scanner = scanner;
        this.maxAgeNanos = maxAgeNanos;
    }

    /** True when the last count is recent enough to answer a request made at {@code nowNanos}. */
    public boolean isFresh(final long nowNanos)
    {
        return counted && nowNanos - countedAt < maxAgeNanos;
    }

    /** The used slots the last complete pass counted. */
    public long usedSlots()
    {
        return usedSlots;
    }

    /** Complete passes over the index so far. */
    public long passes()
    {
        return passes;
    }

    /** True while a pass is under way (some groups counted, not all). */
    public boolean inProgress()
    {
        return cursor > 0;
    }

    /**
     * Counts up to {@code groupBudget} more groups of the current pass (starting one if none is under way);
     * returns the groups read. A completed count is as fresh as the moment its pass started.
     */
    public long advance(final long groupBudget, final long nowNanos)
    {
        if (cursor == 0)
        {
            startedAt = nowNanos;
        }
        final long to = Math.min(scanner.groupCount(), cursor + Math.max(1, groupBudget));
        final long read = to - cursor;
        partial += scanner.usedSlots(cursor, to);
        cursor = to;
        if (cursor == scanner.groupCount())
        {
            usedSlots = partial;
            partial = 0;
            cursor = 0;
            countedAt = startedAt;
            counted = true;
            passes++;
        }
        return read;
    }
}
