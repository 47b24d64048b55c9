package io.rdmakv.systemtests.nemesis;

import io.rdmakv.testsupport.linearizability.LinearizabilityChecker;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The nemesis's history checks on small hand-made histories (no namespaces needed: runs everywhere). */
class HistoryAnalysisTest
{
    private static final long MS = 1_000_000;

    private static OpLine put(final int p, final long value, final long from, final long to)
    {
        return new OpLine(p, "PUT", 0, Long.toString(value), "-", from * MS, to * MS, "ok", "-");
    }

    private static OpLine get(final int p, final String value, final long from, final long to)
    {
        return new OpLine(p, "GET", 0, value, "-", from * MS, to * MS, "ok", "-");
    }

    private static HistoryAnalysis analyse(final OpLine... ops)
    {
        return HistoryAnalysis.of(List.of(ops), new LinearizabilityChecker(), 0);
    }

    @Test
    void aLinearizableHistoryHasNoFindings()
    {
        final HistoryAnalysis a = analyse(put(1, 7, 0, 1), get(2, "7", 2, 3), put(1, 8, 4, 5),
            get(HistoryAnalysis.FINAL_READER, "8", 10, 11));
        assertEquals(0, a.violations().size());
        assertEquals(0, a.lostWrites());
        assertEquals(0, a.staleReads());
        assertEquals(4, a.operations());
    }

    @Test
    void theLastAcknowledgedWriteNeverReadIsLost()
    {
        final HistoryAnalysis a = analyse(put(1, 7, 0, 1), get(2, "7", 2, 3), put(1, 8, 4, 5),
            get(HistoryAnalysis.FINAL_READER, "7", 10, 11));
        assertEquals(1, a.lostWrites(), a.lostDetails().toString());
        assertEquals(1, a.staleReads(), "the final read of 7 after 8 was acknowledged");
        assertEquals(1, a.violations().size());
    }

    /**
     * Two PUTs overlap and the one acknowledged first is read at the end: it is ordered after the other, which was
     * overwritten, not lost (the nemesis once reported such a PUT as lost while the checker found the key
     * linearizable).
     */
    @Test
    void aWriteOverlappingALaterAcknowledgedOneIsNotLost()
    {
        final HistoryAnalysis a = analyse(put(1, 7, 0, 10), put(2, 8, 5, 8),
            get(HistoryAnalysis.FINAL_READER, "8", 20, 21));
        assertEquals(0, a.lostWrites(), a.lostDetails().toString());
        assertEquals(0, a.violations().size());
    }

    @Test
    void aWriteWithAnUnknownOutcomeAfterItMayHaveOverwrittenIt()
    {
        final HistoryAnalysis a = analyse(put(1, 7, 0, 1),
            new OpLine(2, "DEL", 0, "?", "-", 2 * MS, -1, "indeterminate", "TimeoutException"),
            get(HistoryAnalysis.FINAL_READER, "absent", 10, 11));
        assertEquals(0, a.lostWrites());
        assertEquals(0, a.violations().size());
        assertEquals(1, a.indeterminate());
    }

    @Test
    void theLongestTimeWithoutASuccessfulOperationCounts()
    {
        final HistoryAnalysis a = analyse(put(1, 7, 0, 1), new OpLine(2, "GET", 0, "?", "-", 2 * MS, 50 * MS, "fail", "x"),
            put(1, 8, 40, 301), get(2, "8", 302, 303));
        assertEquals(300, a.longestUnavailableMs());
        assertTrue(a.violations().isEmpty());
    }
}
