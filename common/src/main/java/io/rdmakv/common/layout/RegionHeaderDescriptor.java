package io.rdmakv.common.layout;

/**
 * Layout of a server node's region and of its header.
 *
 * <p>Each server node makes one region: one page-aligned native allocation, laid out as
 *
 * <pre>
 *   0                      4096                      data_offset                        region_length
 *   +----------------------+-------------------------+----------------------------------+
 *   | header (4096 bytes)  | index: bucket_count     | data area: chunks granted to     |
 *   |                      | buckets of 64 bytes     | clients, key-value blocks inside |
 *   +----------------------+-------------------------+----------------------------------+
 *   \_____ memory region 1: REMOTE_READ | REMOTE_ATOMIC ______/\__ memory region 2: REMOTE_READ | REMOTE_WRITE __/
 * </pre>
 *
 * The header and the index are registered together as one memory region with remote read and remote
 * atomic access only (clients read buckets and compare-and-swap slots, never write them); the data area is
 * a second region with remote read and remote write (clients write blocks into chunks they were granted).
 * The data area starts on a page boundary and its first 64 bytes (slot offset unit 0) never hold a block.
 *
 * <p>The header (all fields little-endian):
 *
 * <pre>
 *    0 magic              u64   "RDMAKV\0\1": bytes 52 44 4D 41 4B 56 00 01
 *    8 layout_version     u32   {@value #LAYOUT_VERSION}; readers call {@link RegionHeader#checkVersion}
 *   12 header_length      u32   4096
 *   16 node_id            u32
 *   20 slots_per_bucket   u32   7
 *   24 buckets_per_group  u32   2
 *   28 chunk_size         u32   granularity of space grants (power of two)
 *   32 region_length      u64   header + index + data area
 *   40 index_offset       u64   = header_length
 *   48 index_length       u64   = bucket_count * 64
 *   56 bucket_count       u64   power of two
 *   64 data_offset        u64   page aligned
 *   72 data_length        u64   a multiple of chunk_size
 *   80 max_key_length     u32
 *   84 max_value_length   u32
 *   88 zero up to the next cache line
 *  128 map_epoch          u64   on its own cache line: the epoch of the cluster map the node applied (0: none),
 *                              stored with a plain 8-byte store when it applies one, after its map area holds it,
 *                              so a client can poll it with one 8-byte READ
 *  136 zero up to 4096
 * </pre>
 */
public final class RegionHeaderDescriptor
{
    /**
     * The version of the region layout (header, index, slot and block formats) this build reads and writes. 2: a
     * key's candidate groups lie in its partition's index segment, reduced by multiply-shift ({@code KeyHash}); a
     * node without a segment table has one segment over its whole index.
     */
    public static final int LAYOUT_VERSION = 2;

    /** "RDMAKV\0\1" as a little-endian u64: the bytes appear in that order in memory. */
    public static final long MAGIC = 0x0100_564B_414D_4452L;

    public static final int PAGE_SIZE = 4096;
    public static final int CACHE_LINE_LENGTH = 64;
    public static final int HEADER_LENGTH = PAGE_SIZE;

    public static final int MAGIC_OFFSET;
    public static final int LAYOUT_VERSION_OFFSET;
    public static final int HEADER_LENGTH_OFFSET;
    public static final int NODE_ID_OFFSET;
    public static final int SLOTS_PER_BUCKET_OFFSET;
    public static final int BUCKETS_PER_GROUP_OFFSET;
    public static final int CHUNK_SIZE_OFFSET;
    public static final int REGION_LENGTH_OFFSET;
    public static final int INDEX_OFFSET_OFFSET;
    public static final int INDEX_LENGTH_OFFSET;
    public static final int BUCKET_COUNT_OFFSET;
    public static final int DATA_OFFSET_OFFSET;
    public static final int DATA_LENGTH_OFFSET;
    public static final int MAX_KEY_LENGTH_OFFSET;
    public static final int MAX_VALUE_LENGTH_OFFSET;
    public static final int MAP_EPOCH_OFFSET;

    /** Bytes of the header that hold fields; the rest up to {@link #HEADER_LENGTH} is zero. */
    public static final int USED_LENGTH;

    static
    {
        int offset = 0;
        MAGIC_OFFSET = offset;
        offset += Long.BYTES;

        LAYOUT_VERSION_OFFSET = offset;
        offset += Integer.BYTES;

        HEADER_LENGTH_OFFSET = offset;
        offset += Integer.BYTES;

        NODE_ID_OFFSET = offset;
        offset += Integer.BYTES;

        SLOTS_PER_BUCKET_OFFSET = offset;
        offset += Integer.BYTES;

        BUCKETS_PER_GROUP_OFFSET = offset;
        offset += Integer.BYTES;

        CHUNK_SIZE_OFFSET = offset;
        offset += Integer.BYTES;

        REGION_LENGTH_OFFSET = offset;
        offset += Long.BYTES;

        INDEX_OFFSET_OFFSET = offset;
        offset += Long.BYTES;

        INDEX_LENGTH_OFFSET = offset;
        offset += Long.BYTES;

        BUCKET_COUNT_OFFSET = offset;
        offset += Long.BYTES;

        DATA_OFFSET_OFFSET = offset;
        offset += Long.BYTES;

        DATA_LENGTH_OFFSET = offset;
        offset += Long.BYTES;

        MAX_KEY_LENGTH_OFFSET = offset;
        offset += Integer.BYTES;

        MAX_VALUE_LENGTH_OFFSET = offset;
        offset += Integer.BYTES;

        offset = alignUp(offset, CACHE_LINE_LENGTH);
        MAP_EPOCH_OFFSET = offset;
        offset += Long.BYTES;

        USED_LENGTH = offset;
    }

    private RegionHeaderDescriptor()
    {
    }

    /** Rounds {@code value} up to a multiple of {@code alignment} (a power of two). */
    public static long alignUp(final long value, final long alignment)
    {
        return (value + alignment - 1) & -alignment;
    }

    private static int alignUp(final int value, final int alignment)
    {
        return (value + alignment - 1) & -alignment;
    }

    /**
     * Checks a layout version read from a region (or announced by a peer).
     *
     * @throws RegionLayoutException naming both versions when they differ.
     */
    public static void checkVersion(final int layoutVersion)
    {
        if (layoutVersion != LAYOUT_VERSION)
        {
            throw new RegionLayoutException(
                "region layout version " + layoutVersion + " is not supported: this build of rdmakv reads layout " +
                "version " + LAYOUT_VERSION);
        }
    }

    /**
     * Checks a magic word read from a region.
     *
     * @throws RegionLayoutException when it is not {@link #MAGIC}.
     */
    public static void checkMagic(final long magic)
    {
        if (magic != MAGIC)
        {
            throw new RegionLayoutException(
                "not an rdmakv region: magic 0x" + Long.toHexString(magic) + ", expected 0x" + Long.toHexString(MAGIC));
        }
    }
}
