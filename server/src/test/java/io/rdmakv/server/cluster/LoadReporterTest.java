package io.rdmakv.server.cluster;

import io.rdmakv.common.hash.KeyHash;
import io.rdmakv.server.cluster.map.LoadReport;
import io.rdmakv.server.space.SegmentLoads;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * When {@code load/<id>} is written (docs/growth.md §11): at the first crossing of 75%, at most once a second when
 * the set of partitions over changes, every 10 s while any is over, never while none is, deleted when the last one
 * falls back; a failed write is tried again at the next tick. And the report's JSON.
 */
class LoadReporterTest
{
    private static final long SECOND = TimeUnit.SECONDS.toNanos(1);
    /** Partitions 4 and 9, segments of 10 groups (140 slots; 105 is 75%). */
    private static final long S4 = KeyHash.segment(0, 10);
    private static final long S9 = KeyHash.segment(10, 10);

    private SegmentLoads load = SegmentLoads.NONE;
    private final List<Object> written = new ArrayList<>();
    private boolean failing;
    private final LoadReporter reporter = new LoadReporter(3, () -> load, new LoadReporter.Sink()
    {
        @Override
        public void write(final LoadReport report) throws Exception
        {
            if (failing)
            {
                throw new Exception("connection loss");
            }
            written.add(LoadReport.fromJson(3, report.toJson()));
        }

        @Override
        public void delete()
        {
            written.add("deleted");
        }
    });

    private void used(final long used4, final long used9)
    {
        load = new SegmentLoads(7, new int[] {4, 9}, new long[] {S4, S9}, new long[] {used4, used9}, 0);
    }

    @Test
    void nothingIsWrittenWhileNoSegmentIsOver()
    {
        reporter.tick(0);
        used(104, 0);
        for (int i = 0; i < 100; i++)
        {
            reporter.tick(i * SECOND);
        }
        assertEquals(List.of(), written);
    }

    @Test
    void aCrossingIsWrittenAtOnceThenRefreshedEveryTenSecondsAndDeletedWhenItFalls()
    {
        used(105, 3);
        reporter.tick(5 * SECOND);
        assertEquals(List.of(new LoadReport(3, 7, List.of(new LoadReport.Over(4, S4, 105)))), written);
        used(120, 3);
        reporter.tick(6 * SECOND);
        reporter.tick(14 * SECOND);
        assertEquals(1, written.size(), "the same partitions: only every 10 s");
        reporter.tick(15 * SECOND);
        assertEquals(new LoadReport(3, 7, List.of(new LoadReport.Over(4, S4, 120))), written.get(1), "refreshed");
        used(0, 3);
        reporter.tick(15 * SECOND + SECOND);
        assertEquals("deleted", written.get(2));
        reporter.tick(40 * SECOND);
        assertEquals(3, written.size(), "nothing over: nothing written");
    }

    @Test
    void aSecondCrossingWaitsForTheGapAfterTheLastWrite()
    {
        used(110, 0);
        reporter.tick(0);
        used(110, 130);
        reporter.tick(SECOND / 2);
        assertEquals(1, written.size(), "at most one write a second");
        reporter.tick(SECOND);
        assertEquals(2, written.size());
        assertEquals(List.of(new LoadReport.Over(4, S4, 110), new LoadReport.Over(9, S9, 130)),
            ((LoadReport)written.get(1)).over());
    }

    @Test
    void aFailedWriteIsTriedAgainAtTheNextTick()
    {
        used(105, 0);
        failing = true;
        reporter.tick(0);
        assertEquals(0, written.size());
        failing = false;
        reporter.tick(TimeUnit.MILLISECONDS.toNanos(LoadReporter.TICK_MILLIS));
        assertEquals(1, written.size());
    }

    @Test
    void aMalformedReportIsRefusedNamingWhatIsWrong()
    {
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () ->
            LoadReport.fromJson(2, "{\"epoch\": 3, \"over\": [{\"partition\": 1, \"base\": 0, \"groups\": 1, \"used\": 5}]}"
                .getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        assertTrue(e.getMessage().contains("load report of node 2"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> LoadReport.fromJson(2,
            "{\"epoch\": 3}".getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    }
}
