package io.rdmakv.common.layout;

import io.rdmakv.common.LittleEndian;

import java.lang.foreign.MemorySegment;

import static io.rdmakv.common.layout.RegionHeaderDescriptor.BUCKETS_PER_GROUP_OFFSET;
import static io.rdmakv.common.layout.RegionHeaderDescriptor.BUCKET_COUNT_OFFSET;
import static io.rdmakv.common.layout.RegionHeaderDescriptor.CHUNK_SIZE_OFFSET;
import static io.rdmakv.common.layout.RegionHeaderDescriptor.DATA_LENGTH_OFFSET;
import static io.rdmakv.common.layout.RegionHeaderDescriptor.DATA_OFFSET_OFFSET;
import static io.rdmakv.common.layout.RegionHeaderDescriptor.HEADER_LENGTH;
import static io.rdmakv.common.layout.RegionHeaderDescriptor.HEADER_LENGTH_OFFSET;
import static io.rdmakv.common.layout.RegionHeaderDescriptor.INDEX_LENGTH_OFFSET;
import static io.rdmakv.common.layout.RegionHeaderDescriptor.INDEX_OFFSET_OFFSET;
import static io.rdmakv.common.layout.RegionHeaderDescriptor.MAP_EPOCH_OFFSET;
import static io.rdmakv.common.layout.RegionHeaderDescriptor.LAYOUT_VERSION;
import static io.rdmakv.common.layout.RegionHeaderDescriptor.LAYOUT_VERSION_OFFSET;
import static io.rdmakv.common.layout.RegionHeaderDescriptor.MAGIC;
import static io.rdmakv.common.layout.RegionHeaderDescriptor.MAGIC_OFFSET;
import static io.rdmakv.common.layout.RegionHeaderDescriptor.MAX_KEY_LENGTH_OFFSET;
import static io.rdmakv.common.layout.RegionHeaderDescriptor.MAX_VALUE_LENGTH_OFFSET;
import static io.rdmakv.common.layout.RegionHeaderDescriptor.NODE_ID_OFFSET;
import static io.rdmakv.common.layout.RegionHeaderDescriptor.REGION_LENGTH_OFFSET;
import static io.rdmakv.common.layout.RegionHeaderDescriptor.SLOTS_PER_BUCKET_OFFSET;

/**
 * Flyweight over a region header (layout in {@link RegionHeaderDescriptor}): the server {@link #initialise
 * initialises} it once; a client that RDMA-reads it checks it with {@link #check()} and takes its {@link
 * #geometry()}. Accessors are named after the fields, setters return {@code this}.
 */
public final class RegionHeader
{
    private MemorySegment segment;
    private long offset;

    public RegionHeader wrap(final MemorySegment segment, final long offset)
    {
        if (offset < 0 || offset > segment.byteSize() - RegionHeaderDescriptor.USED_LENGTH)
        {
            throw new IndexOutOfBoundsException(
                "a region header at " + offset + " does not fit in a segment of " + segment.byteSize() + " bytes");
        }
        this.segment = segment;
        this.offset = offset;
        return this;
    }

    /** Wraps a segment that starts with a region header. */
    public RegionHeader wrap(final MemorySegment segment)
    {
        return wrap(segment, 0);
    }

    public MemorySegment segment()
    {
        return segment;
    }

    public long offset()
    {
        return offset;
    }

    /**
     * Writes a complete header: zeroes all {@value RegionHeaderDescriptor#HEADER_LENGTH} bytes (as many as
     * the segment holds), then writes magic, layout version, node id and {@code geometry}.
     */
    public RegionHeader initialise(final RegionGeometry geometry, final int nodeId)
    {
        segment.asSlice(offset, Math.min(HEADER_LENGTH, segment.byteSize() - offset)).fill((byte)0);
        return magic(MAGIC)
            .layoutVersion(LAYOUT_VERSION)
            .headerLength(geometry.headerLength())
            .nodeId(nodeId)
            .slotsPerBucket(geometry.slotsPerBucket())
            .bucketsPerGroup(geometry.bucketsPerGroup())
            .chunkSize(geometry.chunkSize())
            .regionLength(geometry.regionLength())
            .indexOffset(geometry.indexOffset())
            .indexLength(geometry.indexLength())
            .bucketCount(geometry.bucketCount())
            .dataOffset(geometry.dataOffset())
            .dataLength(geometry.dataLength())
            .maxKeyLength(geometry.maxKeyLength())
            .maxValueLength(geometry.maxValueLength())
            .mapEpoch(0);
    }

    /**
     * Checks the magic and the layout version.
     *
     * @throws RegionLayoutException saying what does not match.
     */
    public RegionHeader check()
    {
        RegionHeaderDescriptor.checkMagic(magic());
        checkVersion();
        return this;
    }

    /**
     * Checks the layout version.
     *
     * @throws RegionLayoutException naming the region's version and this build's.
     */
    public RegionHeader checkVersion()
    {
        RegionHeaderDescriptor.checkVersion(layoutVersion());
        return this;
    }

    /**
     * The geometry the header describes (allocates; setup only).
     *
     * @throws RegionLayoutException when the header is not a valid region header of this layout version.
     */
    public RegionGeometry geometry()
    {
        check();
        try
        {
            return new RegionGeometry(
                regionLength(),
                headerLength(),
                indexOffset(),
                indexLength(),
                bucketCount(),
                slotsPerBucket(),
                bucketsPerGroup(),
                dataOffset(),
                dataLength(),
                chunkSize(),
                maxKeyLength(),
                maxValueLength());
        }
        catch (final IllegalArgumentException ex)
        {
            throw new RegionLayoutException("region header of node " + nodeId() + ": " + ex.getMessage(), ex);
        }
    }

    public long magic()
    {
        return magic(segment, offset);
    }

    public RegionHeader magic(final long magic)
    {
        segment.set(LittleEndian.U64, offset + MAGIC_OFFSET, magic);
        return this;
    }

    public int layoutVersion()
    {
        return layoutVersion(segment, offset);
    }

    public RegionHeader layoutVersion(final int layoutVersion)
    {
        segment.set(LittleEndian.U32, offset + LAYOUT_VERSION_OFFSET, layoutVersion);
        return this;
    }

    public int headerLength()
    {
        return segment.get(LittleEndian.U32, offset + HEADER_LENGTH_OFFSET);
    }

    public RegionHeader headerLength(final int headerLength)
    {
        segment.set(LittleEndian.U32, offset + HEADER_LENGTH_OFFSET, headerLength);
        return this;
    }

    public int nodeId()
    {
        return segment.get(LittleEndian.U32, offset + NODE_ID_OFFSET);
    }

    public RegionHeader nodeId(final int nodeId)
    {
        segment.set(LittleEndian.U32, offset + NODE_ID_OFFSET, nodeId);
        return this;
    }

    public int slotsPerBucket()
    {
        return segment.get(LittleEndian.U32, offset + SLOTS_PER_BUCKET_OFFSET);
    }

    public RegionHeader slotsPerBucket(final int slotsPerBucket)
    {
        segment.set(LittleEndian.U32, offset + SLOTS_PER_BUCKET_OFFSET, slotsPerBucket);
        return this;
    }

    public int bucketsPerGroup()
    {
        return segment.get(LittleEndian.U32, offset + BUCKETS_PER_GROUP_OFFSET);
    }

    public RegionHeader bucketsPerGroup(final int bucketsPerGroup)
    {
        segment.set(LittleEndian.U32, offset + BUCKETS_PER_GROUP_OFFSET, bucketsPerGroup);
        return this;
    }

    public int chunkSize()
    {
        return segment.get(LittleEndian.U32, offset + CHUNK_SIZE_OFFSET);
    }

    public RegionHeader chunkSize(final int chunkSize)
    {
        segment.set(LittleEndian.U32, offset + CHUNK_SIZE_OFFSET, chunkSize);
        return this;
    }

    public long regionLength()
    {
        return segment.get(LittleEndian.U64, offset + REGION_LENGTH_OFFSET);
    }

    public RegionHeader regionLength(final long regionLength)
    {
        segment.set(LittleEndian.U64, offset + REGION_LENGTH_OFFSET, regionLength);
        return this;
    }

    public long indexOffset()
    {
        return segment.get(LittleEndian.U64, offset + INDEX_OFFSET_OFFSET);
    }

    public RegionHeader indexOffset(final long indexOffset)
    {
        segment.set(LittleEndian.U64, offset + INDEX_OFFSET_OFFSET, indexOffset);
        return this;
    }

    public long indexLength()
    {
        return segment.get(LittleEndian.U64, offset + INDEX_LENGTH_OFFSET);
    }

    public RegionHeader indexLength(final long indexLength)
    {
        segment.set(LittleEndian.U64, offset + INDEX_LENGTH_OFFSET, indexLength);
        return this;
    }

    public long bucketCount()
    {
        return segment.get(LittleEndian.U64, offset + BUCKET_COUNT_OFFSET);
    }

    public RegionHeader bucketCount(final long bucketCount)
    {
        segment.set(LittleEndian.U64, offset + BUCKET_COUNT_OFFSET, bucketCount);
        return this;
    }

    public long dataOffset()
    {
        return segment.get(LittleEndian.U64, offset + DATA_OFFSET_OFFSET);
    }

    public RegionHeader dataOffset(final long dataOffset)
    {
        segment.set(LittleEndian.U64, offset + DATA_OFFSET_OFFSET, dataOffset);
        return this;
    }

    public long dataLength()
    {
        return segment.get(LittleEndian.U64, offset + DATA_LENGTH_OFFSET);
    }

    public RegionHeader dataLength(final long dataLength)
    {
        segment.set(LittleEndian.U64, offset + DATA_LENGTH_OFFSET, dataLength);
        return this;
    }

    public int maxKeyLength()
    {
        return segment.get(LittleEndian.U32, offset + MAX_KEY_LENGTH_OFFSET);
    }

    public RegionHeader maxKeyLength(final int maxKeyLength)
    {
        segment.set(LittleEndian.U32, offset + MAX_KEY_LENGTH_OFFSET, maxKeyLength);
        return this;
    }

    public int maxValueLength()
    {
        return segment.get(LittleEndian.U32, offset + MAX_VALUE_LENGTH_OFFSET);
    }

    public RegionHeader maxValueLength(final int maxValueLength)
    {
        segment.set(LittleEndian.U32, offset + MAX_VALUE_LENGTH_OFFSET, maxValueLength);
        return this;
    }

    /** The epoch of the cluster map the node applied (0: none); see {@link RegionHeaderDescriptor}. */
    public long mapEpoch()
    {
        return mapEpoch(segment, offset);
    }

    /** Stores the applied map's epoch: one plain 8-byte store (the word is 8-byte aligned in a region),
     * which a concurrent READ sees whole. */
    public RegionHeader mapEpoch(final long mapEpoch)
    {
        segment.set(LittleEndian.U64, offset + MAP_EPOCH_OFFSET, mapEpoch);
        return this;
    }

    /** Reads the magic of the header at {@code offset} without a flyweight. */
    public static long magic(final MemorySegment segment, final long offset)
    {
        return segment.get(LittleEndian.U64, offset + MAGIC_OFFSET);
    }

    /** Reads the layout version of the header at {@code offset} without a flyweight. */
    public static int layoutVersion(final MemorySegment segment, final long offset)
    {
        return segment.get(LittleEndian.U32, offset + LAYOUT_VERSION_OFFSET);
    }

    /** Stores the map epoch word of the header at {@code offset} without a flyweight (one 8-byte store). */
    public static void mapEpoch(final MemorySegment segment, final long offset, final long mapEpoch)
    {
        segment.set(LittleEndian.U64, offset + MAP_EPOCH_OFFSET, mapEpoch);
    }

    /** Reads the map epoch word of the header at {@code offset} without a flyweight. */
    public static long mapEpoch(final MemorySegment segment, final long offset)
    {
        return segment.get(LittleEndian.U64, offset + MAP_EPOCH_OFFSET);
    }

    @Override
    public String toString()
    {
        return segment == null ? "RegionHeader{unwrapped}" :
            "RegionHeader{magic=0x" + Long.toHexString(magic()) + " layoutVersion=" + layoutVersion() + " nodeId=" +
            nodeId() + " regionLength=" + regionLength() + " bucketCount=" + bucketCount() + " dataOffset=" +
            dataOffset() + " dataLength=" + dataLength() + " chunkSize=" + chunkSize() + " mapEpoch=" +
            mapEpoch() + "}";
    }
}
