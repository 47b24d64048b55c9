package io.rdmakv.bench.grow;

import io.rdmakv.bench.chart.GrowChart;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogWriter;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.plot.CombinedDomainXYPlot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * bench/grow.sh's Java parts on made-up inputs (nothing runs a cluster): the metrics parsing of
 * {@link GrowSampler}, {@link GrowReport}'s rows, stages and summary, and that its CSV draws.
 */
class GrowTest
{
    private static final long T0 = 1_796_000_000_000L;

    @Test
    void metricValuesAreMatchedByExactSeries()
    {
        final String text = """
            # HELP rdmakv_moves_total Move batches
            rdmakv_moves_total{outcome="finished"} 7.0
            rdmakv_moves_total{outcome="aborted"} 1.0
            rdmakv_move_bytes_total 1.2345E7
            rdmakv_move_bytes_total_created 1.7E9
            """;
        assertEquals(7, GrowSampler.value(text, "rdmakv_moves_total{outcome=\"finished\"}"));
        assertEquals(1, GrowSampler.value(text, "rdmakv_moves_total{outcome=\"aborted\"}"));
        assertEquals(12_345_000, GrowSampler.value(text, "rdmakv_move_bytes_total"));
        assertEquals(0, GrowSampler.value(text, "rdmakv_move_freeze_seconds_total"));
    }

    @Test
    void reportJoinsIntervalsAndSamples(@TempDir final Path dir) throws IOException
    {
        // 10 one-second intervals of each type; the UPDATE ones start 40 ms later; second 6 has a 2 s update
        final Path read = log(dir.resolve("run.READ.hdr"), 0, -1);
        final Path update = log(dir.resolve("run.UPDATE.hdr"), 40, 6);
        final Path samples = dir.resolve("samples.tsv");
        final List<String> rows = new ArrayList<>(List.of(GrowSampler.HEADER));
        for (int s = 0; s <= 11; s++)
        {
            // sampled 10 ms before each second; add at 3.5 s; a batch in the map from 5 s to 8 s; balanced from 9 s on
            final boolean moving = s >= 5 && s <= 8;
            rows.add(String.join("\t", Long.toString(T0 + s * 1000L - 10), Long.toString(s < 4 ? 1 : s), s < 4 ? "1" : "2",
                moving ? "1" : "0", moving ? "1" : "0", moving ? "3000:COPY" : "-", "0", s < 9 ? "16/0" : "8/8",
                s == 4 ? "1" : "0", "0", "0", Long.toString(1_048_576L * Math.min(3, Math.max(0, s - 5))), "0", "0", "0", "0.5", "0",
                "-"));
        }
        Files.write(samples, rows);
        final Path out = dir.resolve("run.out");
        Files.writeString(out, "[READ], Return=OK, 100\n[UPDATE], Return=OK, 99\n[UPDATE], Return=ERROR, 1\n" +
            "[UPDATE-FAILED], Operations, 1\n");
        final GrowReport.Options o = new GrowReport.Options();
        o.samples = samples;
        o.addMs = T0 + 3500;
        o.addedMs = T0 + 4000;
        o.ycsbOut = out;
        o.csv = dir.resolve("grow.csv");
        final ByteArrayOutputStream text = new ByteArrayOutputStream();
        final int failed = GrowReport.report(o, GrowReport.seconds(List.of(read, update)), GrowReport.samples(samples),
            new PrintStream(text, true, StandardCharsets.UTF_8));
        final String summary = text.toString(StandardCharsets.UTF_8);
        assertEquals(1, failed, summary);
        assertTrue(summary.contains("failed_operations=1 UPDATE ERROR=1"), summary);
        assertTrue(summary.contains("balanced_after_add_s=5.5 "), summary);
        assertTrue(summary.contains("bytes_moved=3145728 "), summary);
        assertTrue(summary.contains("longest_update_us=20") && summary.contains("at t=6.0s(moving)"), summary);
        final List<String> csv = Files.readAllLines(o.csv);
        assertEquals(GrowReport.HEADER, csv.getFirst());
        assertEquals(11, csv.size(), "one row per interval: " + csv);
        assertTrue(csv.get(1).startsWith("0.0,") && csv.get(1).contains(",before,"), csv.get(1));
        assertTrue(csv.get(3).contains(",before,") && csv.get(4).contains(",forming,"), csv.get(4));
        assertTrue(csv.get(5).contains(",moving,") && csv.get(9).contains(",moving,"), csv.get(5));
        assertTrue(csv.get(10).contains(",after,"), csv.get(10));
        final JFreeChart chart = GrowChart.chart(csv, "test");
        assertEquals(2, ((CombinedDomainXYPlot)chart.getPlot()).getSubplots().size());
    }

    /** One interval a second for 10 s, 100 values of 100 µs each; at {@code slowSecond} also one of 2 s. */
    private static Path log(final Path file, final long offsetMs, final int slowSecond) throws IOException
    {
        try (PrintStream out = new PrintStream(Files.newOutputStream(file), true, StandardCharsets.UTF_8))
        {
            final HistogramLogWriter writer = new HistogramLogWriter(out);
            writer.outputStartTime(T0 + offsetMs);
            writer.setBaseTime(T0 + offsetMs);
            writer.outputLegend();
            for (int s = 0; s < 10; s++)
            {
                final Histogram h = new Histogram(3);
                h.recordValueWithCount(100, 10);
                if (s == slowSecond)
                {
                    h.recordValue(2_000_000);
                }
                h.setStartTimeStamp(T0 + offsetMs + s * 1000L);
                h.setEndTimeStamp(T0 + offsetMs + (s + 1) * 1000L);
                writer.outputIntervalHistogram(h);
            }
        }
        return file;
    }
}
