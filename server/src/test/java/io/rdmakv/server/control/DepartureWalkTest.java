package io.rdmakv.server.control;

import io.rdmakv.common.layout.KvBlockDescriptor;
import io.rdmakv.common.layout.RegionGeometry;
import io.rdmakv.server.space.CpuIndexAtomics;
import io.rdmakv.server.space.Extent;
import io.rdmakv.server.space.IndexScanner;
import io.rdmakv.server.space.TestRegion;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static io.rdmakv.server.space.TestRegion.key;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The departures' walk of the index: a budget of groups per step, batches that arrive while it runs joining it
 * where it is (one walk for both, not two), each done once the walk has been round the index for it, with the
 * same findings as a whole walk at once.
 */
class DepartureWalkTest
{
    private static final RegionGeometry GEOMETRY = TestRegion.GEOMETRY;
    private static final long CHUNK = GEOMETRY.chunkSize();

    private final TestRegion region = new TestRegion();
    private final IndexScanner scanner = new IndexScanner(new CpuIndexAtomics(region.segment()), GEOMETRY);
    private final DepartureWalk walk = new DepartureWalk(scanner);

    @AfterEach
    void close()
    {
        region.close();
    }

    @Test
    void batchesArrivingWhileTheWalkRunsShareItAndFindWhatAWholeWalkFinds()
    {
        final long groups = GEOMETRY.groupCount();
        final long budget = groups / 8;
        // session 1 holds chunk 0 (one referenced block, a lock at the last group), session 2 chunk 1 (two blocks)
        final byte[] a = key("a");
        final byte[] b = key("b");
        final byte[] c = key("c");
        region.insert(a, 4096, 10, TestRegion.group1(a), 0);
        region.insert(b, CHUNK + 8192, 20, TestRegion.group1(b), 1);
        region.insert(c, CHUNK, 30, TestRegion.group1(c), 2);
        region.lock(groups - 1, 1);
        region.lock(0, 2);
        final Map<Long, List<Extent>> first = Map.of(1L, List.of(new Extent(0, CHUNK)));
        final Map<Long, List<Extent>> second = Map.of(2L, List.of(new Extent(CHUNK, CHUNK)));
        final Map<Long, IndexScanner.Departure> whole = scanner.scanDepartures(Map.of(
            1L, first.get(1L), 2L, second.get(2L)));
        region.lock(groups - 1, 1);
        region.lock(0, 2);

        final List<Map<Long, IndexScanner.Departure>> done = new ArrayList<>();
        walk.submit(first, done::add);
        long walked = 0;
        for (int i = 0; i < 3; i++)
        {
            walked += walk.step(budget);
        }
        assertEquals(3 * budget, walked, "a budget per step");
        walk.submit(second, done::add); // joins the walk three eighths round
        while (walk.busy())
        {
            final int n = walk.step(budget);
            assertTrue(n > 0 && n <= budget, n + " groups in a step");
            walked += n;
        }
        assertEquals(groups + 3 * budget, walked, "one walk for both, the second batch round from where it joined");
        assertEquals(2, done.size());
        assertEquals(whole.get(1L), done.get(0).get(1L), "what a whole walk finds for the first");
        assertNull(done.get(0).get(2L));
        assertEquals(whole.get(2L), done.get(1).get(2L), "and for the second");
        assertEquals(1, done.get(0).get(1L).liveBlocks().size());
        assertEquals(2, done.get(1).get(2L).liveBlocks().size());
        assertEquals(1, done.get(1).get(2L).locksReleased(), "its lock at group 0, visited after it joined");
        assertEquals(0, region.lock(0));
        assertEquals(0, region.lock(groups - 1));
        assertFalse(walk.busy());
        assertEquals(0, walk.step(budget), "an idle walk costs nothing");
        assertEquals(KvBlockDescriptor.blockLength(a.length, 10), done.get(0).get(1L).liveBlocks().getFirst().length());
    }
}
