package io.rdmakv.server.space;

import io.rdmakv.common.hash.KeyHash;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static io.rdmakv.server.space.TestRegion.GEOMETRY;
import static io.rdmakv.server.space.TestRegion.key;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The census's per-segment counts (docs/growth.md §11): the same passes that count the index for STATS count each
 * watched segment, a few groups per call, with the pieces split at the segments' bounds; a load is published at the
 * end of a pass, and a pass is due every load period while segments are watched.
 */
class IndexCensusTest
{
    private static final long PERIOD = 1_000;

    private final TestRegion region = new TestRegion();
    private final IndexScanner scanner = new IndexScanner(new CpuIndexAtomics(region.segment()), GEOMETRY);
    private final IndexCensus census = new IndexCensus(scanner, 100, PERIOD);
    private int keys;

    @AfterEach
    void close()
    {
        region.close();
    }

    /** Fills {@code slots} slots from slot 0 of group {@code group} on (14 a group). */
    private void fill(final long group, final int slots)
    {
        for (int i = 0; i < slots; i++)
        {
            region.insert(key("k" + keys), 64L * ++keys, 8, group + i / 14, i % 14);
        }
    }

    /** Runs one whole pass, {@code budget} groups per call, at time {@code now}. */
    private void pass(final long budget, final long now)
    {
        do
        {
            census.advance(budget, now);
        }
        while (census.inProgress());
    }

    @Test
    void eachWatchedSegmentIsCountedApartAcrossPiecesOfAnySize()
    {
        // partition 3 at [100, 150), 1 at [10, 30), 7 at the index's end [4000, 4096); given out of base order
        census.watch(9, new int[] {3, 1, 7}, new long[] {KeyHash.segment(100, 50), KeyHash.segment(10, 20),
            KeyHash.segment(4000, 96)});
        fill(9, 5);     // before and across partition 1's first group: 5 in group 9, none in the segment
        fill(29, 20);   // 14 in group 29 (partition 1's last), 6 in group 30 (outside)
        fill(149, 3);   // partition 3's last group
        fill(4095, 14); // the index's last group: partition 7
        fill(2000, 4);  // nobody's
        for (final long budget : new long[] {7, 1, 4096, 33})
        {
            pass(budget, 0);
            final SegmentLoads load = census.load();
            assertEquals(9, load.epoch());
            assertArrayEquals(new int[] {1, 3, 7}, load.partitions(), "by ascending base");
            assertArrayEquals(new long[] {14, 3, 14}, load.usedSlots(), "budget " + budget);
            assertEquals(46, census.usedSlots(), "the whole index, as before");
            assertEquals(20 * 14, load.slots(0));
            assertEquals(3, load.usedIn(KeyHash.segment(100, 50)), "found by its packed segment");
            assertEquals(14, load.usedIn(KeyHash.segment(4000, 96)));
            assertEquals(-1, load.usedIn(KeyHash.segment(10, 21)), "the same base, another length: not watched");
            assertEquals(-1, load.usedIn(KeyHash.segment(2000, 4)));
        }
    }

    @Test
    void aSegmentAtOrAboveThreeQuartersIsOver()
    {
        census.watch(4, new int[] {0, 1}, new long[] {KeyHash.segment(0, 2), KeyHash.segment(2, 2)});
        fill(0, 21);    // 21 of 28: exactly 75%
        fill(2, 20);    // 20 of 28: under
        pass(4096, 0);
        final SegmentLoads load = census.load();
        assertTrue(load.over(0), load.toString());
        assertFalse(load.over(1), load.toString());
        assertEquals(0.75, load.maxLoad(), 1e-9);
    }

    @Test
    void aPassIsDueEveryPeriodOnlyWhileSegmentsAreWatched()
    {
        assertFalse(census.loadDue(0), "nothing watched: passes only for STATS");
        census.watch(2, new int[] {5}, new long[] {KeyHash.segment(0, 10)});
        assertTrue(census.loadDue(0), "never counted");
        census.advance(100, 50);
        assertTrue(census.loadDue(60), "a pass under way goes on");
        pass(4096, 60);
        assertFalse(census.loadDue(50 + PERIOD - 1));
        assertTrue(census.loadDue(50 + PERIOD), "a period after the pass started");
        census.watch(3, new int[0], new long[0]);
        assertSame(SegmentLoads.NONE, census.load(), "nothing watched: nothing reported, at once");
        assertFalse(census.loadDue(10 * PERIOD));
    }

    @Test
    void aPassUnderWayWhenTheSegmentsChangePublishesNothingAndTheNextCountsTheNewOnes()
    {
        census.watch(2, new int[] {5}, new long[] {KeyHash.segment(0, 10)});
        fill(0, 3);
        fill(20, 5);
        census.advance(5, 0);
        census.watch(3, new int[] {6}, new long[] {KeyHash.segment(20, 10)});
        pass(4096, 0);
        assertSame(SegmentLoads.NONE, census.load(), "counted over another table: dropped");
        pass(4096, 1);
        assertArrayEquals(new int[] {6}, census.load().partitions());
        assertArrayEquals(new long[] {5}, census.load().usedSlots());
        census.watch(4, new int[] {6}, new long[] {KeyHash.segment(20, 10)});
        pass(4096, 2);
        assertEquals(3, census.load().epoch(), "the same segments in a later map: the epoch they were first watched at");
    }

    @Test
    void overlappingSegmentsAreRefused()
    {
        assertThrows(IllegalArgumentException.class, () -> census.watch(1, new int[] {0, 1},
            new long[] {KeyHash.segment(0, 10), KeyHash.segment(9, 10)}));
    }
}
