package io.rdmakv.systemtests.nemesis;

import io.rdmakv.testsupport.linearizability.CheckResult;
import io.rdmakv.testsupport.linearizability.LinearizabilityChecker;
import io.rdmakv.testsupport.linearizability.Op;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;

/**
 * What one phase's merged history (every client's operations and the final reads) shows, key by key.
 * <ul>
 * <li><b>violation</b>: a key whose history the checker in test-support finds not linearizable as a
 * compare-and-set register (an indeterminate write may take effect at any time after its invocation, or never).</li>
 * <li><b>acknowledged write lost</b>: an acknowledged PUT or a CAS that returned true whose value no successful GET
 * (final reads included) ever returned, although no other write to the key could be ordered after it (none was
 * acknowledged after it was invoked: a write overlapping it may come after it) and the key has no write of unknown
 * outcome (which may take effect at any time after its invocation): nothing could have overwritten it, yet nobody
 * read it.</li>
 * <li><b>stale read</b>: a GET that returned a value whose (acknowledged) write had been overwritten before the GET
 * began: another write to the key was invoked after that write was acknowledged and was itself acknowledged before
 * the GET was invoked. GETs of "absent" are not counted.</li>
 * <li><b>longest unavailability</b>: the longest time, from the first invocation to the last completion of the
 * clients' operations, in which no operation completed with a result.</li>
 * </ul>
 */
record HistoryAnalysis(int operations, int indeterminate, int keys, Map<Integer, String> violations,
                       Map<Integer, String> unknown, int lostWrites, List<String> lostDetails, int staleReads,
                       List<String> staleDetails, long longestUnavailableMs)
{
    /** The process number of the final reads. */
    static final int FINAL_READER = 9999;
    private static final int DETAILS = 5;

    /** Analyses {@code history}; {@code origin} (the phase's start, nanoTime) is what the details' times count from. */
    static HistoryAnalysis of(final List<OpLine> history, final LinearizabilityChecker checker, final long origin)
    {
        final Map<Integer, List<OpLine>> byKey = new TreeMap<>();
        for (final OpLine op : history)
        {
            byKey.computeIfAbsent(op.key(), k -> new ArrayList<>()).add(op);
        }
        final Map<Integer, String> violations = new TreeMap<>();
        final Map<Integer, String> unknown = new TreeMap<>();
        final List<String> lost = new ArrayList<>();
        final List<String> stale = new ArrayList<>();
        for (final Map.Entry<Integer, List<OpLine>> e : byKey.entrySet())
        {
            final List<Op> ops = e.getValue().stream().map(OpLine::toOp).filter(o -> o != null)
                .sorted(Comparator.comparingLong(Op::invokeNanos)).toList();
            final CheckResult r = checker.check(ops, OptionalLong.empty());
            final String first = ops.isEmpty() ? "" : String.format("(the checker's times are ns from the key's first " +
                "operation, at %.3f ms of the phase) ", (ops.getFirst().invokeNanos() - origin) / 1e6);
            if (r.isViolation())
            {
                violations.put(e.getKey(), first + r.explanation());
            }
            else if (r.isUnknown())
            {
                unknown.put(e.getKey(), first + r.explanation());
            }
            lostWrites(e.getKey(), e.getValue(), origin, lost);
            staleReads(e.getKey(), e.getValue(), origin, stale);
        }
        return new HistoryAnalysis(history.size(), (int)history.stream().filter(OpLine::indeterminate).count(),
            byKey.size(), violations, unknown, lost.size(), lost.stream().limit(DETAILS).toList(), stale.size(),
            stale.stream().limit(DETAILS).toList(), longestUnavailableMs(history));
    }

    private static String ms(final long nanos, final long origin)
    {
        return String.format("%.3f ms", (nanos - origin) / 1e6);
    }

    private static void lostWrites(final int key, final List<OpLine> ops, final long origin, final List<String> out)
    {
        final Set<String> read = new HashSet<>();
        for (final OpLine op : ops)
        {
            if ("GET".equals(op.op()) && "ok".equals(op.outcome()))
            {
                read.add(op.value());
            }
        }
        if (ops.stream().anyMatch(OpLine::indeterminate))
        {
            return; // a write of unknown outcome may have overwritten any of them
        }
        for (final OpLine w : ops)
        {
            if (!w.acknowledgedWrite() || "DEL".equals(w.op()) || read.contains(w.value()))
            {
                continue;
            }
            final boolean overwritable = ops.stream()
                .anyMatch(o -> o != w && o.acknowledgedWrite() && o.complete() > w.invoke());
            if (!overwritable)
            {
                out.add("key " + key + ": " + w.op() + " of " + w.value() + " by p" + w.process() + " acknowledged at " +
                    ms(w.complete(), origin) + ", never read, nothing after it could overwrite it");
            }
        }
    }

    private static void staleReads(final int key, final List<OpLine> ops, final long origin, final List<String> out)
    {
        final Map<String, OpLine> writerOf = new HashMap<>();
        final List<OpLine> acked = new ArrayList<>();
        for (final OpLine op : ops)
        {
            if (op.acknowledgedWrite())
            {
                acked.add(op);
                if (!"DEL".equals(op.op()))
                {
                    writerOf.put(op.value(), op);
                }
            }
        }
        acked.sort(Comparator.comparingLong(OpLine::complete));
        // the latest invocation among the writes acknowledged by each point, to find one invoked after the read value's
        final long[] completes = new long[acked.size()];
        final long[] maxInvoke = new long[acked.size()];
        long max = Long.MIN_VALUE;
        for (int i = 0; i < acked.size(); i++)
        {
            completes[i] = acked.get(i).complete();
            max = Math.max(max, acked.get(i).invoke());
            maxInvoke[i] = max;
        }
        for (final OpLine g : ops)
        {
            if (!"GET".equals(g.op()) || !"ok".equals(g.outcome()) || OpLine.ABSENT.equals(g.value()))
            {
                continue;
            }
            final OpLine writer = writerOf.get(g.value());
            if (writer == null)
            {
                continue;
            }
            final int before = countBelow(completes, g.invoke());
            if (before > 0 && maxInvoke[before - 1] > writer.complete())
            {
                out.add("key " + key + ": p" + g.process() + " read " + g.value() + " at [" + ms(g.invoke(), origin) +
                    ", " + ms(g.complete(), origin) + "]; it was acknowledged at " + ms(writer.complete(), origin) +
                    " and overwritten before the read");
            }
        }
    }

    /** How many of the sorted {@code values} are below {@code limit}. */
    private static int countBelow(final long[] values, final long limit)
    {
        int lo = 0;
        int hi = values.length;
        while (lo < hi)
        {
            final int mid = (lo + hi) >>> 1;
            if (values[mid] < limit)
            {
                lo = mid + 1;
            }
            else
            {
                hi = mid;
            }
        }
        return lo;
    }

    private static long longestUnavailableMs(final List<OpLine> history)
    {
        final List<OpLine> load = history.stream().filter(o -> o.process() != FINAL_READER).toList();
        if (load.isEmpty())
        {
            return 0;
        }
        final long start = load.stream().mapToLong(OpLine::invoke).min().orElseThrow();
        final long end = load.stream().mapToLong(o -> Math.max(o.invoke(), o.complete())).max().orElseThrow();
        final long[] done = load.stream().filter(OpLine::succeeded).mapToLong(OpLine::complete).sorted().toArray();
        long previous = start;
        long longest = 0;
        for (final long t : done)
        {
            longest = Math.max(longest, t - previous);
            previous = t;
        }
        return Math.max(longest, end - previous) / 1_000_000;
    }
}
