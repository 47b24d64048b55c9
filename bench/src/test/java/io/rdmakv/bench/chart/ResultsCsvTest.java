package io.rdmakv.bench.chart;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ResultsCsvTest
{
    static final String HEADER = "store,workload,threads,op,ops_per_sec,rdmakv_over_redis,avg_us,p50_us,p99_us," +
        "p999_us,rtt_per_op,client_cpu_us_per_op,node_cpu_us_per_op,cas_retries_per_update," +
        "update_retries_per_update,errors,warmup_s,node_cpus,client_cpus";

    @Test
    void readsTheColumnsByNameAndEmptyCellsAsNotMeasured()
    {
        final List<ResultsCsv.Row> rows = ResultsCsv.parse(List.of(HEADER,
            "rdmakv,A,4,OVERALL,12345.6,1.52,,,,,1.10,3.20,4.50,0.0000,0.0000,0,5,1,0",
            "rdmakv,A,4,READ,6172.8,1.50,310.5,250,980,2100,,,,,,0,5,1,0",
            ""), "x.csv");
        assertEquals(2, rows.size());
        final ResultsCsv.Row overall = rows.get(0);
        assertEquals("rdmakv", overall.store());
        assertEquals("A 4t", overall.run());
        assertEquals(12345.6, overall.opsPerSec());
        assertTrue(Double.isNaN(overall.p50Us()));
        final ResultsCsv.Row read = rows.get(1);
        assertEquals("READ", read.op());
        assertEquals(250, read.p50Us());
        assertEquals(980, read.p99Us());
        assertEquals(2100, read.p999Us());
    }

    @Test
    void columnOrderDoesNotMatter()
    {
        final List<ResultsCsv.Row> rows = ResultsCsv.parse(List.of(
            "p999_us,p99_us,p50_us,ops_per_sec,op,threads,workload,store", "3,2,1,100,READ,2,C,redis"), "x.csv");
        assertEquals(new ResultsCsv.Row("redis", "C", 2, "READ", 100, 1, 2, 3), rows.getFirst());
    }

    @Test
    void aMissingColumnIsNamed()
    {
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> ResultsCsv.parse(List.of("store,workload,threads,op,ops_per_sec,p50_us,p99_us"), "x.csv"));
        assertTrue(e.getMessage().contains("x.csv:1: no column 'p999_us'"), e.getMessage());
    }

    @Test
    void badCellsAreReportedWithTheirLine()
    {
        assertMessage("x.csv:2: ops_per_sec must be a number >= 0 or empty, not 'fast'",
            "rdmakv,A,4,OVERALL,fast,,,,,,,,,,,0,5,1,0");
        assertMessage("x.csv:2: p99_us must be a number >= 0 or empty, not '-5'",
            "rdmakv,A,4,READ,1,,1,1,-5,1,,,,,,0,5,1,0");
        assertMessage("x.csv:2: threads must be a positive integer, not '1.5'",
            "rdmakv,A,1.5,READ,1,,1,1,1,1,,,,,,0,5,1,0");
        assertMessage("x.csv:2: 3 cells, the header has 19", "rdmakv,A,4");
    }

    @Test
    void anEmptyFileIsNotAResultsCsv()
    {
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> ResultsCsv.parse(List.of(), "x.csv"));
        assertTrue(e.getMessage().contains("empty"), e.getMessage());
    }

    private static void assertMessage(final String expected, final String line)
    {
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> ResultsCsv.parse(List.of(HEADER, line), "x.csv"));
        assertEquals(expected, e.getMessage());
    }
}
