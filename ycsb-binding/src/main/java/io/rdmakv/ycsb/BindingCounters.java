package io.rdmakv.ycsb;

import io.rdmakv.client.ClientStats;

import java.io.PrintStream;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * What the binding counts across all its instances: operations by kind, update retries (version
 * conflicts), and failures by exception type, each type logged once. {@link #report} prints them with the
 * client's counters as {@code [RDMAKV], Name, value} lines, in YCSB's own output format.
 */
final class BindingCounters
{
    final LongAdder reads = new LongAdder();
    final LongAdder updates = new LongAdder();
    final LongAdder inserts = new LongAdder();
    final LongAdder deletes = new LongAdder();
    final LongAdder updateRetries = new LongAdder();
    private final Map<String, LongAdder> errors = new ConcurrentHashMap<>();

    /** Counts a failure of {@code operation}; the first of each exception type is logged to stderr. */
    void failed(final String operation, final Exception e)
    {
        final String kind = e.getClass().getSimpleName();
        final LongAdder count = errors.computeIfAbsent(kind, k ->
        {
            System.err.println("rdmakv: " + operation + " failed: " + kind + ": " + e.getMessage() +
                " (further " + kind + "s are counted, not logged; totals at cleanup)");
            return new LongAdder();
        });
        count.increment();
    }

    long operations()
    {
        return reads.sum() + updates.sum() + inserts.sum() + deletes.sum();
    }

    long errors()
    {
        return errors.values().stream().mapToLong(LongAdder::sum).sum();
    }

    /**
     * Prints the counters; a ratio whose denominator is zero is left out. {@code writePath} is how the client writes
     * to the nodes ({@code one-sided}, {@code node-assisted}, or both joined by {@code +} when they differ).
     */
    void report(final ClientStats client, final String writePath, final PrintStream out)
    {
        out.println("[RDMAKV], WritePath, " + writePath);
        final long operations = operations();
        final long updateCount = updates.sum();
        line(out, "Operations", operations);
        line(out, "Reads", reads.sum());
        line(out, "Updates", updateCount);
        line(out, "Inserts", inserts.sum());
        line(out, "Deletes", deletes.sum());
        line(out, "ClientOperations", client.operations());
        line(out, "RoundTrips", client.roundTrips());
        ratio(out, "RoundTripsPerOp", client.roundTrips(), operations);
        line(out, "CasRetries", client.casRetries());
        ratio(out, "CasRetriesPerUpdate", client.casRetries(), updateCount);
        line(out, "UpdateRetries", updateRetries.sum());
        ratio(out, "UpdateRetriesPerUpdate", updateRetries.sum(), updateCount);
        line(out, "ValidationRetries", client.validationRetries());
        line(out, "CacheHits", client.cacheHits());
        line(out, "CacheMisses", client.cacheMisses());
        ratio(out, "CacheHitRatio", client.cacheHits(), client.cacheHits() + client.cacheMisses());
        line(out, "ControlMessages", client.controlMessages());
        line(out, "DroppedFrees", client.droppedFrees());
        line(out, "Errors", errors());
        for (final Map.Entry<String, LongAdder> e : new TreeMap<>(errors).entrySet())
        {
            line(out, "Errors(" + e.getKey() + ")", e.getValue().sum());
        }
        out.flush();
    }

    private static void line(final PrintStream out, final String name, final long value)
    {
        out.println("[RDMAKV], " + name + ", " + value);
    }

    private static void ratio(final PrintStream out, final String name, final long numerator, final long denominator)
    {
        if (denominator > 0)
        {
            out.println(String.format(Locale.ROOT, "[RDMAKV], %s, %.4f", name, (double)numerator / denominator));
        }
    }
}
