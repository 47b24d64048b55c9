package io.rdmakv.server.control;

import io.rdmakv.common.SpaceTiming;
import io.rdmakv.common.layout.IndexSegments;
import io.rdmakv.common.layout.KvBlockDescriptor;
import io.rdmakv.common.layout.RegionGeometry;
import io.rdmakv.common.layout.SlotWord;
import io.rdmakv.server.space.CpuIndexAtomics;
import io.rdmakv.server.space.DataAreaAllocator;
import io.rdmakv.server.space.Extent;
import io.rdmakv.server.space.TestRegion;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.ValueLayout;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static io.rdmakv.server.space.TestRegion.key;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * How a primary settles the slots its freeze found ahead on the first backup ({@link FreezeDecisions}, HELP's rule
 * from {@link FinishRule}): finished when the block lies in a grant of a live session and is a whole block of a key
 * of that group, or when the decided word is empty, or when the primary caught up meanwhile; else undone (the
 * primary's word), for a gone writer, a damaged block, or a key of another group.
 */
class FreezeDecisionsTest
{
    private static final RegionGeometry GEOMETRY = TestRegion.GEOMETRY;
    private static final long LIVE = 11;
    private static final long GONE = 12;

    private final TestRegion region = new TestRegion();
    private final DataAreaAllocator allocator = new DataAreaAllocator(GEOMETRY.dataLength(),
        KvBlockDescriptor.ALIGNMENT, TimeUnit.MILLISECONDS.toNanos(50),
        SpaceTiming.reclaimQuarantineNanos(TimeUnit.MILLISECONDS.toNanos(50)));
    private final Set<Long> live = new HashSet<>(Set.of(LIVE));
    private final CpuIndexAtomics atomics = new CpuIndexAtomics(region.segment());
    private final FreezeDecisions decisions = new FreezeDecisions(new FinishRule(region.segment(), GEOMETRY,
        IndexSegments.whole(GEOMETRY), allocator, live::contains), atomics, Runnable::run);

    @AfterEach
    void close()
    {
        region.close();
    }

    @Test
    void aLiveWritersWholeBlockIsFinishedAndEverythingElseUndone()
    {
        final Extent liveGrant = allocator.grant(GEOMETRY.chunkSize(), GEOMETRY.chunkSize(), 0, LIVE);
        final Extent goneGrant = allocator.grant(GEOMETRY.chunkSize(), GEOMETRY.chunkSize(), 0, GONE);
        final byte[] a = key("a");
        final byte[] b = key("b");
        final byte[] c = key("c");
        final byte[] d = key("d");
        final byte[] e = key("e");
        // the primary's words: the acknowledged blocks of a..e (in the live grant, as good as any)
        final long[] primary = {
            region.insert(a, liveGrant.offset() + 4096, 10, TestRegion.group1(a), 0),
            region.insert(b, liveGrant.offset() + 8192, 10, TestRegion.group1(b), 0),
            region.insert(c, liveGrant.offset() + 12288, 10, TestRegion.group1(c), 0),
            region.insert(d, liveGrant.offset() + 16384, 10, TestRegion.group1(d), 0),
            region.insert(e, liveGrant.offset() + 20480, 10, TestRegion.group1(e), 0)};
        final long[] slots = new long[5];
        final long[] groups = {TestRegion.group1(a), TestRegion.group1(b), TestRegion.group1(c), TestRegion.group1(d),
            TestRegion.group1(e)};
        for (int i = 0; i < 5; i++)
        {
            slots[i] = GEOMETRY.slotRegionOffset(groups[i], 0);
        }
        // what the first backup holds: newer blocks, written where the primary has them too (as a writer does)
        final long aLive = TestRegion.slotWord(a, liveGrant.offset(), region.writeBlock(liveGrant.offset(), a, 20));
        final long bGone = TestRegion.slotWord(b, goneGrant.offset(), region.writeBlock(goneGrant.offset(), b, 20));
        final long cDamaged = TestRegion.slotWord(c, liveGrant.offset() + 1024,
            region.writeBlock(liveGrant.offset() + 1024, c, 20));
        region.segment().set(ValueLayout.JAVA_BYTE,
            GEOMETRY.dataOffset() + liveGrant.offset() + 1024 + KvBlockDescriptor.KEY_OFFSET + 1, (byte)0x55);
        final long dDeleted = SlotWord.EMPTY;
        final long eCaughtUp = TestRegion.slotWord(e, goneGrant.offset() + 1024,
            region.writeBlock(goneGrant.offset() + 1024, e, 20));
        region.slot(groups[4], 0, eCaughtUp); // the writer's own CAS reached the primary meanwhile
        final long[] decided = {aLive, bGone, cDamaged, dDeleted, eCaughtUp};
        final long[] settled = new long[5];

        final int finished = decisions.decide(slots, groups, decided, settled, 5);

        assertArrayEquals(new long[] {aLive, primary[1], primary[2], SlotWord.EMPTY, eCaughtUp}, settled,
            "a: a live writer's whole block, finished; b: a gone writer's, undone; c: a damaged block, undone; " +
                "d: a DELETE, finished; e: the primary caught up, finished");
        assertEquals(3, finished);
    }

    @Test
    void aBlockOfAKeyOfAnotherGroupIsUndone()
    {
        final Extent grant = allocator.grant(GEOMETRY.chunkSize(), GEOMETRY.chunkSize(), 0, LIVE);
        final byte[] a = key("a");
        long other = (TestRegion.group1(a) + 1) % GEOMETRY.groupCount();
        while (other == TestRegion.group2(a))
        {
            other = (other + 1) % GEOMETRY.groupCount();
        }
        final long word = TestRegion.slotWord(a, grant.offset(), region.writeBlock(grant.offset(), a, 20));
        final long[] settled = new long[1];

        final int finished = decisions.decide(new long[] {GEOMETRY.slotRegionOffset(other, 3)}, new long[] {other},
            new long[] {word}, settled, 1);

        assertEquals(0, finished);
        assertEquals(SlotWord.EMPTY, settled[0], "put back to the primary's (empty) word");
    }
}
