package io.rdmakv.bench.chart;

import io.rdmakv.bench.BenchArgs;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.NumberTickUnit;
import org.jfree.chart.plot.CombinedDomainXYPlot;
import org.jfree.chart.plot.IntervalMarker;
import org.jfree.chart.plot.ValueMarker;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.title.TextTitle;
import org.jfree.chart.ui.Layer;
import org.jfree.chart.ui.RectangleAnchor;
import org.jfree.chart.ui.TextAnchor;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Option;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.DecimalFormat;
import java.util.Arrays;
import java.util.List;

/**
 * The picture of a {@code bench/grow.sh} run, drawn with JFreeChart (as {@link ResultsChart}) from its per-second
 * CSV: throughput over time, and the read and update p99 and max of each second on a log scale, sharing the time
 * axis (a second without operations of a type leaves a gap in its lines); the second of the add (the first
 * not {@code before} it) is a dashed line, the seconds with batches in the map (stage {@code moving}) a
 * shaded band. Usage: {@code GrowChart CSV PNG [SUBTITLE]}.
 */
public final class GrowChart
{
    private static final Color READ = new Color(0x2471A3);
    private static final Color UPDATE = new Color(0xC0392B);

    private GrowChart()
    {
    }

    @Command(name = "GrowChart", sortOptions = false, description = "The chart of bench/grow.sh's CSV, as a PNG.")
    static final class Options
    {
        @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
        boolean help;

        @Parameters(index = "0", paramLabel = "CSV", description = "bench/grow.sh's per-second CSV.")
        Path csv;

        @Parameters(index = "1", paramLabel = "PNG", description = "The chart to write.")
        Path png;

        @Parameters(index = "2", arity = "0..1", paramLabel = "SUBTITLE", description = "A line under the title.")
        String subtitle = "";
    }

    public static void main(final String[] args) throws IOException
    {
        final Options o = BenchArgs.parse(new Options(), args);
        ChartUtils.saveChartAsPNG(o.png.toFile(), chart(Files.readAllLines(o.csv, StandardCharsets.UTF_8), o.subtitle),
            1400, 900);
    }

    /** The chart of the CSV's lines (header first). */
    public static JFreeChart chart(final List<String> lines, final String subtitle)
    {
        final List<String> header = Arrays.asList(lines.getFirst().split(","));
        final int t = column(header, "t_s");
        final int stage = column(header, "stage");
        final int ops = column(header, "ops_per_sec");
        final int[] latency = {column(header, "read_p99_us"), column(header, "read_max_us"),
            column(header, "update_p99_us"), column(header, "update_max_us")};
        final String[] names = {"read p99", "read max", "update p99", "update max"};
        final XYSeries throughput = new XYSeries("ops/s");
        final XYSeries[] lat = new XYSeries[names.length];
        for (int i = 0; i < names.length; i++)
        {
            lat[i] = new XYSeries(names[i]);
        }
        double added = Double.NaN;
        double moveFrom = Double.NaN;
        double moveTo = Double.NaN;
        for (final String line : lines.subList(1, lines.size()))
        {
            final String[] c = line.split(",", -1);
            final double x = Double.parseDouble(c[t]);
            throughput.add(x, Double.parseDouble(c[ops]));
            for (int i = 0; i < names.length; i++)
            {
                // a second without operations of the type breaks its line (a null draws nothing)
                lat[i].add(x, !c[latency[i]].isEmpty() && Double.parseDouble(c[latency[i]]) > 0 ?
                    Double.valueOf(c[latency[i]]) : null);
            }
            if (!c[stage].equals("before") && Double.isNaN(added))
            {
                added = x;
            }
            if (c[stage].equals("moving"))
            {
                moveFrom = Double.isNaN(moveFrom) ? x : moveFrom;
                moveTo = x + 1;
            }
        }
        if (throughput.isEmpty())
        {
            throw new IllegalArgumentException("the CSV holds no seconds");
        }
        final NumberAxis time = new NumberAxis("seconds into the workload");
        final CombinedDomainXYPlot plot = new CombinedDomainXYPlot(time);
        plot.setGap(12);
        final XYLineAndShapeRenderer opsLine = new XYLineAndShapeRenderer(true, false);
        opsLine.setSeriesPaint(0, Color.DARK_GRAY);
        plot.add(new XYPlot(new XYSeriesCollection(throughput), null, new NumberAxis("throughput (ops/s)"), opsLine), 1);
        final XYSeriesCollection latencies = new XYSeriesCollection();
        final XYLineAndShapeRenderer latLines = new XYLineAndShapeRenderer(true, true);
        for (int i = 0; i < names.length; i++)
        {
            latencies.addSeries(lat[i]);
            latLines.setSeriesPaint(i, i < 2 ? READ : UPDATE);
            latLines.setSeriesShapesVisible(i, i % 2 == 1);
            if (i % 2 == 1)
            {
                latLines.setSeriesStroke(i, new BasicStroke(1f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10,
                    new float[] {2, 3}, 0));
            }
        }
        final LogAxis latencyAxis = new LogAxis("latency per second (µs)");
        latencyAxis.setBase(10);
        latencyAxis.setSmallestValue(1);
        latencyAxis.setTickUnit(new NumberTickUnit(1));
        latencyAxis.setNumberFormatOverride(new DecimalFormat("#,##0"));
        plot.add(new XYPlot(latencies, null, latencyAxis, latLines), 1);
        for (final Object sub : plot.getSubplots())
        {
            final XYPlot p = (XYPlot)sub;
            if (!Double.isNaN(moveFrom))
            {
                final IntervalMarker window = new IntervalMarker(moveFrom, moveTo, new Color(0xF9, 0xE7, 0x9F, 0x90));
                window.setLabel("batches in the map");
                window.setLabelAnchor(RectangleAnchor.TOP);
                window.setLabelTextAnchor(TextAnchor.TOP_CENTER);
                p.addDomainMarker(window, Layer.BACKGROUND);
            }
            if (!Double.isNaN(added))
            {
                final ValueMarker add = new ValueMarker(added, Color.BLACK, new BasicStroke(1.5f, BasicStroke.CAP_BUTT,
                    BasicStroke.JOIN_MITER, 10, new float[] {6, 4}, 0));
                add.setLabel("add");
                add.setLabelAnchor(RectangleAnchor.TOP_LEFT);
                add.setLabelTextAnchor(TextAnchor.TOP_RIGHT);
                p.addDomainMarker(add);
            }
        }
        final JFreeChart chart = new JFreeChart("rdmakv scale-out under load (YCSB workload A)",
            JFreeChart.DEFAULT_TITLE_FONT, plot, true);
        if (!subtitle.isBlank())
        {
            chart.addSubtitle(new TextTitle(subtitle));
        }
        return chart;
    }

    private static int column(final List<String> header, final String name)
    {
        final int i = header.indexOf(name);
        if (i < 0)
        {
            throw new IllegalArgumentException("the CSV has no column " + name + " (not bench/grow.sh's?)");
        }
        return i;
    }
}
