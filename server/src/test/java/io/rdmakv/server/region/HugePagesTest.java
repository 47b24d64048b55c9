package io.rdmakv.server.region;

import io.rdmakv.common.layout.RegionGeometry;
import io.rdmakv.common.layout.RegionHeader;
import io.rdmakv.verbs.Context;
import io.rdmakv.verbs.ProtectionDomain;
import io.rdmakv.verbs.Providers;
import io.rdmakv.verbs.VerbsConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.ValueLayout;
import java.nio.file.Files;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A node's {@link Region} mapped directly: alignment, advice, zero contents, nothing resident until written, header,
 * and the two registrations.
 */
class HugePagesTest
{
    private static final RegionGeometry GEOMETRY = RegionGeometry.forMemory(16L << 20);

    private Context context;
    private ProtectionDomain pd;

    @BeforeEach
    void open()
    {
        context = Providers.open(Providers.TCP, VerbsConfig.DEFAULT);
        pd = context.allocateProtectionDomain();
    }

    @AfterEach
    void close()
    {
        pd.close();
        context.close();
    }

    @Test
    void aHugePageRegionIsTwoMegabyteAlignedAndAdvisedWhereTheKernelHasThp()
    {
        try (Region region = new Region(pd, GEOMETRY, 3, true, false))
        {
            assertEquals(0, region.segment().address() % HugePages.HUGE_PAGE);
            assertEquals(Files.exists(HugePages.THP_ENABLED), region.hugePagesAdvised());
            assertEquals(GEOMETRY.regionLength(), region.segment().byteSize());
            region.segment().set(ValueLayout.JAVA_LONG, GEOMETRY.regionLength() - 8, 42L);
            assertEquals(42L, region.segment().get(ValueLayout.JAVA_LONG, GEOMETRY.regionLength() - 8),
                "the last word of the mapping is writable");
            assertRegistered(region, 3);
        }
    }

    @Test
    void aPlainRegionIsPageAlignedAndNotAdvised()
    {
        try (Region region = new Region(pd, GEOMETRY, 5, false, false))
        {
            assertFalse(region.hugePagesAdvised());
            assertEquals(0, region.segment().address() % 4096);
            assertRegistered(region, 5);
            assertEquals(0L, region.segment().get(ValueLayout.JAVA_LONG, GEOMETRY.dataOffset()),
                "the index and data area start zero");
            assertEquals(0L, region.segment().get(ValueLayout.JAVA_LONG, GEOMETRY.regionLength() - 8));
        }
    }

    @Test
    void aRegionIsNotTouchedUntilWrittenSoALargeNodeStartsAtOnce() throws Exception
    {
        final RegionGeometry large = RegionGeometry.forMemory(1L << 30);
        final long before = residentBytes();
        final long start = System.nanoTime();
        try (Region region = new Region(pd, large, 7, false, false))
        {
            final long took = System.nanoTime() - start;
            final long grew = residentBytes() - before;
            // zeroing 1 GiB would make it resident; the header and a few pages of bookkeeping are all that may be
            assertTrue(grew < (64L << 20), "a 1 GiB region made " + grew + " bytes resident (took " + took / 1_000_000 +
                " ms)");
            assertEquals(0L, region.segment().get(ValueLayout.JAVA_LONG, large.regionLength() - 8));
        }
    }

    /** This process's resident set (VmRSS of /proc/self/status), in bytes. */
    private static long residentBytes() throws java.io.IOException
    {
        for (final String line : Files.readAllLines(java.nio.file.Path.of("/proc/self/status")))
        {
            if (line.startsWith("VmRSS:"))
            {
                return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
            }
        }
        throw new IllegalStateException("no VmRSS in /proc/self/status");
    }

    private static void assertRegistered(final Region region, final int nodeId)
    {
        final RegionHeader header = new RegionHeader().wrap(region.segment()).check();
        assertEquals(nodeId, header.nodeId());
        assertEquals(GEOMETRY, header.geometry());
        assertEquals(region.segment().address(), region.indexRegion().address(), "index region starts the region");
        assertEquals(GEOMETRY.dataOffset(), region.indexRegion().length(), "header and index, no data");
        assertEquals(region.segment().address() + GEOMETRY.dataOffset(), region.dataRegion().address());
        assertEquals(GEOMETRY.dataLength(), region.dataRegion().length());
    }
}
