package io.rdmakv.server.region;

import io.rdmakv.common.layout.RegionGeometry;
import io.rdmakv.common.layout.RegionHeader;
import io.rdmakv.server.control.GrantWindows;
import io.rdmakv.verbs.AccessFlags;
import io.rdmakv.verbs.MemoryRegion;
import io.rdmakv.verbs.ProtectionDomain;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A node's region: one page-aligned off-heap allocation holding the header, the index and the data
 * area, registered as two memory regions with least privilege: header and index for remote READ and
 * atomics only; the data area for remote READ only, writable through the memory windows bound over each
 * grant ({@link GrantWindows#DATA_AREA_ACCESS}), or, on a node without windows, for remote READ and WRITE.
 */
public final class Region implements AutoCloseable
{
    private final Arena arena = Arena.ofShared();
    private final RegionGeometry geometry;
    private final MemorySegment segment;
    private final MemoryRegion indexRegion;
    private final MemoryRegion dataRegion;
    private final boolean hugePagesAdvised;

    /**
     * @param hugePages advise transparent huge pages before any page is touched (the region is mapped 2 MiB
     *                  aligned and zero either way)
     */
    public Region(final ProtectionDomain pd, final RegionGeometry geometry, final int nodeId, final boolean hugePages,
        final boolean memoryWindows)
    {
        this.geometry = geometry;
        try
        {
            // mapped, not allocated: an allocation zeroes every byte at once (seconds per GiB), a mapping is zero
            final HugePages.Mapping mapping = HugePages.map(arena, geometry.regionLength(), hugePages);
            segment = mapping.segment();
            hugePagesAdvised = mapping.advised();
        }
        catch (final OutOfMemoryError | IllegalArgumentException | IllegalStateException e)
        {
            arena.close();
            throw new IllegalStateException("cannot allocate a region of " + geometry.regionLength() +
                " bytes: " + e.getMessage(), e);
        }
        new RegionHeader().wrap(segment).initialise(geometry, nodeId);
        MemoryRegion index = null;
        try
        {
            index = pd.registerMemory(segment.asSlice(0, geometry.dataOffset()),
                AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ | AccessFlags.REMOTE_ATOMIC);
            dataRegion = pd.registerMemory(segment.asSlice(geometry.dataOffset(), geometry.dataLength()),
                memoryWindows ? GrantWindows.DATA_AREA_ACCESS : GrantWindows.DATA_AREA_ACCESS_NO_WINDOWS);
            indexRegion = index;
        }
        catch (final RuntimeException e)
        {
            if (index != null)
            {
                index.close();
            }
            arena.close();
            throw e;
        }
    }

    public boolean hugePagesAdvised()
    {
        return hugePagesAdvised;
    }

    public RegionGeometry geometry()
    {
        return geometry;
    }

    /** The whole region: header at 0, index at the geometry's index offset. */
    public MemorySegment segment()
    {
        return segment;
    }

    public MemoryRegion indexRegion()
    {
        return indexRegion;
    }

    public MemoryRegion dataRegion()
    {
        return dataRegion;
    }

    @Override
    public void close()
    {
        indexRegion.close();
        dataRegion.close();
        arena.close();
    }
}
