package io.rdmakv.bench.grow;

import io.rdmakv.bench.BenchArgs;
import io.rdmakv.bench.ycsb.SteadyState;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogReader;
import org.HdrHistogram.EncodableHistogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The report of {@code bench/grow.sh}: joins YCSB's per-second interval histograms (one log per operation
 * type, {@code -p hdrhistogram.fileoutput=true} with {@code -s -p status.interval=1}; their timestamps are wall
 * clock milliseconds) with {@link GrowSampler}'s rows (the map and the nodes' move counters, once a second) into
 * one CSV row per interval of the workload (YCSB's status interval, a second; t_s: its start, from the first), and prints a summary as {@code key=value} lines: throughput before the
 * add (intervals that ended before it), while the cluster formed its new group (from the add to the first batch
 * in the map), while batches were in the map, and after; the time from the add until no batch remained and the
 * planner would start none (every group holds its share, {@code MapPlanner#plannedMoves} empty, no group
 * copying); bytes and keys moved (the nodes' {@code rdmakv_move_bytes_total}, {@code rdmakv_move_keys_total})
 * and MB/s over the move window; the longest read and update latency in any second; and YCSB's failed
 * operations (every {@code Return=} other than OK, and {@code -FAILED} measurements), which make it exit 1.
 * The CSV's stage column: {@code before}, {@code forming} (after the add, no batch yet), {@code moving},
 * {@code after}.
 */
public final class GrowReport
{
    static final String HEADER = "t_s,unix_ms,stage,ops_per_sec,read_ops,read_p99_us,read_max_us,update_ops," +
        "update_p99_us,update_max_us,map_epoch,groups,batches,partitions_moving,bytes_moved_per_sec," +
        "move_bytes_total,group_partitions,phases";
    private static final Pattern RETURN = Pattern.compile("^\\[([A-Z-]+)\\], Return=([A-Z_]+), (\\d+)");
    private static final Pattern FAILED = Pattern.compile("^\\[([A-Z-]+)-FAILED\\], Operations, (\\d+)");

    private GrowReport()
    {
    }

    @Command(name = "GrowReport", sortOptions = false,
        description = "bench/grow.sh's per-second CSV and summary from YCSB's interval logs and GrowSampler's rows.")
    static final class Options
    {
        @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
        boolean help;

        @Option(names = "--samples", required = true, paramLabel = "FILE", description = "GrowSampler's rows.")
        Path samples;

        @Option(names = "--add-ms", required = true, paramLabel = "UNIX_MS", description = "When the add began.")
        long addMs;

        @Option(names = "--added-ms", required = true, paramLabel = "UNIX_MS",
            description = "When the add returned (the new nodes ready).")
        long addedMs;

        @Option(names = "--ycsb-out", required = true, paramLabel = "FILE", description = "YCSB's standard output.")
        Path ycsbOut;

        @Option(names = "--csv", required = true, paramLabel = "FILE", description = "The CSV to write.")
        Path csv;

        @Parameters(arity = "1..*", paramLabel = "LOG.hdr", description = "YCSB's interval logs (READ, UPDATE).")
        List<Path> logs = new ArrayList<>();
    }

    /** One second of the workload. */
    record Second(long startMs, long endMs, Map<String, Histogram> byType)
    {
    }

    /** One GrowSampler row. */
    record Sample(long ms, long epoch, int groups, int batches, int batchPartitions, String phases, int copying,
        String groupPartitions, int planned, long bytes, long keys, double freezeSeconds)
    {
        boolean balanced()
        {
            return batches == 0 && planned == 0 && copying == 0 && groups >= 2;
        }
    }

    public static void main(final String[] args) throws IOException
    {
        final Options o = BenchArgs.parse(new Options(), args);
        final List<Second> seconds = seconds(o.logs);
        final List<Sample> samples = samples(o.samples);
        final int failed = report(o, seconds, samples, System.out);
        System.exit(failed == 0 ? 0 : 1);
    }

    /** The workload's seconds: the intervals of every operation type, bucketed by start from the first one's. */
    static List<Second> seconds(final List<Path> logs) throws IOException
    {
        final Map<String, List<long[]>> spans = new TreeMap<>();
        final Map<String, List<Histogram>> histograms = new TreeMap<>();
        long first = Long.MAX_VALUE;
        for (final Path log : logs)
        {
            final String type = SteadyState.typeOf(log);
            if (!type.equals("READ") && !type.equals("UPDATE"))
            {
                continue;
            }
            final List<long[]> s = new ArrayList<>();
            final List<Histogram> h = new ArrayList<>();
            try (HistogramLogReader reader = new HistogramLogReader(log.toFile()))
            {
                EncodableHistogram e;
                while ((e = reader.nextIntervalHistogram()) != null)
                {
                    s.add(new long[] {e.getStartTimeStamp(), e.getEndTimeStamp()});
                    h.add((Histogram)e);
                    first = Math.min(first, e.getStartTimeStamp());
                }
            }
            spans.put(type, s);
            histograms.put(type, h);
        }
        if (first == Long.MAX_VALUE)
        {
            throw new IllegalArgumentException("no READ or UPDATE intervals in the logs");
        }
        // one row per interval of the type with the most (YCSB closes every type's interval at the same status
        // tick; an interval may run longer than a second on a loaded machine, so none is bucketed by time), the
        // other type's interval that started nearest to it (within half a second) alongside
        String base = null;
        for (final String type : spans.keySet())
        {
            if (base == null || spans.get(type).size() > spans.get(base).size())
            {
                base = type;
            }
        }
        final List<Second> rows = new ArrayList<>();
        for (int i = 0; i < spans.get(base).size(); i++)
        {
            final long[] span = spans.get(base).get(i);
            final Second row = new Second(span[0], span[1], new TreeMap<>());
            row.byType().put(base, histograms.get(base).get(i));
            for (final String type : spans.keySet())
            {
                if (type.equals(base))
                {
                    continue;
                }
                int nearest = -1;
                for (int j = 0; j < spans.get(type).size(); j++)
                {
                    final long d = Math.abs(spans.get(type).get(j)[0] - span[0]);
                    if (d <= 500 && (nearest < 0 || d < Math.abs(spans.get(type).get(nearest)[0] - span[0])))
                    {
                        nearest = j;
                    }
                }
                if (nearest >= 0)
                {
                    row.byType().put(type, histograms.get(type).get(nearest));
                }
            }
            rows.add(row);
        }
        return rows;
    }

    static List<Sample> samples(final Path file) throws IOException
    {
        final List<Sample> samples = new ArrayList<>();
        final List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        for (final String line : lines.subList(Math.min(1, lines.size()), lines.size()))
        {
            final String[] c = line.split("\t");
            samples.add(new Sample(Long.parseLong(c[0]), Long.parseLong(c[1]), Integer.parseInt(c[2]),
                Integer.parseInt(c[3]), Integer.parseInt(c[4]), c[5], Integer.parseInt(c[6]), c[7],
                Integer.parseInt(c[8]), Long.parseLong(c[11]), Long.parseLong(c[12]), Double.parseDouble(c[15])));
        }
        if (samples.isEmpty())
        {
            throw new IllegalArgumentException(file + ": no samples");
        }
        return samples;
    }

    /** The newest sample taken at or before {@code ms} (the first one when none was). */
    private static Sample at(final List<Sample> samples, final long ms)
    {
        Sample found = samples.getFirst();
        for (final Sample s : samples)
        {
            if (s.ms() <= ms)
            {
                found = s;
            }
        }
        return found;
    }

    /** Writes the CSV, prints the summary; returns the number of failed operations. */
    static int report(final Options o, final List<Second> seconds, final List<Sample> samples, final PrintStream out)
        throws IOException
    {
        long windowStart = Long.MAX_VALUE;
        long windowEnd = Long.MAX_VALUE;
        for (final Sample s : samples)
        {
            if (s.ms() > o.addMs && s.batches() > 0 && windowStart == Long.MAX_VALUE)
            {
                windowStart = s.ms();
            }
            if (windowStart != Long.MAX_VALUE && s.ms() > windowStart && s.balanced())
            {
                windowEnd = s.ms();
                break;
            }
        }
        final long t0 = seconds.getFirst().startMs();
        final Map<String, double[]> stageOps = new TreeMap<>();
        double readMax = 0;
        double updateMax = 0;
        String readMaxAt = "-";
        String updateMaxAt = "-";
        try (PrintWriter csv = new PrintWriter(Files.newBufferedWriter(o.csv, StandardCharsets.UTF_8)))
        {
            csv.println(HEADER);
            long bytesBefore = at(samples, t0).bytes();
            for (final Second s : seconds)
            {
                final String stage = s.endMs() <= o.addMs ? "before" : s.startMs() >= windowEnd ? "after" :
                    s.endMs() > windowStart ? "moving" : "forming";
                final Histogram read = s.byType().getOrDefault("READ", new Histogram(3));
                final Histogram update = s.byType().getOrDefault("UPDATE", new Histogram(3));
                final double length = Math.max(1, s.endMs() - s.startMs()) / 1000.0;
                final double ops = (read.getTotalCount() + update.getTotalCount()) / length;
                stageOps.computeIfAbsent(stage, k -> new double[2])[0] += ops;
                stageOps.get(stage)[1]++;
                final Sample m = at(samples, s.endMs());
                final double t = (s.startMs() - t0) / 1000.0;
                if (read.getMaxValue() > readMax)
                {
                    readMax = read.getMaxValue();
                    readMaxAt = String.format(Locale.ROOT, "t=%.1fs(%s)", t, stage);
                }
                if (update.getMaxValue() > updateMax)
                {
                    updateMax = update.getMaxValue();
                    updateMaxAt = String.format(Locale.ROOT, "t=%.1fs(%s)", t, stage);
                }
                csv.println(String.join(",", String.format(Locale.ROOT, "%.1f", t), Long.toString(s.startMs()), stage,
                    String.format(Locale.ROOT, "%.0f", ops), Long.toString(read.getTotalCount()),
                    p99(read), Long.toString(read.getMaxValue()), Long.toString(update.getTotalCount()), p99(update),
                    Long.toString(update.getMaxValue()), Long.toString(m.epoch()), Integer.toString(m.groups()),
                    Integer.toString(m.batches()), Integer.toString(m.batchPartitions()),
                    Long.toString(m.bytes() - bytesBefore), Long.toString(m.bytes()), m.groupPartitions(),
                    m.phases().replace(',', '+')));
                bytesBefore = m.bytes();
            }
        }
        final Sample last = samples.getLast();
        final Sample first = samples.getFirst();
        final long bytes = last.bytes() - first.bytes();
        out.printf(Locale.ROOT, "intervals=%d (YCSB's per-second intervals of the workload, one CSV row each)%n",
            seconds.size());
        out.printf(Locale.ROOT, "add_at_s=%.1f (the add command began; it returned, the new nodes ready, %.1f s later)%n",
            (o.addMs - t0) / 1000.0, (o.addedMs - o.addMs) / 1000.0);
        for (final String stage : List.of("before", "forming", "moving", "after"))
        {
            final double[] v = stageOps.get(stage);
            out.printf(Locale.ROOT, "ops_per_sec_%s=%s%n", stage,
                v == null ? "- (no interval)" : String.format(Locale.ROOT, "%.0f (mean of %d intervals)", v[0] / v[1], (int)v[1]));
        }
        out.printf(Locale.ROOT, "first_batch_after_add_s=%s%n",
            windowStart == Long.MAX_VALUE ? "- (none)" : String.format(Locale.ROOT, "%.1f", (windowStart - o.addMs) / 1000.0));
        out.printf(Locale.ROOT, "balanced_after_add_s=%s%n", windowEnd == Long.MAX_VALUE ?
            "- (not within the sampling: a batch left, or the planner would start more)" :
            String.format(Locale.ROOT, "%.1f (no batch in the map, shares met, no group copying)", (windowEnd - o.addMs) / 1000.0));
        out.printf(Locale.ROOT, "move_window_s=%s%n", windowEnd == Long.MAX_VALUE ? "-" :
            String.format(Locale.ROOT, "%.1f", (windowEnd - windowStart) / 1000.0));
        out.printf(Locale.ROOT, "group_partitions=%s -> %s (epoch %d -> %d)%n", first.groupPartitions(),
            last.groupPartitions(), first.epoch(), last.epoch());
        out.printf(Locale.ROOT, "bytes_moved=%d (%.1f MiB, %d keys; rdmakv_move_bytes_total over all nodes)%n", bytes,
            bytes / 1048576.0, last.keys() - first.keys());
        out.printf(Locale.ROOT, "move_mib_per_sec=%s%n", windowEnd == Long.MAX_VALUE || windowEnd == windowStart ? "-" :
            String.format(Locale.ROOT, "%.2f (bytes moved over the move window)", bytes / 1048576.0 /
                ((windowEnd - windowStart) / 1000.0)));
        out.printf(Locale.ROOT, "freeze_seconds_total=%.3f (rdmakv_move_freeze_seconds_total: source primaries' freezes)%n",
            last.freezeSeconds() - first.freezeSeconds());
        out.printf(Locale.ROOT, "longest_read_us=%.0f at %s%n", readMax, readMaxAt);
        out.printf(Locale.ROOT, "longest_update_us=%.0f at %s%n", updateMax, updateMaxAt);
        // a failed operation is counted under its type's Return= line and again as a TYPE-FAILED measurement
        long returned = 0;
        long measured = 0;
        long ok = 0;
        final StringBuilder bad = new StringBuilder();
        for (final String line : Files.readAllLines(o.ycsbOut, StandardCharsets.UTF_8))
        {
            final Matcher r = RETURN.matcher(line);
            if (r.find())
            {
                if (r.group(2).equals("OK"))
                {
                    ok += Long.parseLong(r.group(3));
                }
                else
                {
                    returned += Long.parseLong(r.group(3));
                    bad.append(' ').append(r.group(1)).append(' ').append(r.group(2)).append('=').append(r.group(3));
                }
            }
            final Matcher f = FAILED.matcher(line);
            if (f.find())
            {
                measured += Long.parseLong(f.group(2));
                bad.append(' ').append(f.group(1)).append("-FAILED=").append(f.group(2));
            }
        }
        final int failed = (int)Math.min(Integer.MAX_VALUE, Math.max(returned, measured));
        if (ok == 0)
        {
            out.println("failed_operations=- (YCSB reported no Return= lines)");
            return Math.max(1, failed);
        }
        out.printf(Locale.ROOT, "operations_ok=%d%nfailed_operations=%d%s%n", ok, failed, bad);
        return failed;
    }

    private static String p99(final Histogram h)
    {
        return h.getTotalCount() == 0 ? "" : Long.toString(h.getValueAtPercentile(99));
    }
}
