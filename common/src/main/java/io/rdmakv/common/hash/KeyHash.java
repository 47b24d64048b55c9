package io.rdmakv.common.hash;

import java.lang.foreign.MemorySegment;

/**
 * How a key is placed: one 64-bit key hash, and everything else derived from it. Server, clients and
 * tools must compute exactly this, so any change here changes the layout version.
 *
 * <ul>
 *   <li><b>key hash</b>: {@link Xxh64} of the key bytes with seed {@value #KEY_SEED}.</li>
 *   <li><b>partition</b>: the key hash, unsigned, modulo the cluster map's partition count; picks the node.
 *       For a power of two (every cluster kept in ZooKeeper) that is the low bits of the hash, taken with a
 *       mask rather than a division; the result is the same.</li>
 *   <li><b>fingerprint</b>: the top 8 bits of the key hash; stored in the slot (bits the partition does not
 *       use, so a node's keys do not all share a fingerprint).</li>
 *   <li><b>group 1 and group 2</b>: the two candidate bucket groups (RACE hashing), inside the key's
 *       partition's <b>segment</b> of the node's index: {@code count} (at least 2, any number) groups from group
 *       {@code base}. Each is the murmur3 64-bit finalizer ({@code fmix64}) of the key hash XOR its own seed
 *       ({@link #GROUP_SEED_1}, {@link #GROUP_SEED_2}), reduced to {@code [0, count)} by a multiply-shift (the
 *       high 64 bits of the unsigned product with {@code count}: one multiply, no division), plus {@code base}.
 *       The finalizer's avalanche makes the two independent of each other and of the partition bits. When both
 *       land on the same group, group 2 becomes its neighbour inside the segment ({@code group1 + 1}, wrapping to
 *       {@code base}), so a key always has two distinct groups. A node or map without a segment table has one
 *       segment, {@code (0, groupCount)}, over its whole index ({@link #group1(long, long)}): the same function.</li>
 * </ul>
 *
 * <p>A segment travels packed in one {@code long} ({@link #segment}): base in the high 32 bits, count in the low
 * 32; {@link #WHOLE_INDEX} (0, an impossible count) stands for "the whole index of the node", resolved by whoever
 * knows that node's group count.
 *
 * One pass over the key, then a few multiplies: static and allocation-free.
 */
public final class KeyHash
{
    public static final long KEY_SEED = 0;
    public static final long GROUP_SEED_1 = 0x5241_4345_5F47_3121L;
    public static final long GROUP_SEED_2 = 0x5241_4345_5F47_3222L;

    private KeyHash()
    {
    }

    /** The key hash of all of {@code key}. */
    public static long hash(final byte[] key)
    {
        return Xxh64.hash(key, 0, key.length, KEY_SEED);
    }

    /** The key hash of {@code length} bytes of {@code key} from {@code offset}. */
    public static long hash(final byte[] key, final int offset, final int length)
    {
        return Xxh64.hash(key, offset, length, KEY_SEED);
    }

    /** The key hash of {@code length} bytes of {@code key} from {@code offset}. */
    public static long hash(final MemorySegment key, final long offset, final int length)
    {
        return Xxh64.hash(key, offset, length, KEY_SEED);
    }

    /** The slot fingerprint (0..255): the top 8 bits of the key hash. */
    public static int fingerprint(final long keyHash)
    {
        return (int)(keyHash >>> 56);
    }

    /** The partition (0..partitions-1): the key hash, unsigned, modulo {@code partitions} (a mask for a power of two). */
    public static int partition(final long keyHash, final int partitions)
    {
        final int mask = partitions - 1;
        return (partitions & mask) == 0 ? (int)(keyHash & mask) : (int)Long.remainderUnsigned(keyHash, partitions);
    }

    /** A packed segment meaning "the node's whole index": {@code (0, groupCount)} of whichever node it is used on. */
    public static final long WHOLE_INDEX = 0L;
    /** The largest base or count a packed segment holds. */
    public static final long MAX_SEGMENT_FIELD = 0xFFFF_FFFFL;

    /** The segment {@code (base, count)} packed in one long (both 0..{@link #MAX_SEGMENT_FIELD}). */
    public static long segment(final long base, final long count)
    {
        if (base < 0 || base > MAX_SEGMENT_FIELD || count < 0 || count > MAX_SEGMENT_FIELD)
        {
            throw new IllegalArgumentException("segment (" + base + ", " + count + ") outside 0.." + MAX_SEGMENT_FIELD);
        }
        return base << 32 | count;
    }

    /** The first group of a packed segment. */
    public static long segmentBase(final long segment)
    {
        return segment >>> 32;
    }

    /** The group count of a packed segment (0 for {@link #WHOLE_INDEX}). */
    public static long segmentCount(final long segment)
    {
        return segment & MAX_SEGMENT_FIELD;
    }

    /** Whether {@code group} is one of the two candidate groups of the key in the whole index of {@code groupCount}. */
    public static boolean isCandidateGroup(final long keyHash, final long group, final long groupCount)
    {
        return isCandidateGroup(keyHash, group, 0, groupCount);
    }

    /** Whether {@code group} is one of the two candidate groups of the key in segment {@code (base, count)}. */
    public static boolean isCandidateGroup(final long keyHash, final long group, final long base, final long count)
    {
        return count >= 2 && (group1(keyHash, base, count) == group || group2(keyHash, base, count) == group);
    }

    /** The first candidate group in the whole index of {@code groupCount} groups: segment {@code (0, groupCount)}. */
    public static long group1(final long keyHash, final long groupCount)
    {
        return group1(keyHash, 0, groupCount);
    }

    /** The second candidate group in the whole index of {@code groupCount} groups: segment {@code (0, groupCount)}. */
    public static long group2(final long keyHash, final long groupCount)
    {
        return group2(keyHash, 0, groupCount);
    }

    /** The first candidate group in the segment of {@code count} (at least 2) groups from {@code base}. */
    public static long group1(final long keyHash, final long base, final long count)
    {
        return base + reduce(fmix64(keyHash ^ GROUP_SEED_1), count);
    }

    /**
     * The second candidate group in the segment of {@code count} (at least 2) groups from {@code base}; never equal
     * to {@link #group1(long, long, long)} for the same arguments.
     */
    public static long group2(final long keyHash, final long base, final long count)
    {
        final long group1 = reduce(fmix64(keyHash ^ GROUP_SEED_1), count);
        final long group2 = reduce(fmix64(keyHash ^ GROUP_SEED_2), count);
        if (group2 != group1)
        {
            return base + group2;
        }
        return group1 + 1 == count ? base : base + group1 + 1;
    }

    /**
     * {@code value} mapped into {@code [0, count)} by its high bits: the high 64 bits of the unsigned 128-bit
     * product (Lemire's multiply-shift), uniform for a uniform {@code value}, one multiply, no division.
     */
    public static long reduce(final long value, final long count)
    {
        return Math.unsignedMultiplyHigh(value, count);
    }

    /** The murmur3 64-bit finalizer: a bijection on 64-bit values with full avalanche. */
    public static long fmix64(final long value)
    {
        long k = value;
        k ^= k >>> 33;
        k *= 0xFF51AFD7ED558CCDL;
        k ^= k >>> 33;
        k *= 0xC4CEB9FE1A85EC53L;
        k ^= k >>> 33;
        return k;
    }
}
