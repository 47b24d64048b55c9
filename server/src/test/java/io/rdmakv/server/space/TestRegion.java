package io.rdmakv.server.space;

import io.rdmakv.common.hash.KeyHash;
import io.rdmakv.common.layout.BucketGroup;
import io.rdmakv.common.layout.KvBlock;
import io.rdmakv.common.layout.RegionGeometry;
import io.rdmakv.common.layout.RegionHeader;
import io.rdmakv.common.layout.SlotWord;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;

/**
 * A node's region as plain memory, laid out with the common layout classes: a header, an index and a
 * data area, with helpers that write blocks and point slots at them as clients do over RDMA.
 */
public final class TestRegion implements AutoCloseable
{
    /** 4 MiB of memory: 4096 groups, 3 chunks of 1 MiB. */
    public static final RegionGeometry GEOMETRY = RegionGeometry.forMemory(4L << 20);

    private final Arena arena = Arena.ofShared();
    private final MemorySegment segment = arena.allocate(GEOMETRY.regionLength(), 4096);
    private final KvBlock block = new KvBlock();
    private final BucketGroup group = new BucketGroup();

    public TestRegion()
    {
        new RegionHeader().wrap(segment).initialise(GEOMETRY, 0);
    }

    public MemorySegment segment()
    {
        return segment;
    }

    public RegionGeometry geometry()
    {
        return GEOMETRY;
    }

    public static byte[] key(final String key)
    {
        return key.getBytes(StandardCharsets.UTF_8);
    }

    public static long group1(final byte[] key)
    {
        return KeyHash.group1(KeyHash.hash(key), GEOMETRY.groupCount());
    }

    public static long group2(final byte[] key)
    {
        return KeyHash.group2(KeyHash.hash(key), GEOMETRY.groupCount());
    }

    /** Writes a block of {@code key} at {@code dataOffset} of the data area; returns its length. */
    public int writeBlock(final long dataOffset, final byte[] key, final int valueLength)
    {
        return block.wrap(segment, GEOMETRY.dataOffset() + dataOffset).write(key, new byte[valueLength]);
    }

    /** The slot word a client would CAS in for the block of {@code key} at {@code dataOffset}. */
    public static long slotWord(final byte[] key, final long dataOffset, final int blockLength)
    {
        return SlotWord.encodeBlock(KeyHash.fingerprint(KeyHash.hash(key)), dataOffset, blockLength);
    }

    /** Writes the block and points slot {@code slot} of group {@code group} at it; returns the slot word. */
    public long insert(final byte[] key, final long dataOffset, final int valueLength, final long group, final int slot)
    {
        final long word = slotWord(key, dataOffset, writeBlock(dataOffset, key, valueLength));
        slot(group, slot, word);
        return word;
    }

    public void slot(final long group, final int slot, final long word)
    {
        this.group.wrap(segment, GEOMETRY.groupRegionOffset(group)).slot(slot, word);
    }

    public long slot(final long group, final int slot)
    {
        return this.group.wrap(segment, GEOMETRY.groupRegionOffset(group)).slot(slot);
    }

    /** The insert-lock word of group {@code group} (the header of its second bucket). */
    public long lock(final long group)
    {
        return this.group.wrap(segment, GEOMETRY.groupRegionOffset(group)).bucketHeader(1);
    }

    public void lock(final long group, final long word)
    {
        this.group.wrap(segment, GEOMETRY.groupRegionOffset(group)).bucketHeader(1, word);
    }

    @Override
    public void close()
    {
        arena.close();
    }
}
