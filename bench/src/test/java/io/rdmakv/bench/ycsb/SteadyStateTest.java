package io.rdmakv.bench.ycsb;

import io.rdmakv.bench.CommandLineRun;
import io.rdmakv.bench.BenchArgs;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SteadyStateTest
{
    private static final long START_MS = 1_700_000_000_000L;

    @Test
    void theWarmUpIntervalsAreLeftOut(@TempDir final Path dir) throws IOException
    {
        // 10 one-second intervals: the first 3 slow (10 ms) and few, the rest fast (100 µs) and many
        final Map<String, List<SteadyState.Interval>> logs = new TreeMap<>();
        logs.put("READ", SteadyState.read(log(dir.resolve("run.out.READ.hdr"), 10, 3, 10, 100)));
        logs.put("UPDATE", SteadyState.read(log(dir.resolve("run.out.UPDATE.hdr"), 10, 3, 5, 50)));
        logs.put("READ-MODIFY-WRITE", SteadyState.read(log(dir.resolve("run.out.READ-MODIFY-WRITE.hdr"), 10, 3, 5,
            50)));
        final Map<String, String> out = report(logs, 3);
        assertEquals("3", out.get("STEADY/WarmupSeconds"));
        assertEquals("7", out.get("STEADY/Seconds"));
        assertEquals("1050", out.get("STEADY/Operations"), "7 x (100 + 50): READ-MODIFY-WRITE is not counted twice");
        assertEquals("150", out.get("STEADY/Throughput(ops/sec)"));
        assertEquals("700", out.get("STEADY-READ/Operations"));
        assertEquals("100", out.get("STEADY-READ/99.9PercentileLatency(us)"), "no warm-up latency left");
        assertEquals("100", out.get("STEADY-READ/50thPercentileLatency(us)"));
        assertEquals("350", out.get("STEADY-UPDATE/Operations"));
    }

    @Test
    void aRunShorterThanTwiceTheWarmUpIsReportedWhole(@TempDir final Path dir) throws IOException
    {
        final Map<String, List<SteadyState.Interval>> logs = Map.of("READ",
            SteadyState.read(log(dir.resolve("r.READ.hdr"), 5, 3, 10, 100)));
        final Map<String, String> out = report(logs, 3);
        assertEquals("0", out.get("STEADY/WarmupSeconds"));
        assertEquals("5", out.get("STEADY/Seconds"));
        assertEquals("230", out.get("STEADY/Operations"));
        assertEquals(Long.toString(new Histogram(3).highestEquivalentValue(10_000)),
            out.get("STEADY-READ/99.9PercentileLatency(us)"), "the warm-up is in");
    }

    @Test
    void logsWithoutIntervalsAreAnError()
    {
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> report(Map.of("READ", List.of()), 3));
        assertTrue(e.getMessage().contains("no intervals"), e.getMessage());
    }

    @Test
    void theOperationTypeIsTheFileNamesLastPart()
    {
        assertEquals("READ", SteadyState.typeOf(Path.of("/tmp/x/rdmakv-a-1.out.READ.hdr")));
        assertEquals("READ-MODIFY-WRITE", SteadyState.typeOf(Path.of("redis-f-4.out.READ-MODIFY-WRITE.hdr")));
        assertThrows(IllegalArgumentException.class, () -> SteadyState.typeOf(Path.of("a.out")));
    }

    /** A YCSB-style log: `seconds` intervals, the first `slow` with `slowCount` values of 10 ms. */
    private static Path log(final Path file, final int seconds, final int slow, final int slowCount,
        final int fastCount) throws IOException
    {
        try (PrintStream ps = new PrintStream(file.toFile(), StandardCharsets.UTF_8))
        {
            final HistogramLogWriter writer = new HistogramLogWriter(ps);
            writer.outputLogFormatVersion();
            writer.outputStartTime(START_MS);
            writer.setBaseTime(START_MS);
            writer.outputLegend();
            for (int s = 0; s < seconds; s++)
            {
                final Histogram h = new Histogram(3);
                h.recordValueWithCount(s < slow ? 10_000 : 100, s < slow ? slowCount : fastCount);
                h.setStartTimeStamp(START_MS + s * 1000L);
                h.setEndTimeStamp(START_MS + (s + 1) * 1000L);
                writer.outputIntervalHistogram(h);
            }
        }
        return file;
    }

    private static Map<String, String> report(final Map<String, List<SteadyState.Interval>> logs, final double warmup)
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        SteadyState.report(logs, warmup, new PrintStream(bytes, true, StandardCharsets.UTF_8));
        final Map<String, String> out = new HashMap<>();
        for (final String line : bytes.toString(StandardCharsets.UTF_8).split("\n"))
        {
            final String[] cells = line.split(", ");
            out.put(cells[0].substring(1, cells[0].length() - 1) + "/" + cells[1], cells[2]);
        }
        return out;
    }

    @Test
    void commandLineTakesTheWarmUpAndTheLogsAndRefusesAnythingElseWithItsUsage()
    {
        final String[] help = commandLine(new SteadyState.Options(), "--help");
        assertEquals("0", help[0]);
        assertTrue(help[1].startsWith("Usage: SteadyState [-h] WARMUP_SECONDS [LOG.hdr...]"), help[1]);
        final SteadyState.Options options = new SteadyState.Options();
        assertEquals("-1", commandLine(options, "2.5", "a.READ.hdr", "a.UPDATE.hdr")[0]);
        assertEquals(2.5, options.warmup);
        assertEquals(List.of(Path.of("a.READ.hdr"), Path.of("a.UPDATE.hdr")), options.logs);
        assertEquals("-1", commandLine(new SteadyState.Options(), "0")[0], "no logs: an empty report");
        for (final String[] bad : new String[][] {{}, {"soon"}, {"--warm", "5"}})
        {
            final String[] refused = commandLine(new SteadyState.Options(), bad);
            assertEquals(Integer.toString(BenchArgs.USAGE), refused[0], List.of(bad).toString());
            assertTrue(refused[2].startsWith("SteadyState: ") && refused[2].contains("Usage: SteadyState"), refused[2]);
        }
        assertTrue(commandLine(new SteadyState.Options(), "soon")[2].contains("'soon' is not a double"));
    }

    /** Parses {@code args} as main does; returns the exit status (-1: it would run), stdout and stderr. */
    private static String[] commandLine(final Object options, final String... args)
    {
        return CommandLineRun.parse(options, args).fields();
    }
}
