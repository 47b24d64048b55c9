package io.rdmakv.common.layout;

import io.rdmakv.common.hash.KeyHash;

/**
 * What a key's version is made of besides its slot word (docs/growth.md §8 and §15.1). A version a client reads is
 * the slot word XORed with the salt of the placement it was read in: its partition, the replica group holding it and
 * the partition's index segment there. Two groups can hold the same slot word for one key (the same fingerprint and
 * length, and each node's allocator handing out the same offset, which identical data areas make likely), so a
 * version read on one group could otherwise match an unrelated word on another after a move; with the salt, a
 * version from one placement matches a word of another only by a 64-bit accident.
 *
 * <p>A map without a segment table (a single node, a layout-1 map) never moves a partition: its salt is 0 and a
 * version is exactly the slot word. A key's block copied in a move carries the version it had on the source, salt
 * included, as its {@code origin} ({@link KvBlock#version}). A partition that returns to the same segment of the same
 * group has the salt it had there before: a version held across both moves could then match by the same accident
 * the salt closes elsewhere.
 *
 * <p>Allocation-free and branch-light: computed on every operation of a replicated map.
 */
public final class VersionSalt
{
    /** No salt: a map without segments. */
    public static final long NONE = 0L;

    private static final long SEED = 0x5645_5253_494F_4E53L;

    private VersionSalt()
    {
    }

    /** The salt of partition {@code partition} held by group {@code groupId} in packed segment {@code segment}. */
    public static long of(final int partition, final int groupId, final long segment)
    {
        if (segment == KeyHash.WHOLE_INDEX)
        {
            return NONE;
        }
        return KeyHash.fmix64(KeyHash.fmix64(SEED ^ segment) ^ ((long)groupId << 32 | (partition & 0xFFFF_FFFFL)));
    }
}
