package io.rdmakv.bench.chart;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Reads the CSV {@code bench/ycsb.sh} writes: a header naming the columns, then one row per store,
 * workload, thread count and operation. Only the columns a chart needs are read (by name, so their order
 * and any others do not matter); an empty cell is a value not measured ({@link Double#NaN}).
 */
public final class ResultsCsv
{
    static final String[] REQUIRED = {"store", "workload", "threads", "op", "ops_per_sec", "p50_us", "p99_us",
        "p999_us"};

    private ResultsCsv()
    {
    }

    /** One row: what the chart draws of it. */
    public record Row(String store, String workload, int threads, String op, double opsPerSec, double p50Us,
        double p99Us, double p999Us)
    {
        /** The chart's category: workload and thread count, e.g. {@code A 4t}. */
        public String run()
        {
            return workload + " " + threads + "t";
        }
    }

    public static List<Row> read(final Path file) throws IOException
    {
        return parse(Files.readAllLines(file, StandardCharsets.UTF_8), file.toString());
    }

    /**
     * Parses the lines of a results CSV.
     *
     * @param source what to name in error messages (the file)
     * @throws IllegalArgumentException naming the line and column of what is wrong
     */
    public static List<Row> parse(final List<String> lines, final String source)
    {
        if (lines.isEmpty())
        {
            throw new IllegalArgumentException(source + ": empty, not a results CSV (no header)");
        }
        final List<String> header = Arrays.asList(lines.getFirst().split(",", -1));
        final int[] at = new int[REQUIRED.length];
        for (int i = 0; i < REQUIRED.length; i++)
        {
            at[i] = header.indexOf(REQUIRED[i]);
            if (at[i] < 0)
            {
                throw new IllegalArgumentException(source + ":1: no column '" + REQUIRED[i] + "' in the header " +
                    "(needs " + String.join(",", REQUIRED) + ")");
            }
        }
        final List<Row> rows = new ArrayList<>();
        for (int n = 1; n < lines.size(); n++)
        {
            final String line = lines.get(n);
            if (line.isBlank())
            {
                continue;
            }
            final String[] cells = line.split(",", -1);
            final String where = source + ":" + (n + 1) + ": ";
            if (cells.length != header.size())
            {
                throw new IllegalArgumentException(where + cells.length + " cells, the header has " + header.size());
            }
            final double threads = number(cells[at[2]], where, "threads");
            if (threads < 1 || threads != Math.rint(threads))
            {
                throw new IllegalArgumentException(where + "threads must be a positive integer, not '" + cells[at[2]] +
                    "'");
            }
            rows.add(new Row(cells[at[0]], cells[at[1]], (int)threads, cells[at[3]], number(cells[at[4]], where,
                "ops_per_sec"), number(cells[at[5]], where, "p50_us"), number(cells[at[6]], where, "p99_us"),
                number(cells[at[7]], where, "p999_us")));
        }
        return rows;
    }

    private static double number(final String cell, final String where, final String column)
    {
        if (cell.isEmpty())
        {
            return Double.NaN;
        }
        try
        {
            final double value = Double.parseDouble(cell);
            if (value >= 0 && Double.isFinite(value))
            {
                return value;
            }
        }
        catch (final NumberFormatException e)
        {
            // reported below
        }
        throw new IllegalArgumentException(where + column + " must be a number >= 0 or empty, not '" + cell + "'");
    }
}
