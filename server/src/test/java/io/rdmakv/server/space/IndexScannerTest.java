package io.rdmakv.server.space;

import io.rdmakv.common.layout.KvBlockDescriptor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.rdmakv.server.space.TestRegion.GEOMETRY;
import static io.rdmakv.server.space.TestRegion.group1;
import static io.rdmakv.server.space.TestRegion.group2;
import static io.rdmakv.server.space.TestRegion.key;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The index walks a departure needs, over a plain region: what stays, what goes, which locks open. */
class IndexScannerTest
{
    private static final long SESSION = 11;
    private static final long OTHER = 22;
    private static final long CHUNK = GEOMETRY.chunkSize();
    private static final long GRACE = 1_000;
    private static final long QUARANTINE = 5_000;

    private final TestRegion region = new TestRegion();
    private final IndexScanner scanner = new IndexScanner(new CpuIndexAtomics(region.segment()), GEOMETRY);
    private final DataAreaAllocator allocator =
        new DataAreaAllocator(GEOMETRY.dataLength(), KvBlockDescriptor.ALIGNMENT, GRACE, QUARANTINE);

    @AfterEach
    void close()
    {
        region.close();
    }

    @Test
    void countsUsedSlotsInBothBucketsOfEveryGroup()
    {
        assertEquals(0, scanner.usedSlots());
        region.insert(key("a"), 64, 10, 0, 0);
        region.insert(key("b"), 128, 10, 0, 13);
        region.insert(key("c"), 192, 10, GEOMETRY.groupCount() - 1, 7);
        assertEquals(3, scanner.usedSlots());
    }

    @Test
    void aDepartureKeepsReferencedBlocksInsideTheSessionsGrantsOnly()
    {
        final Extent mine = allocator.grant(CHUNK, CHUNK, 0, SESSION);
        final Extent theirs = allocator.grant(CHUNK, CHUNK, 0, OTHER);
        final byte[] k1 = key("k1");
        final byte[] k2 = key("k2");
        final byte[] k3 = key("k3");
        final byte[] k4 = key("k4");
        // inserted in reverse offset order: the scan must sort what it finds
        region.insert(k2, mine.offset() + 4096, 300, group2(k2), 9);
        region.insert(k1, mine.offset(), 10, group1(k1), 0);
        region.writeBlock(mine.offset() + 8192, k3, 10); // superseded: no slot points at it
        region.insert(k4, theirs.offset(), 10, group1(k4), 3);

        final IndexScanner.Departure found = scanner.scanDeparture(allocator.grantsOf(SESSION), SESSION);

        final int k1Length = KvBlockDescriptor.blockLength(2, 10);
        final int k2Length = KvBlockDescriptor.blockLength(2, 300);
        assertEquals(List.of(new Extent(mine.offset(), k1Length), new Extent(mine.offset() + 4096, k2Length)),
            found.liveBlocks(), "the session's referenced blocks, by offset; not the other session's, not k3");
        assertEquals(0, found.locksReleased());
    }

    @Test
    void aDepartureReleasesTheSessionsInsertLocksAndNoOthers()
    {
        region.lock(5, SESSION);
        region.lock(GEOMETRY.groupCount() - 1, SESSION);
        region.lock(6, OTHER);

        final IndexScanner.Departure found = scanner.scanDeparture(List.of(), SESSION);

        assertEquals(2, found.locksReleased());
        assertEquals(0, region.lock(5));
        assertEquals(0, region.lock(GEOMETRY.groupCount() - 1));
        assertEquals(OTHER, region.lock(6), "another session's lock stays held");
        assertEquals(0, region.slot(5, 0), "a lock release touches no slot");
    }

    @Test
    void aSessionWithoutALockWordReleasesNothing()
    {
        region.lock(6, OTHER);
        assertEquals(0, scanner.scanDeparture(List.of(), 0).locksReleased(), "0 is every free lock, not a session");
        assertEquals(OTHER, region.lock(6));
    }

    @Test
    void whatNoSlotReferencesIsQuarantinedAndTheReferencedBlocksStayGranted()
    {
        final Extent mine = allocator.grant(CHUNK, CHUNK, 0, SESSION);
        final byte[] k1 = key("k1");
        final byte[] k2 = key("k2");
        region.insert(k1, mine.offset() + 1024, 10, group1(k1), 0);
        region.insert(k2, mine.offset() + 8192, 10, group2(k2), 1);
        final long stale = mine.offset() + 4096;
        region.writeBlock(stale, key("gone"), 10);

        final IndexScanner.Departure found = scanner.scanDeparture(allocator.grantsOf(SESSION), SESSION);
        final long reclaimed = allocator.reclaim(SESSION, found.liveBlocks(), 100);

        final long live = found.liveBlocks().stream().mapToLong(Extent::length).sum();
        assertEquals(2, found.liveBlocks().size());
        assertEquals(mine.length() - live, reclaimed);
        assertEquals(reclaimed, allocator.graceBytes(), "reclaimed space waits out the quarantine first");
        assertTrue(allocator.overlapsFree(stale, 64), "the unreferenced block is quarantined");
        for (final Extent block : found.liveBlocks())
        {
            assertFalse(allocator.overlapsFree(block.offset(), block.length()), block + " stays out of circulation");
            assertTrue(allocator.isReleasable(block.offset(), block.length()), block + " can still be FREEd");
        }
        assertEquals(List.of(), allocator.grantsOf(SESSION), "the departed session holds nothing");

        allocator.expireGrace(100 + QUARANTINE - 1);
        assertEquals(reclaimed, allocator.graceBytes(), "still quarantined one nanosecond early");
        allocator.expireGrace(100 + QUARANTINE);
        assertEquals(0, allocator.graceBytes());
        assertTrue(allocator.freeBytes() >= reclaimed);
    }

    @Test
    void oneWalkForManyDeparturesFindsEachSessionsBlocksAndLocks()
    {
        final Extent mine = allocator.grant(CHUNK, CHUNK, 0, SESSION);
        final Extent theirs = allocator.grant(CHUNK, CHUNK, 0, OTHER);
        final byte[] k1 = key("k1");
        final byte[] k2 = key("k2");
        region.insert(k1, mine.offset() + 128, 10, group1(k1), 0);
        region.insert(k2, theirs.offset() + 256, 10, group2(k2), 2);
        region.lock(3, SESSION);
        region.lock(4, OTHER);
        region.lock(7, OTHER);
        region.lock(8, 33);

        final java.util.Map<Long, IndexScanner.Departure> found =
            scanner.scanDepartures(allocator.grantsOf(List.of(SESSION, OTHER)));

        final int length = KvBlockDescriptor.blockLength(2, 10);
        assertEquals(new IndexScanner.Departure(List.of(new Extent(mine.offset() + 128, length)), 1),
            found.get(SESSION));
        assertEquals(new IndexScanner.Departure(List.of(new Extent(theirs.offset() + 256, length)), 2),
            found.get(OTHER));
        assertEquals(33, region.lock(8), "a lock of a session not departing stays");
        assertEquals(0, region.lock(3) | region.lock(4) | region.lock(7));
    }

    @Test
    void aRebuildScanListsEveryReferencedBlockAndClearsEveryLock()
    {
        final byte[] k1 = key("k1");
        final byte[] k2 = key("k2");
        region.insert(k2, 8192, 300, group2(k2), 9);
        region.insert(k1, 64, 10, group1(k1), 0);
        region.writeBlock(4096, key("gone"), 10);
        region.lock(5, SESSION);
        region.lock(GEOMETRY.groupCount() - 1, OTHER);

        assertEquals(List.of(new Extent(64, KvBlockDescriptor.blockLength(2, 10)),
            new Extent(8192, KvBlockDescriptor.blockLength(2, 300))), scanner.liveBlocksClearingLocks());
        assertEquals(0, region.lock(5));
        assertEquals(0, region.lock(GEOMETRY.groupCount() - 1));
    }
}
