package io.rdmakv.server.space;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DataAreaAllocatorTest
{
    private static final long GRACE = 1_000;

    @Test
    void grantsFreshSpaceAfterTheReservedFirstUnit()
    {
        final DataAreaAllocator a = new DataAreaAllocator(64 * 1024, 64, GRACE);
        final Extent e = a.grant(100, 4096, 0);
        assertEquals(new Extent(64, 4096), e);
        assertEquals(new Extent(64 + 4096, 4096), a.grant(100, 4096, 0));
    }

    @Test
    void freedSpaceIsReusedOnlyAfterTheGracePeriodAndCoalesces()
    {
        final DataAreaAllocator a = new DataAreaAllocator(64 * 4, 64, GRACE);
        final Extent e = a.grant(64, 192, 0);
        assertEquals(192, e.length());
        assertNull(a.grant(64, 64, 0), "no fresh space left");
        assertTrue(a.release(64, 64, 0));
        assertTrue(a.release(128, 128, 0));
        assertFalse(a.release(128, 64, 0), "double free refused");
        assertNull(a.grant(64, 64, GRACE - 1), "still in grace");
        assertEquals(192, a.graceBytes());
        assertEquals(new Extent(64, 192), a.grant(64, 1024, GRACE), "coalesced into one extent");
        assertEquals(0, a.graceBytes());
    }

    @Test
    void refusesReleasesOutsideGrantedSpaceOrMisaligned()
    {
        final DataAreaAllocator a = new DataAreaAllocator(64 * 1024, 64, GRACE);
        a.grant(64, 1024, 0);
        assertFalse(a.release(0, 64, 0), "unit 0 is reserved");
        assertFalse(a.release(96, 64, 0), "misaligned");
        assertFalse(a.release(64 + 1024, 64, 0), "never granted");
        assertFalse(a.release(64, 0, 0), "empty");
    }

    @Test
    void reclaimKeepsReferencedBlocksAndWhatIsAlreadyFree()
    {
        final DataAreaAllocator a = new DataAreaAllocator(64 * 1024, 64, GRACE);
        final Extent e = a.grant(64, 64 * 10, 0);
        assertTrue(a.release(e.offset() + 64 * 8, 64, 0));
        final long reclaimed = a.reclaim(e,
            List.of(new Extent(e.offset() + 64, 128), new Extent(e.offset() + 64 * 5, 64)), 0);
        assertEquals(64 * (10 - 3 - 1), reclaimed);
        assertTrue(a.overlapsFree(e.offset(), 64));
        assertFalse(a.overlapsFree(e.offset() + 64, 128));
        assertFalse(a.overlapsFree(e.offset() + 64 * 5, 64));
        assertTrue(a.overlapsFree(e.offset() + 64 * 9, 64));
        assertEquals(64 * 7, a.graceBytes());
    }
}
