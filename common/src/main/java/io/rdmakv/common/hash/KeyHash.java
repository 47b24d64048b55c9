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
 *   <li><b>group 1 and group 2</b>: the two candidate bucket groups (RACE hashing). Each is the murmur3
 *       64-bit finalizer ({@code fmix64}) of the key hash XOR its own seed ({@link #GROUP_SEED_1}, {@link
 *       #GROUP_SEED_2}), reduced to the group count (a power of two) by masking. The finalizer's avalanche
 *       makes the two independent of each other and of the partition bits. When both land on the same
 *       group, group 2 becomes its neighbour ({@code group1 ^ 1}), so a key always has two distinct groups.</li>
 * </ul>
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

    /** Whether {@code group} is one of the two candidate groups of the key with hash {@code keyHash}. */
    public static boolean isCandidateGroup(final long keyHash, final long group, final long groupCount)
    {
        return group1(keyHash, groupCount) == group || group2(keyHash, groupCount) == group;
    }

    /** The first candidate group in an index of {@code groupCount} groups (a power of two, at least 2). */
    public static long group1(final long keyHash, final long groupCount)
    {
        return fmix64(keyHash ^ GROUP_SEED_1) & (groupCount - 1);
    }

    /** The second candidate group; never equal to {@link #group1} for the same arguments. */
    public static long group2(final long keyHash, final long groupCount)
    {
        final long mask = groupCount - 1;
        final long group1 = fmix64(keyHash ^ GROUP_SEED_1) & mask;
        final long group2 = fmix64(keyHash ^ GROUP_SEED_2) & mask;
        return group2 != group1 ? group2 : group1 ^ 1;
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
