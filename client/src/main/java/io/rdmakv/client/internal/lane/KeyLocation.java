package io.rdmakv.client.internal.lane;

import io.rdmakv.common.hash.KeyHash;
import io.rdmakv.common.layout.BucketDescriptor;
import io.rdmakv.common.layout.BucketGroup;
import io.rdmakv.common.layout.SlotWord;
import io.rdmakv.common.layout.VersionSalt;

import java.lang.foreign.MemorySegment;

/**
 * Where the staged key can live on the node: its fingerprint, its two candidate bucket groups (RACE
 * style, both read with one doorbell into {@link LaneBuffers#GROUPS}), the remote address of each of
 * its 28 candidate slots (0..13 in the first group, 14..27 in the second), and the insert lock that
 * guards its inserts (the first group's). A flyweight: one per lane, re-aimed per operation.
 */
public final class KeyLocation
{
    /** Candidate slots of a key: every slot of both groups, first group first (the canonical order). */
    public static final int CANDIDATES = BucketDescriptor.SLOTS_PER_GROUP * BucketDescriptor.CANDIDATE_GROUPS;
    /** No candidate. */
    public static final int NONE = -1;

    private final RemoteIndex remote;
    private final BucketGroup group1 = new BucketGroup();
    private final BucketGroup group2 = new BucketGroup();
    private long hash;
    private int fingerprint;
    private int keyLength;
    private long group1Number;
    private long group2Number;
    private long group1Address;
    private long group2Address;
    private long placedNanos = Long.MIN_VALUE;
    private long versionSalt;

    public KeyLocation(final RemoteIndex remote, final MemorySegment mem)
    {
        this(remote, mem, LaneBuffers.GROUPS);
    }

    /** A location whose groups are read into {@code mem} at {@code groupsOffset} (a batch's key has its own). */
    public KeyLocation(final RemoteIndex remote, final MemorySegment mem, final int groupsOffset)
    {
        this.remote = remote;
        group1.wrap(mem, groupsOffset);
        group2.wrap(mem, groupsOffset + BucketDescriptor.GROUP_LENGTH);
    }

    /** Aims at the key of {@code keyLength} bytes whose {@link KeyHash#hash} is {@code hash}, in the whole index. */
    public void aim(final long hash, final int keyLength)
    {
        aim(hash, keyLength, KeyHash.WHOLE_INDEX);
    }

    /**
     * Aims at the key of {@code keyLength} bytes whose {@link KeyHash#hash} is {@code hash}, its candidate groups in
     * the packed {@code segment} of its partition ({@link KeyHash#segment}; {@link KeyHash#WHOLE_INDEX}: the node's
     * whole index).
     *
     * @throws IllegalStateException when the segment does not fit the node's index (a map this node refused to
     *     apply: nodes check that before they serve a map), so that no READ or CAS leaves the index
     */
    public void aim(final long hash, final int keyLength, final long segment)
    {
        aim(hash, keyLength, segment, Long.MIN_VALUE);
    }

    /**
     * {@link #aim(long, int, long)} for a key whose partition this client placed where it is now at {@code
     * placedNanos} ({@code Router#placedNanos}; {@link Long#MIN_VALUE}: always there): a cache entry seen before
     * then may name a slot of the partition's old placement and is not {@link #trustsSeenAt trusted} blind.
     */
    public void aim(final long hash, final int keyLength, final long segment, final long placedNanos)
    {
        aim(hash, keyLength, segment, placedNanos, VersionSalt.NONE);
    }

    /**
     * {@link #aim(long, int, long, long)} for a key whose versions are salted {@code versionSalt} where it is placed
     * ({@code ClusterMap#versionSalt}): a version is the slot word XOR the salt, or a moved block's origin.
     */
    public void aim(final long hash, final int keyLength, final long segment, final long placedNanos,
        final long versionSalt)
    {
        final long groups = remote.groupCount();
        final long base = KeyHash.segmentBase(segment);
        final long count = segment == KeyHash.WHOLE_INDEX ? groups : KeyHash.segmentCount(segment);
        if (count < 2 || base + count > groups)
        {
            throw new IllegalStateException("the key's index segment (base " + base + ", " + count +
                " groups) does not fit the node's index of " + groups + " groups");
        }
        this.hash = hash;
        this.keyLength = keyLength;
        this.placedNanos = placedNanos;
        this.versionSalt = versionSalt;
        fingerprint = KeyHash.fingerprint(hash);
        group1Number = KeyHash.group1(hash, base, count);
        group2Number = KeyHash.group2(hash, base, count);
        group1Address = remote.groupAddress(group1Number);
        group2Address = remote.groupAddress(group2Number);
    }

    /**
     * Whether a cache entry of this key seen at {@code seenNanos} was seen under the key's current placement (after
     * the client adopted it): only such an entry may be CASed from without reading the slot first.
     */
    public boolean trustsSeenAt(final long seenNanos)
    {
        return seenNanos > placedNanos;
    }

    public long hash()
    {
        return hash;
    }

    /** What the key's versions are salted with where it is placed ({@link VersionSalt}; 0: none). */
    public long versionSalt()
    {
        return versionSalt;
    }

    public int fingerprint()
    {
        return fingerprint;
    }

    public int keyLength()
    {
        return keyLength;
    }

    /**
     * Whether {@code slotAddress} is one of this key's candidate slots on this lane's node: a cached address
     * may have been seen on another node (the key's primary moved with a new cluster map, or a thread still on
     * the old map cached it), and a READ or CAS outside this node's region would break the queue pair.
     */
    public boolean isCandidate(final long slotAddress)
    {
        return isSlotOf(slotAddress - group1Address) || isSlotOf(slotAddress - group2Address);
    }

    private static boolean isSlotOf(final long offsetInGroup)
    {
        return offsetInGroup >= 0 && offsetInGroup < BucketDescriptor.GROUP_LENGTH &&
            (offsetInGroup & (BucketDescriptor.SLOT_LENGTH - 1)) == 0 &&
            offsetInGroup % BucketDescriptor.BUCKET_LENGTH != 0;
    }

    public long group1Address()
    {
        return group1Address;
    }

    public long group2Address()
    {
        return group2Address;
    }

    /** The bucket group of candidate {@code candidate} (its number in the index). */
    public long group(final int candidate)
    {
        return candidate < BucketDescriptor.SLOTS_PER_GROUP ? group1Number : group2Number;
    }

    long lockAddress()
    {
        return group1Address + BucketDescriptor.INSERT_LOCK_OFFSET;
    }

    /** True when {@code word} could be this key's: a block (frozen or not) with this key's fingerprint. */
    public boolean mayHold(final long word)
    {
        return SlotWord.namesBlock(word) && SlotWord.fingerprint(word) == fingerprint;
    }

    /** Whether either candidate group, as the last READ saw it, carries the MOVED mark: the partition left. */
    public boolean moved()
    {
        return group1.moved() || group2.moved();
    }

    /** Whether some candidate slot, as the last READ saw it, is frozen for a move: writes must wait. */
    public boolean frozen()
    {
        return group1.anyMoving() || group2.anyMoving();
    }

    /** The slot word of candidate {@code candidate}, as the last group READ saw it. */
    public long word(final int candidate)
    {
        return candidate < BucketDescriptor.SLOTS_PER_GROUP ? group1.slot(candidate) :
            group2.slot(candidate - BucketDescriptor.SLOTS_PER_GROUP);
    }

    public long slotAddress(final int candidate)
    {
        return candidate < BucketDescriptor.SLOTS_PER_GROUP ?
            group1Address + BucketDescriptor.slotOffsetInGroup(candidate) :
            group2Address + BucketDescriptor.slotOffsetInGroup(candidate - BucketDescriptor.SLOTS_PER_GROUP);
    }

    /**
     * The first candidate that may hold this key and names a block inside the data area, or {@link #NONE};
     * {@link #matchesAfter} says whether there are more.
     */
    public int firstMatch()
    {
        return matchesAfter(-1);
    }

    /** The next candidate after {@code candidate} that may hold this key (in the data area), or {@link #NONE}. */
    public int matchesAfter(final int candidate)
    {
        for (int i = candidate + 1; i < CANDIDATES; i++)
        {
            final long w = word(i);
            if (mayHold(w) && remote.isPlausible(w))
            {
                return i;
            }
        }
        return NONE;
    }

    /** True when some candidate may hold this key but names a block outside the data area (damage). */
    public boolean hasImplausibleMatch()
    {
        for (int i = 0; i < CANDIDATES; i++)
        {
            if (mayHold(word(i)) && !remote.isPlausible(word(i)))
            {
                return true;
            }
        }
        return false;
    }

    /** The candidate that holds exactly {@code word}, or {@link #NONE}. */
    public int candidateHolding(final long word)
    {
        for (int i = 0; i < CANDIDATES; i++)
        {
            if (word(i) == word)
            {
                return i;
            }
        }
        return NONE;
    }

    /** Where an insert goes: an empty slot of the emptier group (the first on a tie), or {@link #NONE}. */
    public int emptyCandidate()
    {
        final int used1 = group1.usedSlots();
        final int used2 = group2.usedSlots();
        if (used1 <= used2 && used1 < BucketDescriptor.SLOTS_PER_GROUP)
        {
            return group1.indexOfEmpty();
        }
        if (used2 < BucketDescriptor.SLOTS_PER_GROUP)
        {
            return BucketDescriptor.SLOTS_PER_GROUP + group2.indexOfEmpty();
        }
        return NONE;
    }
}
