package io.rdmakv.bench.chart;

import io.rdmakv.bench.BenchArgs;
import org.jfree.chart.ChartColor;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.LegendItem;
import org.jfree.chart.LegendItemCollection;
import org.jfree.chart.axis.CategoryAxis;
import org.jfree.chart.axis.CategoryLabelPositions;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.NumberTickUnit;
import org.jfree.chart.axis.ValueAxis;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.CombinedDomainCategoryPlot;
import org.jfree.chart.renderer.category.BarRenderer;
import org.jfree.chart.renderer.category.CategoryItemRenderer;
import org.jfree.chart.renderer.category.LineAndShapeRenderer;
import org.jfree.chart.renderer.category.StandardBarPainter;
import org.jfree.chart.title.TextTitle;
import org.jfree.data.Range;
import org.jfree.data.category.DefaultCategoryDataset;
import org.jfree.data.general.DatasetUtils;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.awt.Color;
import java.awt.Paint;
import java.awt.Shape;
import java.awt.geom.Ellipse2D;
import java.awt.geom.Path2D;
import java.awt.geom.Rectangle2D;
import java.io.IOException;
import java.nio.file.Path;
import java.text.DecimalFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The picture of a {@code bench/ycsb.sh} run, drawn with JFreeChart from its CSV: per workload and thread
 * count (one category each, in the CSV's order; the load is left out), three panels sharing that axis:
 * throughput per store (bars), and the p50, p99 and p99.9 latency of reads and of writes (updates, or
 * inserts where a workload has no updates) per store on a log scale. A store has one colour in every
 * panel, a percentile one shape.
 * Usage: {@code ResultsChart CSV PNG [SUBTITLE]}.
 */
public final class ResultsChart
{
    static final int WIDTH = 1400;
    static final int HEIGHT = 1100;
    private static final String LOAD = "load";
    private static final Set<String> WRITES = Set.of("UPDATE", "INSERT");
    /** The percentiles drawn, as the series name's suffix, and each one's shape. */
    private static final String[] PERCENTILES = {"p50", "p99", "p99.9"};
    private static final Shape[] SHAPES = {new Rectangle2D.Double(-4, -4, 8, 8), new Ellipse2D.Double(-4, -4, 8, 8),
        triangle()};
    private static final Paint[] COLOURS = {new Color(0xC0392B), new Color(0x2471A3), new Color(0x229954),
        new Color(0x7D3C98), ChartColor.DARK_GRAY};

    private ResultsChart()
    {
    }

    @Command(name = "ResultsChart", sortOptions = false,
        description = "The chart of bench/ycsb.sh's results.csv, as a PNG.")
    static final class Options
    {
        @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
        boolean help;

        @Parameters(index = "0", paramLabel = "CSV", description = "The results (bench/ycsb.sh's results.csv).")
        Path csv;

        @Parameters(index = "1", paramLabel = "PNG", description = "The chart to write.")
        Path png;

        @Parameters(index = "2", arity = "0..1", paramLabel = "SUBTITLE", description = "A line under the title.")
        String subtitle = "";
    }

    public static void main(final String[] args) throws IOException
    {
        final Options options = BenchArgs.parse(new Options(), args);
        final List<ResultsCsv.Row> rows = ResultsCsv.read(options.csv);
        final JFreeChart chart = chart(rows, options.subtitle);
        ChartUtils.saveChartAsPNG(options.png.toFile(), chart, WIDTH, HEIGHT);
    }

    /** The chart of {@code rows}; throws IllegalArgumentException when they hold no run to draw. */
    public static JFreeChart chart(final List<ResultsCsv.Row> rows, final String subtitle)
    {
        final DefaultCategoryDataset throughput = throughput(rows);
        if (throughput.getColumnCount() == 0)
        {
            throw new IllegalArgumentException("no runs to chart (no OVERALL rows other than the load)");
        }
        final CombinedDomainCategoryPlot plot = new CombinedDomainCategoryPlot(new CategoryAxis("workload, threads"));
        plot.getDomainAxis().setCategoryLabelPositions(CategoryLabelPositions.UP_45);
        plot.setGap(12);
        final List<String> stores = List.copyOf(stores(rows));
        final BarRenderer bars = new BarRenderer();
        bars.setBarPainter(new StandardBarPainter());
        bars.setShadowVisible(false);
        bars.setMaximumBarWidth(0.08);
        for (int i = 0; i < throughput.getRowCount(); i++)
        {
            bars.setSeriesPaint(i, colour(stores, (String)throughput.getRowKey(i)));
        }
        plot.add(panel(throughput, new NumberAxis("throughput (ops/s)"), bars), 2);
        @SuppressWarnings("unchecked")
        final List<String> runs = (List<String>)throughput.getColumnKeys();
        final DefaultCategoryDataset reads = aligned(latency(rows, Set.of("READ")), runs);
        final DefaultCategoryDataset writes = aligned(latency(rows, WRITES), runs);
        plot.add(panel(reads, latencyAxis("read latency (µs)", reads), points(reads, stores)), 2);
        plot.add(panel(writes, latencyAxis("update/insert latency (µs)", writes), points(writes, stores)), 2);
        plot.setFixedLegendItems(legend(stores));
        final JFreeChart chart = new JFreeChart("rdmakv YCSB", JFreeChart.DEFAULT_TITLE_FONT, plot, true);
        if (!subtitle.isBlank())
        {
            chart.addSubtitle(new TextTitle(subtitle));
        }
        return chart;
    }

    /** Operations per second of each store (a series) per run (a category), from the OVERALL rows. */
    static DefaultCategoryDataset throughput(final List<ResultsCsv.Row> rows)
    {
        final DefaultCategoryDataset data = new DefaultCategoryDataset();
        for (final ResultsCsv.Row r : rows)
        {
            if (r.op().equals("OVERALL") && !r.workload().equals(LOAD) && !Double.isNaN(r.opsPerSec()))
            {
                data.addValue(r.opsPerSec(), r.store(), r.run());
            }
        }
        return data;
    }

    /**
     * The p50, p99 and p99.9 of each store ("rdmakv p99") per run, from the rows of the first of {@code ops}
     * a run has (a run with UPDATE rows shows those, not its INSERTs); missing and zero values are left out.
     */
    static DefaultCategoryDataset latency(final List<ResultsCsv.Row> rows, final Set<String> ops)
    {
        final DefaultCategoryDataset data = new DefaultCategoryDataset();
        for (final ResultsCsv.Row r : rows)
        {
            if (!ops.contains(r.op()) || r.workload().equals(LOAD) ||
                (r.op().equals("INSERT") && hasRow(rows, r, "UPDATE")))
            {
                continue;
            }
            add(data, r.p50Us(), r.store() + " p50", r.run());
            add(data, r.p99Us(), r.store() + " p99", r.run());
            add(data, r.p999Us(), r.store() + " p99.9", r.run());
        }
        return data;
    }

    /**
     * {@code data} with exactly the columns {@code runs}, in that order (a panel draws by column index, so
     * all panels need the same columns); a run it lacks gets empty values, which draw nothing.
     */
    static DefaultCategoryDataset aligned(final DefaultCategoryDataset data, final List<String> runs)
    {
        final DefaultCategoryDataset out = new DefaultCategoryDataset();
        for (final String run : runs)
        {
            if (data.getRowCount() == 0)
            {
                out.addValue(null, "none", run);
            }
            for (int row = 0; row < data.getRowCount(); row++)
            {
                final Comparable<?> series = data.getRowKey(row);
                out.addValue(data.getColumnKeys().contains(run) ? data.getValue(series, run) : null, series, run);
            }
        }
        return out;
    }

    private static boolean hasRow(final List<ResultsCsv.Row> rows, final ResultsCsv.Row like, final String op)
    {
        return rows.stream().anyMatch(r -> r.op().equals(op) && r.store().equals(like.store()) &&
            r.run().equals(like.run()));
    }

    private static void add(final DefaultCategoryDataset data, final double value, final String series,
        final String run)
    {
        if (value > 0)
        {
            data.addValue(value, series, run);
        }
    }

    private static CategoryPlot panel(final DefaultCategoryDataset data, final ValueAxis axis,
        final CategoryItemRenderer renderer)
    {
        return new CategoryPlot(data, null, axis, renderer);
    }

    /** The stores in the order the rows name them first. */
    static Set<String> stores(final List<ResultsCsv.Row> rows)
    {
        final Set<String> stores = new LinkedHashSet<>();
        rows.forEach(r -> stores.add(r.store()));
        return stores;
    }

    private static Paint colour(final List<String> stores, final String series)
    {
        for (int i = 0; i < stores.size(); i++)
        {
            if (series.equals(stores.get(i)) || series.startsWith(stores.get(i) + " "))
            {
                return COLOURS[i % COLOURS.length];
            }
        }
        return ChartColor.BLACK;
    }

    /** A log axis over whole decades around the values, a tick each. */
    private static LogAxis latencyAxis(final String label, final DefaultCategoryDataset data)
    {
        final LogAxis axis = new LogAxis(label);
        axis.setBase(10);
        axis.setSmallestValue(1);
        axis.setTickUnit(new NumberTickUnit(1));
        axis.setNumberFormatOverride(new DecimalFormat("#,##0"));
        final Range range = DatasetUtils.findRangeBounds(data);
        if (range != null)
        {
            // a third of a decade's room, so no point sits on an edge
            axis.setRange(Math.pow(10, Math.floor(Math.log10(range.getLowerBound()) - 0.3)),
                Math.pow(10, Math.max(1, Math.ceil(Math.log10(range.getUpperBound()) + 0.3))));
        }
        return axis;
    }

    /** Points, coloured by store, shaped by percentile, each series a little offset within its category. */
    private static LineAndShapeRenderer points(final DefaultCategoryDataset data, final List<String> stores)
    {
        final LineAndShapeRenderer r = new LineAndShapeRenderer(false, true);
        r.setUseSeriesOffset(true);
        for (int i = 0; i < data.getRowCount(); i++)
        {
            final String series = (String)data.getRowKey(i);
            r.setSeriesPaint(i, colour(stores, series));
            for (int p = 0; p < PERCENTILES.length; p++)
            {
                if (series.endsWith(" " + PERCENTILES[p]))
                {
                    r.setSeriesShape(i, SHAPES[p]);
                }
            }
        }
        return r;
    }

    /** One item per store (its colour) and per percentile (its shape). */
    private static LegendItemCollection legend(final List<String> stores)
    {
        final LegendItemCollection items = new LegendItemCollection();
        for (final String store : stores)
        {
            items.add(new LegendItem(store, colour(stores, store)));
        }
        for (int p = 0; p < PERCENTILES.length; p++)
        {
            final LegendItem item = new LegendItem(PERCENTILES[p], ChartColor.GRAY);
            item.setShape(SHAPES[p]);
            items.add(item);
        }
        return items;
    }

    private static Shape triangle()
    {
        final Path2D.Double t = new Path2D.Double();
        t.moveTo(0, -5);
        t.lineTo(5, 4);
        t.lineTo(-5, 4);
        t.closePath();
        return t;
    }
}
