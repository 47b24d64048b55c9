package io.rdmakv.server.space;

import io.rdmakv.common.layout.BucketDescriptor;
import io.rdmakv.common.layout.RegionGeometry;
import io.rdmakv.verbs.AccessFlags;
import io.rdmakv.verbs.Context;
import io.rdmakv.verbs.MemoryRegion;
import io.rdmakv.verbs.ProtectionDomain;
import io.rdmakv.verbs.Providers;
import io.rdmakv.verbs.VerbsConfig;
import org.agrona.CloseHelper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The node's index atomics through its own loopback queue pair, forced over the {@code tcp} provider (where
 * kvserver itself keeps the CPU's CAS): an RDMA CAS on the registered index, with CAS semantics, from any
 * thread; and the rule that picks it.
 */
class LoopbackIndexAtomicsTest
{
    private static final RegionGeometry GEOMETRY = TestRegion.GEOMETRY;

    private final TestRegion region = new TestRegion();
    private Context context;
    private ProtectionDomain pd;
    private MemoryRegion index;
    private LoopbackIndexAtomics atomics;

    @BeforeEach
    void open()
    {
        context = Providers.open(Providers.TCP, VerbsConfig.DEFAULT);
        pd = context.allocateProtectionDomain();
        index = pd.registerMemory(region.segment().asSlice(0, GEOMETRY.dataOffset()),
            AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ | AccessFlags.REMOTE_ATOMIC);
        atomics = new LoopbackIndexAtomics(pd, region.segment(), index);
    }

    @AfterEach
    void close()
    {
        CloseHelper.closeAll(atomics, index, pd, context, region);
    }

    private static long lock(final long group)
    {
        return GEOMETRY.groupRegionOffset(group) + BucketDescriptor.INSERT_LOCK_OFFSET;
    }

    @Test
    void casSwapsOnlyFromTheExpectedWordAndReturnsTheWordBefore()
    {
        region.lock(5, 77);
        assertEquals(77, atomics.get(lock(5)));
        assertEquals(77, atomics.compareAndSwap(lock(5), 78, 0), "a CAS from another word fails");
        assertEquals(77, region.lock(5), "and changes nothing");
        assertEquals(77, atomics.compareAndSwap(lock(5), 77, 0));
        assertEquals(0, region.lock(5));
        final long last = lock(GEOMETRY.groupCount() - 1);
        assertEquals(0, atomics.compareAndSwap(last, 0, -1L), "the last word of the index");
        assertEquals(-1L, atomics.get(last));
        final long slot = GEOMETRY.slotRegionOffset(9, 3);
        assertEquals(0, atomics.compareAndSwap(slot, 0, 0x1234_5678_9ABC_DEF0L));
        assertEquals(0x1234_5678_9ABC_DEF0L, region.slot(9, 3), "slots too: any word of the index");
    }

    /**
     * The batched form, over more words than one chain holds: every word whose expected value matched is swapped,
     * the others are left alone, and each reports the word it found; on the loopback and as the CPU does it.
     */
    @Test
    void aBatchSwapsExactlyTheWordsThatHeldTheirExpectedValueAndReportsWhatEachFound()
    {
        final int count = 2 * LoopbackIndexAtomics.BATCH + 7;
        for (final IndexAtomics under : new IndexAtomics[] {atomics, new CpuIndexAtomics(region.segment())})
        {
            final long[] offsets = new long[count];
            final long[] expected = new long[count];
            final long[] swaps = new long[count];
            final long[] found = new long[count];
            final long base = under == atomics ? 0 : 1000;
            for (int i = 0; i < count; i++)
            {
                offsets[i] = GEOMETRY.slotRegionOffset(base + i, i % BucketDescriptor.SLOTS_PER_GROUP);
                assertEquals(0, atomics.compareAndSwap(offsets[i], 0, 100 + i));
                expected[i] = i % 3 == 0 ? 1 : 100 + i; // every third expects another word
                swaps[i] = 5000 + i;
            }
            under.compareAndSwap(offsets, expected, swaps, found, count);
            for (int i = 0; i < count; i++)
            {
                assertEquals(100 + i, found[i], "word " + i + " reports what it held");
                assertEquals(i % 3 == 0 ? 100 + i : 5000 + i, atomics.get(offsets[i]), "word " + i);
            }
        }
    }

    /**
     * A batch longer than the CASes the loopback keeps in flight ({@link LoopbackIndexAtomics#IN_FLIGHT}, several
     * chains), so chains are posted before earlier ones complete and result words are reused: every word holds,
     * expects and gets a word of its own, so a result taken from another CAS's word, or a CAS that swapped another
     * word's value, shows; every fifth expects a word it does not hold and is left alone.
     */
    @Test
    void aBatchOfManyChainsInFlightMatchesEachResultToItsOwnWord()
    {
        final int count = 3 * LoopbackIndexAtomics.IN_FLIGHT + LoopbackIndexAtomics.BATCH / 2 + 3;
        final long[] offsets = new long[count];
        final long[] expected = new long[count];
        final long[] swaps = new long[count];
        final long[] found = new long[count];
        for (int i = 0; i < count; i++)
        {
            offsets[i] = GEOMETRY.slotRegionOffset(i / BucketDescriptor.SLOTS_PER_GROUP,
                i % BucketDescriptor.SLOTS_PER_GROUP);
            final long held = 0x10_0000L + 7L * i;
            assertEquals(0, atomics.compareAndSwap(offsets[i], 0, held));
            expected[i] = i % 5 == 0 ? held + 1 : held;
            swaps[i] = 0x20_0000L + 11L * i;
            found[i] = -1;
        }
        atomics.compareAndSwap(offsets, expected, swaps, found, count);
        for (int i = 0; i < count; i++)
        {
            final long held = 0x10_0000L + 7L * i;
            assertEquals(held, found[i], "word " + i + " reports what it held");
            assertEquals(i % 5 == 0 ? held : swaps[i], atomics.get(offsets[i]), "word " + i);
        }
        atomics.compareAndSwap(offsets, swaps, expected, found, count);
        for (int i = 0; i < count; i++)
        {
            final long held = 0x10_0000L + 7L * i;
            assertEquals(i % 5 == 0 ? held : swaps[i], found[i], "word " + i + ", the batch again, the other way");
            assertEquals(i % 5 == 0 ? held : expected[i], atomics.get(offsets[i]), "word " + i);
        }
        assertEquals(0, atomics.compareAndSwap(lock(2), 0, 1), "single CASes still work after a batch");
    }

    @Test
    void aWordOutsideTheIndexOrMisalignedIsRefusedBeforeAnythingIsPosted()
    {
        assertThrows(IllegalArgumentException.class, () -> atomics.compareAndSwap(lock(5) + 4, 0, 1));
        assertThrows(IllegalArgumentException.class, () -> atomics.compareAndSwap(GEOMETRY.dataOffset(), 0, 1));
        assertThrows(IllegalArgumentException.class, () -> atomics.compareAndSwap(-8, 0, 1));
        assertEquals(0, atomics.compareAndSwap(lock(6), 0, 1), "the queue pair still works");
    }

    @Test
    void casesFromSeveralThreadsAreEachApplied() throws InterruptedException
    {
        final int perThread = 200;
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final Thread[] threads = new Thread[3];
        for (int t = 0; t < threads.length; t++)
        {
            threads[t] = Thread.ofPlatform().start(() ->
            {
                try
                {
                    for (int i = 0; i < perThread; i++)
                    {
                        long seen;
                        do
                        {
                            seen = atomics.get(lock(1));
                        }
                        while (atomics.compareAndSwap(lock(1), seen, seen + 1) != seen);
                    }
                }
                catch (final Throwable e)
                {
                    failure.set(e);
                }
            });
        }
        for (final Thread t : threads)
        {
            t.join();
        }
        assertNull(failure.get());
        assertEquals(threads.length * perThread, region.lock(1));
    }

    @Test
    void aClosedLoopbackRefusesFurtherCases()
    {
        atomics.close();
        atomics.close();
        assertThrows(IllegalStateException.class, () -> atomics.compareAndSwap(lock(1), 0, 1));
    }

    @Test
    void kvserverUsesItOnIbverbsDevicesWhoseAtomicsAreNotGlobal()
    {
        assertTrue(LoopbackIndexAtomics.neededFor("ibverbs", "HCA"), "ConnectX, rxe");
        assertTrue(LoopbackIndexAtomics.neededFor("ibverbs", "NONE"));
        assertFalse(LoopbackIndexAtomics.neededFor("ibverbs", "GLOB"));
        assertFalse(LoopbackIndexAtomics.neededFor("tcp", "HCA"), "tcp executes remote atomics as CPU CAS");
        assertFalse(LoopbackIndexAtomics.neededFor("tcp", "GLOB"));
    }
}
