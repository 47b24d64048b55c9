package io.rdmakv.common.layout;

import static io.rdmakv.common.layout.RegionHeaderDescriptor.HEADER_LENGTH;
import static io.rdmakv.common.layout.RegionHeaderDescriptor.PAGE_SIZE;
import static io.rdmakv.common.layout.RegionHeaderDescriptor.alignUp;

/**
 * Where everything sits in a region (see {@link RegionHeaderDescriptor}): the numbers a server computes
 * once from the memory it was given, writes into the region header and sends to clients in HELLO_OK.
 *
 * <p>{@link #forMemory(long)} sizes a region: the index gets about 1/{@value #INDEX_FRACTION} of the
 * memory, as the largest power-of-two number of buckets that fits in that share (fewer when the data area
 * would otherwise drop below {@value #MIN_DATA_CHUNKS} chunks), the data area gets the rest, in whole
 * chunks, starting on a page boundary. The region is at most the memory given (the remainder of the last
 * chunk is left out).
 *
 * <p>The canonical constructor checks every invariant, so a geometry decoded from a header or a message is
 * as trustworthy as one computed here.
 */
public record RegionGeometry(
    long regionLength,
    int headerLength,
    long indexOffset,
    long indexLength,
    long bucketCount,
    int slotsPerBucket,
    int bucketsPerGroup,
    long dataOffset,
    long dataLength,
    int chunkSize,
    int maxKeyLength,
    int maxValueLength)
{
    /** The index gets about 1/8 of the memory. */
    public static final int INDEX_FRACTION = 8;

    /** The smallest index {@link #forMemory} makes: 64 buckets, one page. */
    public static final long MIN_BUCKET_COUNT = 64;

    /** The smallest data area, in chunks (the first chunk loses its first 64 bytes to the reserved unit). */
    public static final int MIN_DATA_CHUNKS = 2;

    /** The default space-grant granularity: 1 MiB. */
    public static final int DEFAULT_CHUNK_SIZE = 1 << 20;

    /** The largest chunk: 1 GiB. */
    public static final int MAX_CHUNK_SIZE = 1 << 30;

    public RegionGeometry
    {
        check(headerLength == HEADER_LENGTH, "header length %d is not %d", headerLength, HEADER_LENGTH);
        check(indexOffset == headerLength, "index offset %d is not the header length %d", indexOffset, headerLength);
        check(
            slotsPerBucket == BucketDescriptor.SLOTS_PER_BUCKET, "slots per bucket %d is not %d", slotsPerBucket,
            BucketDescriptor.SLOTS_PER_BUCKET);
        check(
            bucketsPerGroup == BucketDescriptor.BUCKETS_PER_GROUP, "buckets per group %d is not %d", bucketsPerGroup,
            BucketDescriptor.BUCKETS_PER_GROUP);
        BucketDescriptor.checkBucketCount(bucketCount);
        check(
            indexLength == bucketCount * BucketDescriptor.BUCKET_LENGTH,
            "index length %d is not %d buckets of %d bytes", indexLength, bucketCount, BucketDescriptor.BUCKET_LENGTH);
        check(
            maxKeyLength >= 0 && maxKeyLength <= KvBlockDescriptor.MAX_KEY_LENGTH, "max key length %d outside 0..%d",
            maxKeyLength, KvBlockDescriptor.MAX_KEY_LENGTH);
        check(
            maxValueLength >= 0 && maxValueLength <= KvBlockDescriptor.MAX_VALUE_LENGTH,
            "max value length %d outside 0..%d", maxValueLength, KvBlockDescriptor.MAX_VALUE_LENGTH);
        checkChunkSize(chunkSize, maxKeyLength, maxValueLength);
        check(
            dataOffset >= indexOffset + indexLength && dataOffset % PAGE_SIZE == 0,
            "data offset %d must be page aligned and at or after the end of the index (%d)", dataOffset,
            indexOffset + indexLength);
        check(
            dataLength >= (long)MIN_DATA_CHUNKS * chunkSize && dataLength % chunkSize == 0,
            "data length %d must be a multiple of the chunk size %d and at least %d chunks", dataLength, chunkSize,
            MIN_DATA_CHUNKS);
        check(
            dataLength <= SlotWord.MAX_DATA_LENGTH, "data length %d over the %d bytes a slot can address", dataLength,
            SlotWord.MAX_DATA_LENGTH);
        check(
            regionLength == dataOffset + dataLength, "region length %d is not data offset %d + data length %d",
            regionLength, dataOffset, dataLength);
    }

    /** Sizes a region for {@code memoryBytes} of memory with {@link #DEFAULT_CHUNK_SIZE} chunks. */
    public static RegionGeometry forMemory(final long memoryBytes)
    {
        return forMemory(memoryBytes, DEFAULT_CHUNK_SIZE);
    }

    /**
     * Sizes a region for {@code memoryBytes} of memory with chunks of {@code chunkSize} bytes and the limits
     * of {@link KvBlockDescriptor}.
     *
     * @throws IllegalArgumentException saying how much memory is needed when {@code memoryBytes} is too
     *     small, or what is wrong with {@code chunkSize}.
     */
    public static RegionGeometry forMemory(final long memoryBytes, final int chunkSize)
    {
        checkChunkSize(chunkSize, KvBlockDescriptor.MAX_KEY_LENGTH, KvBlockDescriptor.MAX_VALUE_LENGTH);
        final long minimum = minimumMemory(chunkSize);
        if (memoryBytes < minimum)
        {
            throw new IllegalArgumentException(
                "memory of " + memoryBytes + " bytes is too small for a region: it needs at least " + minimum +
                " bytes (a " + HEADER_LENGTH + "-byte header, an index of at least " + MIN_BUCKET_COUNT +
                " buckets and a data area of at least " + MIN_DATA_CHUNKS + " chunks of " + chunkSize + " bytes)");
        }
        final long maxDataLength = SlotWord.MAX_DATA_LENGTH / chunkSize * chunkSize;
        final long bucketCount = bucketCountFor(memoryBytes, chunkSize);
        final long indexLength = bucketCount * BucketDescriptor.BUCKET_LENGTH;
        final long dataOffset = alignUp(HEADER_LENGTH + indexLength, PAGE_SIZE);
        final long dataLength = Math.min((memoryBytes - dataOffset) / chunkSize * chunkSize, maxDataLength);
        return new RegionGeometry(
            dataOffset + dataLength,
            HEADER_LENGTH,
            HEADER_LENGTH,
            indexLength,
            bucketCount,
            BucketDescriptor.SLOTS_PER_BUCKET,
            BucketDescriptor.BUCKETS_PER_GROUP,
            dataOffset,
            dataLength,
            chunkSize,
            KvBlockDescriptor.MAX_KEY_LENGTH,
            KvBlockDescriptor.MAX_VALUE_LENGTH);
    }

    /**
     * The bucket groups of the index {@link #forMemory(long, int)} gives {@code memoryBytes} of memory in chunks of
     * {@code chunkSize} bytes (any positive size: what a node's member znode says, without judging the chunk size),
     * or 0 when the memory is below the minimum for such chunks. The coordinator sizes index segments with it.
     */
    public static long indexGroupCount(final long memoryBytes, final int chunkSize)
    {
        if (chunkSize <= 0 || memoryBytes < minimumMemory(chunkSize))
        {
            return 0;
        }
        return BucketDescriptor.groupCount(bucketCountFor(memoryBytes, chunkSize));
    }

    /** The index's bucket count: about 1/8 of the memory, a power of two, halved until the data area has room. */
    private static long bucketCountFor(final long memoryBytes, final int chunkSize)
    {
        final long maxDataLength = SlotWord.MAX_DATA_LENGTH / chunkSize * chunkSize;
        long bucketCount = Math.max(
            MIN_BUCKET_COUNT, Long.highestOneBit(memoryBytes / INDEX_FRACTION / BucketDescriptor.BUCKET_LENGTH));
        while (true)
        {
            final long dataOffset = alignUp(HEADER_LENGTH + bucketCount * BucketDescriptor.BUCKET_LENGTH, PAGE_SIZE);
            final long dataLength = Math.min((memoryBytes - dataOffset) / chunkSize * chunkSize, maxDataLength);
            if (dataLength >= (long)MIN_DATA_CHUNKS * chunkSize || bucketCount == MIN_BUCKET_COUNT)
            {
                return bucketCount;
            }
            bucketCount >>= 1;
        }
    }

    /** The least memory {@link #forMemory(long, int)} accepts for chunks of {@code chunkSize} bytes. */
    public static long minimumMemory(final int chunkSize)
    {
        return alignUp(HEADER_LENGTH + MIN_BUCKET_COUNT * BucketDescriptor.BUCKET_LENGTH, PAGE_SIZE) +
            (long)MIN_DATA_CHUNKS * chunkSize;
    }

    /** Bucket groups in the index: what a group hash is reduced modulo. */
    public long groupCount()
    {
        return BucketDescriptor.groupCount(bucketCount);
    }

    /** Slots in the index. */
    public long slotCount()
    {
        return bucketCount * slotsPerBucket;
    }

    /** Chunks in the data area. */
    public long chunkCount()
    {
        return dataLength / chunkSize;
    }

    /** Length of the first memory region: the header and the index. */
    public long headerAndIndexLength()
    {
        return indexOffset + indexLength;
    }

    /** Offset from the start of the region of slot {@code slot} (0..13) of group {@code group}. */
    public long slotRegionOffset(final long group, final int slot)
    {
        return indexOffset + BucketDescriptor.slotOffset(group, slot);
    }

    /** Offset from the start of the region of group {@code group}. */
    public long groupRegionOffset(final long group)
    {
        return indexOffset + BucketDescriptor.groupOffset(group);
    }

    private static void checkChunkSize(final int chunkSize, final int maxKeyLength, final int maxValueLength)
    {
        final int largestBlock = KvBlockDescriptor.blockLength(maxKeyLength, maxValueLength);
        check(
            chunkSize >= PAGE_SIZE && chunkSize <= MAX_CHUNK_SIZE && Integer.bitCount(chunkSize) == 1 &&
            chunkSize >= largestBlock,
            "chunk size %d must be a power of two from %d to %d and hold the largest block (%d bytes)", chunkSize,
            PAGE_SIZE, MAX_CHUNK_SIZE, largestBlock);
    }

    private static void check(final boolean condition, final String format, final Object... args)
    {
        if (!condition)
        {
            throw new IllegalArgumentException("region geometry: " + String.format(format, args));
        }
    }
}
