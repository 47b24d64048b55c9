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
        final Extent e = a.grant(100, 4096, 0, 1);
        assertEquals(new Extent(64, 4096), e);
        assertEquals(new Extent(64 + 4096, 4096), a.grant(100, 4096, 0, 1));
    }

    @Test
    void freedSpaceIsReusedOnlyAfterTheGracePeriodAndCoalesces()
    {
        final DataAreaAllocator a = new DataAreaAllocator(64 * 4, 64, GRACE);
        final Extent e = a.grant(64, 192, 0, 1);
        assertEquals(192, e.length());
        assertNull(a.grant(64, 64, 0, 1), "no fresh space left");
        assertTrue(a.release(64, 64, 0));
        assertTrue(a.release(128, 128, 0));
        assertFalse(a.release(128, 64, 0), "double free refused");
        assertNull(a.grant(64, 64, GRACE - 1, 1), "still in grace");
        assertEquals(192, a.graceBytes());
        assertEquals(new Extent(64, 192), a.grant(64, 1024, GRACE, 1), "coalesced into one extent");
        assertEquals(0, a.graceBytes());
    }

    @Test
    void saysHowLongUntilTheFirstWaitingRangeEndsItsWait()
    {
        final DataAreaAllocator a = new DataAreaAllocator(64 * 1024, 64, GRACE, 10 * GRACE);
        assertEquals(Long.MAX_VALUE, a.nanosUntilNextExpiry(0), "nothing waits");
        a.grant(64, 1024, 0, 1);
        a.grant(64, 1024, 0, 2);
        assertEquals(1024, a.reclaim(2, List.of(), 5));
        assertEquals(10 * GRACE, a.nanosUntilNextExpiry(5), "the quarantine of a departed owner's space");
        assertTrue(a.release(64, 64, 100));
        assertTrue(a.release(128, 64, 300));
        assertEquals(GRACE - 50, a.nanosUntilNextExpiry(150), "the first release's grace ends first");
        assertEquals(0, a.nanosUntilNextExpiry(GRACE + 200), "overdue: expire now");
        a.expireGrace(GRACE + 200);
        assertEquals(100, a.nanosUntilNextExpiry(GRACE + 200));
        a.expireGrace(GRACE + 300);
        assertEquals(10 * GRACE + 5 - (GRACE + 300), a.nanosUntilNextExpiry(GRACE + 300));
        a.expireGrace(10 * GRACE + 5);
        assertEquals(Long.MAX_VALUE, a.nanosUntilNextExpiry(10 * GRACE + 5));
    }

    @Test
    void moverSpaceGoesBackFreeAtOnceWithoutAGracePeriod()
    {
        final DataAreaAllocator a = new DataAreaAllocator(64 * 1024, 64, GRACE);
        final long mover = DataAreaAllocator.FIRST_MOVER_OWNER;
        final long free = a.freeBytes();
        final Extent grant = a.grant(64, 1024, 0, mover);
        assertEquals(free - 1024, a.freeBytes());
        assertTrue(a.releaseNow(grant.offset() + 128, 64), "one block of the grant back");
        assertEquals(free - 1024 + 64, a.freeBytes(), "free at once, not waiting");
        assertEquals(0, a.graceBytes());
        assertFalse(a.releaseNow(grant.offset() + 128, 64), "not twice");
        assertEquals(1024 - 64, a.releaseAllNow(mover), "the rest of what the mover holds");
        assertEquals(free, a.freeBytes(), "everything back");
        assertEquals(0, a.heldBy(mover));
        assertNull(a.latestGrant(mover));
    }

    @Test
    void refusesReleasesOutsideGrantedSpaceOrMisaligned()
    {
        final DataAreaAllocator a = new DataAreaAllocator(64 * 1024, 64, GRACE);
        a.grant(64, 1024, 0, 1);
        assertFalse(a.release(0, 64, 0), "unit 0 is reserved");
        assertFalse(a.release(96, 64, 0), "misaligned");
        assertFalse(a.release(64 + 1024, 64, 0), "never granted");
        assertFalse(a.release(64, 0, 0), "empty");
    }

    @Test
    void reclaimKeepsReferencedBlocksAndWhatWasGivenBack()
    {
        final DataAreaAllocator a = new DataAreaAllocator(64 * 1024, 64, GRACE);
        final Extent e = a.grant(64, 64 * 10, 0, 7);
        assertTrue(a.release(e.offset() + 64 * 8, 64, 0));
        assertEquals(List.of(new Extent(e.offset(), 64 * 8), new Extent(e.offset() + 64 * 9, 64)), a.grantsOf(7),
            "a release is carved out of the owner's grant");
        final long reclaimed = a.reclaim(7,
            List.of(new Extent(e.offset() + 64, 128), new Extent(e.offset() + 64 * 5, 64)), 0);
        assertEquals(64 * (10 - 3 - 1), reclaimed);
        assertTrue(a.overlapsFree(e.offset(), 64));
        assertFalse(a.overlapsFree(e.offset() + 64, 128));
        assertFalse(a.overlapsFree(e.offset() + 64 * 5, 64));
        assertTrue(a.overlapsFree(e.offset() + 64 * 9, 64));
        assertEquals(64 * 7, a.graceBytes());
        assertEquals(List.of(), a.grantsOf(7), "the departed owner holds nothing");
        assertEquals(List.of(new Extent(e.offset() + 64, 128), new Extent(e.offset() + 64 * 5, 64)),
            a.grantsOf(DataAreaAllocator.NO_OWNER), "referenced blocks stay granted, to nobody");
        assertTrue(a.release(e.offset() + 64 * 5, 64, 0), "a referenced block can still be freed later");
    }

    @Test
    void spaceGivenBackAndGrantedToAnotherIsNotReclaimedWithTheFirstOwner()
    {
        final DataAreaAllocator a = new DataAreaAllocator(64 * 8, 64, GRACE);
        final Extent first = a.grant(64, 64 * 7, 0, 1);
        assertEquals(new Extent(64, 64 * 7), first);
        assertTrue(a.release(64 * 4, 64 * 4, 0), "owner 1 gives back the tail of its extent");
        final Extent second = a.grant(64, 64 * 4, GRACE, 2);
        assertEquals(new Extent(64 * 4, 64 * 4), second, "the tail goes to owner 2");
        assertEquals(64 * 3, a.reclaim(1, List.of(), GRACE), "owner 1 leaves: only what it still holds");
        assertEquals(List.of(second), a.grantsOf(2), "owner 2 keeps its grant");
        assertFalse(a.overlapsFree(second.offset(), second.length()));
    }

    @Test
    void aReleaseMustLieInsideOneGrant()
    {
        final DataAreaAllocator a = new DataAreaAllocator(64 * 64, 64, GRACE);
        final Extent x = a.grant(64, 128, 0, 1);
        final Extent y = a.grant(64, 128, 0, 2);
        assertFalse(a.release(x.offset() + 64, 128, 0), "across two grants");
        assertTrue(a.release(x.offset(), 128, 0));
        assertFalse(a.release(x.offset(), 64, 0), "no longer granted");
        assertTrue(a.release(y.offset() + 64, 64, 0));
    }

    /** Once the bump pointer is spent, an ALLOC gets the largest free range, however many small ones lie around. */
    @Test
    void aWrappedAreaGrantsItsLargestFreeRange()
    {
        final int unit = 64;
        final int units = 20_000;
        final DataAreaAllocator a = new DataAreaAllocator((long)unit * units, unit, GRACE);
        final Extent all = a.grant(unit, (long)unit * units, 0, 1);
        assertEquals((long)unit * (units - 1), all.length());
        // every other unit of the first 16,000 freed (8,000 single-unit ranges), then one run of 100 units
        for (long u = 1; u < 16_000; u += 2)
        {
            assertTrue(a.release(u * unit, unit, 0));
        }
        final long runStart = 17_000L * unit;
        assertTrue(a.release(runStart, 100L * unit, 0));
        final long free = a.freeBytes();
        assertEquals(new Extent(runStart, 40L * unit), a.grant(unit, 40L * unit, GRACE, 2), "carved from the 100-unit run");
        assertEquals(new Extent(runStart + 40L * unit, 60L * unit), a.grant(unit, 1000L * unit, GRACE, 2),
            "the rest of the run: still the largest");
        assertEquals(unit, a.grant(unit, 1000L * unit, GRACE, 3).length(), "then the single units");
        assertEquals(free + 8_000L * unit + 100L * unit - 101L * unit, a.freeBytes(), "free bytes accounted");
    }

    /** Random grants and releases: no byte is ever granted twice while it is held. */
    @Test
    void neverGrantsHeldSpaceAgain()
    {
        final int unit = 64;
        final DataAreaAllocator a = new DataAreaAllocator(unit * 4096, unit, 10);
        final java.util.SplittableRandom random = new java.util.SplittableRandom(42);
        final java.util.List<Extent> held = new java.util.ArrayList<>();
        final boolean[] owned = new boolean[4096];
        long now = 0;
        for (int step = 0; step < 200_000; step++)
        {
            now += random.nextInt(3);
            if (held.isEmpty() || random.nextInt(100) < 55)
            {
                final Extent e = a.grant(unit * (1 + random.nextInt(4)), unit * (1 + random.nextInt(64)), now, 1);
                if (e == null)
                {
                    continue;
                }
                for (long u = e.offset() / unit; u < e.end() / unit; u++)
                {
                    if (owned[(int)u])
                    {
                        throw new AssertionError("unit " + u + " granted twice at step " + step + ": " + e);
                    }
                    owned[(int)u] = true;
                }
                held.add(e);
            }
            else
            {
                final Extent e = held.remove(random.nextInt(held.size()));
                // release it in pieces, as clients free block by block
                long p = e.offset();
                while (p < e.end())
                {
                    final long len = Math.min(e.end() - p, unit * (1 + random.nextInt(3)));
                    assertTrue(a.release(p, len, now), "release of held space");
                    for (long u = p / unit; u < (p + len) / unit; u++)
                    {
                        owned[(int)u] = false;
                    }
                    p += len;
                }
            }
        }
    }

    @Test
    void aRebuildGrantsReferencedBlocksToNobodyAndFreesEverythingElseAtOnce()
    {
        final DataAreaAllocator a = new DataAreaAllocator(64 * 64, 64, 1000);
        final Extent held = a.grant(64 * 8, 64 * 8, 0, 5);
        assertTrue(a.release(held.offset(), 64, 0));

        a.rebuild(List.of(new Extent(64 * 4, 100), new Extent(64 * 4, 64), new Extent(64 * 10, 64),
            new Extent(64 * 70, 64), new Extent(63, 64)));

        assertEquals(0, a.graceBytes(), "nothing waits");
        assertEquals(0, a.heldBy(5), "no owner holds anything");
        assertEquals(DataAreaAllocator.NO_OWNER, a.ownerOf(64 * 4, 128), "a block (aligned up) granted to nobody");
        assertEquals(DataAreaAllocator.NO_OWNER, a.ownerOf(64 * 10, 64));
        assertEquals(64 * 64 - 64 - 3 * 64, a.freeBytes(), "all but the reserved unit and the live blocks; the " +
            "duplicate merged, the block past the end and the misaligned one skipped");
        final List<Extent> grants = new java.util.ArrayList<>();
        Extent e;
        while ((e = a.grant(64, 64, 0, 6)) != null)
        {
            grants.add(e);
        }
        for (final Extent g : grants)
        {
            assertTrue(g.end() <= 64 * 4 || g.offset() >= 64 * 6 && (g.end() <= 64 * 10 || g.offset() >= 64 * 11),
                "grant " + g + " overlaps a live block");
        }
        assertEquals(64 * 64 - 64 - 3 * 64, grants.stream().mapToLong(Extent::length).sum());
    }
}
