package io.rdmakv.server.replication;

import io.rdmakv.verbs.AccessFlags;
import io.rdmakv.verbs.MemoryRegion;
import io.rdmakv.verbs.ProtectionDomain;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The copier's registered local memory, where its READs of the primary's region land:
 *
 * <pre>
 *   0            INDEX    one chunk of the primary's index ({@code indexBytes})
 *   indexBytes   SLOTS    fresh reads of single slot words (one per READ of a chain)
 *   + 4 KiB      BLOCKS   blocks read from the primary ({@code blockBytes}, at least one largest block)
 * </pre>
 *
 * Registered for local write only: nothing remote ever touches it.
 */
final class CopyBuffer implements AutoCloseable
{
    private static final int PAGE = 4096;

    private final Arena arena = Arena.ofShared();
    private final MemorySegment segment;
    private final MemoryRegion mr;
    private final int indexBytes;
    private final int slotsOffset;
    private final int slotCapacity;
    private final int blocksOffset;
    private final int blockBytes;

    CopyBuffer(final ProtectionDomain pd, final int indexBytes, final int slotCapacity, final int blockBytes)
    {
        this.indexBytes = indexBytes;
        this.slotCapacity = slotCapacity;
        this.blockBytes = blockBytes;
        slotsOffset = align(indexBytes);
        blocksOffset = slotsOffset + align(slotCapacity * Long.BYTES);
        try
        {
            segment = arena.allocate((long)blocksOffset + blockBytes, PAGE);
            mr = pd.registerMemory(segment, AccessFlags.LOCAL_WRITE);
        }
        catch (final RuntimeException e)
        {
            arena.close();
            throw e;
        }
    }

    MemorySegment segment()
    {
        return segment;
    }

    int lkey()
    {
        return mr.lkey();
    }

    /** Local address of {@code offset} bytes into the buffer, for a READ's scatter entry. */
    long address(final long offset)
    {
        return mr.address() + offset;
    }

    int indexBytes()
    {
        return indexBytes;
    }

    /** Offset of fresh slot word {@code i}. */
    int slotOffset(final int i)
    {
        return slotsOffset + i * Long.BYTES;
    }

    int slotCapacity()
    {
        return slotCapacity;
    }

    int blocksOffset()
    {
        return blocksOffset;
    }

    int blockBytes()
    {
        return blockBytes;
    }

    @Override
    public void close()
    {
        mr.close();
        arena.close();
    }

    private static int align(final int value)
    {
        return (value + PAGE - 1) / PAGE * PAGE;
    }
}
