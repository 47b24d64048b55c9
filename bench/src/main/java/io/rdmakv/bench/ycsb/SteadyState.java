package io.rdmakv.bench.ycsb;

import org.HdrHistogram.EncodableHistogram;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogReader;
import io.rdmakv.bench.BenchArgs;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * A YCSB run without its warm-up: reads the interval histograms YCSB's {@code hdrhistogram} measurement
 * logs per operation type ({@code -p hdrhistogram.fileoutput=true}, one interval per status report:
 * {@code -s -p status.interval=1}), drops the intervals that start less than WARMUP seconds after the
 * run's first operation, and prints the rest in YCSB's format: {@code [STEADY]} lines (the seconds
 * excluded and measured, the operations and throughput) and per operation type {@code [STEADY-TYPE]}
 * lines (operations, average and p50/p99/p99.9 latency in µs). A run shorter than twice the warm-up is
 * reported whole ({@code WarmupSeconds} 0). Usage: {@code SteadyState WARMUP_SECONDS LOG.hdr...}; a
 * log's operation type is its file name's last dot-separated part before {@code .hdr}.
 */
public final class SteadyState
{
    /** Measurements that are not operations of the workload (YCSB times its DB cleanup as one). */
    private static final Set<String> NOT_OPERATIONS = Set.of("CLEANUP");
    /** Counted under READ and UPDATE already. */
    private static final String READ_MODIFY_WRITE = "READ-MODIFY-WRITE";
    private static final double[] PERCENTILES = {50, 99, 99.9};
    private static final String[] PERCENTILE_NAMES = {"50th", "99th", "99.9"};

    private SteadyState()
    {
    }

    /** One interval of one operation type. */
    record Interval(long startMs, long endMs, Histogram histogram)
    {
    }

    @Command(name = "SteadyState", sortOptions = false,
        description = "A YCSB run's interval histogram logs without the warm-up, in YCSB's format.")
    static final class Options
    {
        @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
        boolean help;

        @Parameters(index = "0", paramLabel = "WARMUP_SECONDS",
            description = "Seconds from the run's first operation to leave out.")
        double warmup;

        @Parameters(index = "1..*", arity = "0..*", paramLabel = "LOG.hdr",
            description = "One interval log per operation type (the type: the file name's last part before .hdr).")
        List<Path> logs = new ArrayList<>();
    }

    public static void main(final String[] args) throws IOException
    {
        final Options options = BenchArgs.parse(new Options(), args);
        final Map<String, List<Interval>> logs = new TreeMap<>();
        for (final Path file : options.logs)
        {
            final String type = typeOf(file);
            if (!NOT_OPERATIONS.contains(type))
            {
                logs.put(type, read(file));
            }
        }
        report(logs, options.warmup, System.out);
    }

    public static String typeOf(final Path log)
    {
        final String name = log.getFileName().toString();
        if (!name.endsWith(".hdr"))
        {
            throw new IllegalArgumentException(log + ": not a YCSB histogram log (*.hdr)");
        }
        final String stem = name.substring(0, name.length() - ".hdr".length());
        return stem.substring(stem.lastIndexOf('.') + 1);
    }

    static List<Interval> read(final Path file) throws IOException
    {
        final List<Interval> intervals = new ArrayList<>();
        try (HistogramLogReader reader = new HistogramLogReader(file.toFile()))
        {
            EncodableHistogram h;
            while ((h = reader.nextIntervalHistogram()) != null)
            {
                if (!(h instanceof final Histogram histogram))
                {
                    throw new IllegalArgumentException(file + ": an interval is not an integer histogram");
                }
                intervals.add(new Interval(h.getStartTimeStamp(), h.getEndTimeStamp(), histogram));
            }
        }
        return intervals;
    }

    /** Prints the steady part of the run whose interval logs are {@code logs} (operation type to intervals). */
    static void report(final Map<String, List<Interval>> logs, final double warmupSeconds, final PrintStream out)
    {
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        for (final List<Interval> intervals : logs.values())
        {
            for (final Interval i : intervals)
            {
                first = Math.min(first, i.startMs());
                last = Math.max(last, i.endMs());
            }
        }
        if (first > last)
        {
            throw new IllegalArgumentException("the logs hold no intervals (did YCSB run with " +
                "hdrhistogram.fileoutput=true?)");
        }
        final long warmupMs = Math.round(warmupSeconds * 1000);
        final long cutoff = last - first >= 2 * warmupMs ? first + warmupMs : first;
        long steadyStart = Long.MAX_VALUE;
        long operations = 0;
        final Map<String, Histogram> steady = new TreeMap<>();
        for (final Map.Entry<String, List<Interval>> log : logs.entrySet())
        {
            final Histogram sum = new Histogram(3);
            for (final Interval i : log.getValue())
            {
                if (i.startMs() >= cutoff)
                {
                    sum.add(i.histogram());
                    steadyStart = Math.min(steadyStart, i.startMs());
                }
            }
            steady.put(log.getKey(), sum);
            if (!log.getKey().equals(READ_MODIFY_WRITE))
            {
                operations += sum.getTotalCount();
            }
        }
        final double seconds = steadyStart > last ? 0 : (last - steadyStart) / 1000.0;
        line(out, "STEADY", "WarmupSeconds", steadyStart > last ? 0 : (steadyStart - first) / 1000.0);
        line(out, "STEADY", "Seconds", seconds);
        line(out, "STEADY", "Operations", operations);
        line(out, "STEADY", "Throughput(ops/sec)", seconds > 0 ? operations / seconds : 0);
        for (final Map.Entry<String, Histogram> op : steady.entrySet())
        {
            final String section = "STEADY-" + op.getKey();
            final Histogram h = op.getValue();
            line(out, section, "Operations", h.getTotalCount());
            if (h.getTotalCount() > 0)
            {
                line(out, section, "AverageLatency(us)", h.getMean());
                for (int p = 0; p < PERCENTILES.length; p++)
                {
                    line(out, section, PERCENTILE_NAMES[p] + "PercentileLatency(us)", h.getValueAtPercentile(PERCENTILES[p]));
                }
            }
        }
    }

    private static void line(final PrintStream out, final String section, final String name, final double value)
    {
        out.println(String.format(Locale.ROOT, "[%s], %s, %s", section, name,
            value == Math.rint(value) ? Long.toString((long)value) : String.format(Locale.ROOT, "%.3f", value)));
    }
}
