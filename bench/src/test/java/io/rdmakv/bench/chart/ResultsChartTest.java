package io.rdmakv.bench.chart;

import io.rdmakv.bench.CommandLineRun;
import io.rdmakv.bench.BenchArgs;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.plot.CombinedDomainCategoryPlot;
import org.jfree.data.category.DefaultCategoryDataset;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.imageio.ImageIO;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ResultsChartTest
{
    private static final List<String> CSV = List.of(ResultsCsvTest.HEADER,
        "rdmakv,load,4,OVERALL,9000,,,,,,3.00,,,,,0,5,0-1,0-1",
        "rdmakv,load,4,INSERT,9000,,100,90,400,900,,,,,,0,5,0-1,0-1",
        "rdmakv,A,1,OVERALL,12000,1.20,,,,,1.60,,,,,0,5,0-1,0-1",
        "rdmakv,A,1,READ,6000,1.10,80,70,300,700,,,,,,0,5,0-1,0-1",
        "rdmakv,A,1,UPDATE,6000,1.30,120,110,400,800,,,,,,0,5,0-1,0-1",
        "redis,A,1,OVERALL,10000,,,,,,1.00,,,,,0,5,0-1,0-1",
        "redis,A,1,READ,5000,,90,85,350,0,1.00,,,,,0,5,0-1,0-1",
        "redis,A,1,UPDATE,5000,,95,90,360,,1.00,,,,,0,5,0-1,0-1",
        "rdmakv,D,4,OVERALL,20000,,,,,,1.30,,,,,0,5,0-1,0-1",
        "rdmakv,D,4,READ,19000,,50,40,200,500,,,,,,0,5,0-1,0-1",
        "rdmakv,D,4,INSERT,1000,,150,140,600,1200,,,,,,0,5,0-1,0-1",
        "rdmakv,F,4,OVERALL,15000,,,,,,1.30,,,,,0,5,0-1,0-1",
        "rdmakv,F,4,UPDATE,5000,,150,141,601,1201,,,,,,0,5,0-1,0-1",
        "rdmakv,F,4,INSERT,10,,999,999,999,999,,,,,,0,5,0-1,0-1");

    private static List<ResultsCsv.Row> rows()
    {
        return ResultsCsv.parse(CSV, "test.csv");
    }

    @Test
    void throughputIsEachStoresOverallPerRunWithoutTheLoad()
    {
        final DefaultCategoryDataset data = ResultsChart.throughput(rows());
        assertEquals(List.of("A 1t", "D 4t", "F 4t"), data.getColumnKeys());
        assertEquals(List.of("rdmakv", "redis"), data.getRowKeys());
        assertEquals(12000.0, data.getValue("rdmakv", "A 1t"));
        assertEquals(10000.0, data.getValue("redis", "A 1t"));
        assertNull(data.getValue("redis", "D 4t"));
    }

    @Test
    void latencyShowsThePercentilesOfReadsAndOfUpdatesElseInserts()
    {
        final DefaultCategoryDataset reads = ResultsChart.latency(rows(), Set.of("READ"));
        assertEquals(70.0, reads.getValue("rdmakv p50", "A 1t"));
        assertEquals(300.0, reads.getValue("rdmakv p99", "A 1t"));
        assertEquals(700.0, reads.getValue("rdmakv p99.9", "A 1t"));
        assertEquals(85.0, reads.getValue("redis p50", "A 1t"));
        assertTrue(!reads.getRowKeys().contains("redis p99.9") || reads.getValue("redis p99.9", "A 1t") == null,
            "a zero percentile is not drawn on a log axis");
        assertTrue(!reads.getColumnKeys().contains("load 4t"), "the load is not a run");
        final DefaultCategoryDataset writes = ResultsChart.latency(rows(), Set.of("UPDATE", "INSERT"));
        assertEquals(110.0, writes.getValue("rdmakv p50", "A 1t"));
        assertEquals(140.0, writes.getValue("rdmakv p50", "D 4t"), "D has no updates: its inserts");
        assertEquals(141.0, writes.getValue("rdmakv p50", "F 4t"), "F has updates: not its inserts");
    }

    @Test
    void theChartHasAThroughputAndTwoLatencyPanels()
    {
        final JFreeChart chart = ResultsChart.chart(rows(), "subtitle");
        final CombinedDomainCategoryPlot plot = (CombinedDomainCategoryPlot)chart.getPlot();
        assertEquals(3, plot.getSubplots().size());
        for (final Object subplot : plot.getSubplots())
        {
            assertEquals(List.of("A 1t", "D 4t", "F 4t"),
                ((org.jfree.chart.plot.CategoryPlot)subplot).getDataset().getColumnKeys(),
                "every panel has every run in the same place (panels draw by column index)");
        }
        assertEquals(2 + 3, plot.getFixedLegendItems().getItemCount(), "two stores and three percentiles");
    }

    @Test
    void mainWritesAPngOfTheChart(@TempDir final Path dir) throws IOException
    {
        final Path csv = Files.write(dir.resolve("results.csv"), CSV);
        final Path png = dir.resolve("results.png");
        ResultsChart.main(new String[] {csv.toString(), png.toString(), "a subtitle"});
        final BufferedImage image = ImageIO.read(png.toFile());
        assertEquals(ResultsChart.WIDTH, image.getWidth());
        assertEquals(ResultsChart.HEIGHT, image.getHeight());
        assertTrue(countColour(image, 0xC0392B) > 1000, "rdmakv's bars are drawn in its colour");
        assertTrue(countColour(image, 0x2471A3) > 1000, "and Redis's in its own");
    }

    @Test
    void aPanelWithoutValuesForSomeRunsStillHasTheirColumns()
    {
        final DefaultCategoryDataset writes = ResultsChart.aligned(ResultsChart.latency(
            ResultsCsv.parse(List.of(ResultsCsvTest.HEADER, "rdmakv,C,1,READ,1,,1,1,1,1,,,,,,0,0,0,0"), "x"),
            Set.of("UPDATE", "INSERT")), List.of("C 1t", "C 4t"));
        assertEquals(List.of("C 1t", "C 4t"), writes.getColumnKeys());
        assertNull(writes.getValue(0, 0));
    }

    @Test
    void rowsWithoutRunsAreAnError()
    {
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ResultsChart.chart(
            ResultsCsv.parse(List.of(ResultsCsvTest.HEADER, "rdmakv,load,4,OVERALL,9000,,,,,,,,,,,0,5,1,0"), "x"),
            ""));
        assertTrue(e.getMessage().contains("no runs to chart"), e.getMessage());
    }

    private static int countColour(final BufferedImage image, final int rgb)
    {
        int n = 0;
        for (int y = 0; y < image.getHeight(); y++)
        {
            for (int x = 0; x < image.getWidth(); x++)
            {
                if ((image.getRGB(x, y) & 0xFFFFFF) == rgb)
                {
                    n++;
                }
            }
        }
        return n;
    }

    @Test
    void commandLineTakesCsvPngAndAnOptionalSubtitleAndRefusesAnythingElseWithItsUsage()
    {
        final String[] help = commandLine(new ResultsChart.Options(), "--help");
        assertEquals("0", help[0]);
        assertTrue(help[1].startsWith("Usage: ResultsChart [-h] CSV PNG [SUBTITLE]"), help[1]);
        final ResultsChart.Options options = new ResultsChart.Options();
        assertEquals("-1", commandLine(options, "r.csv", "r.png")[0]);
        assertEquals(Path.of("r.csv"), options.csv);
        assertEquals(Path.of("r.png"), options.png);
        assertEquals("", options.subtitle);
        for (final String[] bad : new String[][] {{}, {"r.csv"}, {"r.csv", "r.png", "a", "b"}, {"--width", "9"}})
        {
            final String[] refused = commandLine(new ResultsChart.Options(), bad);
            assertEquals(Integer.toString(BenchArgs.USAGE), refused[0], List.of(bad).toString());
            assertTrue(refused[2].startsWith("ResultsChart: ") && refused[2].contains("Usage: ResultsChart"),
                refused[2]);
        }
    }

    /** Parses {@code args} as main does; returns the exit status (-1: it would run), stdout and stderr. */
    private static String[] commandLine(final Object options, final String... args)
    {
        return CommandLineRun.parse(options, args).fields();
    }
}
