package io.rdmakv.common.layout;

/**
 * Layout of the index: buckets of slots, read two buckets (a group) per RDMA READ.
 *
 * <p>A bucket is one cache line: an 8-byte header and seven {@link SlotWord slots}.
 *
 * <pre>
 *   0                   8                  16                               56                  64
 *   +-------------------+------------------+--------------- ... ------------+-------------------+
 *   | bucket header u64 |    slot 0 u64    |    slot 1 ... slot 5            |    slot 6 u64     |
 *   +-------------------+------------------+--------------- ... ------------+-------------------+
 * </pre>
 *
 * The header of a group's first bucket is zero, or the {@link MovedHeader MOVED} mark of a partition that has
 * left the node's replica group (read by clients with the group, written only by nodes). The header of a group's second bucket is the group's
 * <b>insert lock</b> ({@link #INSERT_LOCK_OFFSET}): 0 when free, else the session id of the client that
 * holds it. Every insert of a key takes the lock of the key's first candidate group with an RDMA CAS
 * (0 → session id), re-reads both groups, CASes an empty slot and releases the lock (session id → 0), so
 * two inserts of one key never race into two slots. The node clears the locks of a session that leaves.
 * Readers ignore the lock, and turn back at a MOVED mark.
 *
 * <p>A group is {@value #BUCKETS_PER_GROUP} adjacent buckets, 128 bytes and {@value
 * #SLOTS_PER_GROUP} slots, always read whole with one RDMA READ. Group {@code g} covers buckets {@code 2g}
 * and {@code 2g + 1} and starts {@code g * 128} bytes into the index. In the style of RACE hashing every
 * key has two candidate groups from two hash functions ({@code KeyHash.group1/group2}), and a client reads
 * both in one doorbell; a key lives in any slot of either group.
 *
 * <pre>
 *   group g:  [ bucket 2g: moved mark | slots 0..6 ][ bucket 2g+1: insert lock | slots 7..13 ]
 *             0                                  64                                       128
 * </pre>
 *
 * Offsets here are relative to the start of the index; the index starts {@code indexOffset} bytes into
 * the region (see {@link RegionHeaderDescriptor}), and the remote address of a slot is the index memory
 * region's address plus {@code indexOffset} plus {@link #slotOffset(long, int)}.
 */
public final class BucketDescriptor
{
    public static final int SLOT_LENGTH = Long.BYTES;
    public static final int SLOTS_PER_BUCKET = 7;
    public static final int BUCKETS_PER_GROUP = 2;
    public static final int SLOTS_PER_GROUP = SLOTS_PER_BUCKET * BUCKETS_PER_GROUP;

    /** Candidate groups per key (two hash functions). */
    public static final int CANDIDATE_GROUPS = 2;

    public static final int BUCKET_HEADER_OFFSET;
    public static final int BUCKET_HEADER_LENGTH = Long.BYTES;
    public static final int FIRST_SLOT_OFFSET;
    public static final int BUCKET_LENGTH;
    public static final int GROUP_LENGTH;
    /** Offset inside a group of its {@link MovedHeader}: the header of its first bucket. */
    public static final int MOVED_HEADER_OFFSET;
    /** Offset inside a group of its insert lock word: the header of its second bucket. */
    public static final int INSERT_LOCK_OFFSET;

    static
    {
        int offset = 0;
        BUCKET_HEADER_OFFSET = offset;
        offset += BUCKET_HEADER_LENGTH;

        FIRST_SLOT_OFFSET = offset;
        offset += SLOTS_PER_BUCKET * SLOT_LENGTH;

        BUCKET_LENGTH = offset;
        GROUP_LENGTH = BUCKET_LENGTH * BUCKETS_PER_GROUP;
        MOVED_HEADER_OFFSET = BUCKET_HEADER_OFFSET;
        INSERT_LOCK_OFFSET = BUCKET_LENGTH + BUCKET_HEADER_OFFSET;
    }

    private BucketDescriptor()
    {
    }

    /** Offset of slot {@code slot} (0..6) inside its bucket. */
    public static int slotOffsetInBucket(final int slot)
    {
        return FIRST_SLOT_OFFSET + slot * SLOT_LENGTH;
    }

    /** Offset of slot {@code slot} (0..13) inside a group: bucket {@code slot / 7}, slot {@code slot % 7}. */
    public static int slotOffsetInGroup(final int slot)
    {
        final int bucket = slot / SLOTS_PER_BUCKET;
        return bucket * BUCKET_LENGTH + slotOffsetInBucket(slot - bucket * SLOTS_PER_BUCKET);
    }

    /** Offset of bucket {@code bucket} (0..1) inside a group. */
    public static int bucketOffsetInGroup(final int bucket)
    {
        return bucket * BUCKET_LENGTH;
    }

    /** Offset of group {@code group} from the start of the index. */
    public static long groupOffset(final long group)
    {
        return group * GROUP_LENGTH;
    }

    /**
     * The group a hash selects in an index of {@code groupCount} groups (a power of two): its low bits.
     * Pass {@code KeyHash.group1} or {@code group2} values here, or use those directly.
     */
    public static long groupOf(final long hash, final long groupCount)
    {
        return hash & (groupCount - 1);
    }

    /** Offset from the start of the index of the group that {@code hash} selects. */
    public static long groupOffsetForHash(final long hash, final long groupCount)
    {
        return groupOffset(groupOf(hash, groupCount));
    }

    /** Offset from the start of the index of slot {@code slot} (0..13) of group {@code group}. */
    public static long slotOffset(final long group, final int slot)
    {
        return groupOffset(group) + slotOffsetInGroup(slot);
    }

    /** Groups in an index of {@code bucketCount} buckets. */
    public static long groupCount(final long bucketCount)
    {
        return bucketCount / BUCKETS_PER_GROUP;
    }

    /**
     * Checks a bucket count: a power of two with at least two groups, so that a key's two candidate groups
     * can always differ.
     */
    public static void checkBucketCount(final long bucketCount)
    {
        if (bucketCount < 2L * BUCKETS_PER_GROUP || Long.bitCount(bucketCount) != 1)
        {
            throw new IllegalArgumentException(
                "bucket count " + bucketCount + " must be a power of two of at least " + 2 * BUCKETS_PER_GROUP +
                " (two groups)");
        }
    }
}
