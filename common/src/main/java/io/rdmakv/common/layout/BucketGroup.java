package io.rdmakv.common.layout;

import io.rdmakv.common.LittleEndian;

import java.lang.foreign.MemorySegment;

/**
 * Flyweight over one bucket group (128 bytes, see {@link
 * BucketDescriptor}): usually the client's local copy of a group it just read, or, on the server, a group
 * of the index itself. Reuse one instance per thread: {@link #wrap} allocates nothing.
 */
public final class BucketGroup
{
    /** Returned by the search methods when no slot matches. */
    public static final int NONE = -1;

    private MemorySegment segment;
    private long offset;

    public BucketGroup wrap(final MemorySegment segment, final long offset)
    {
        if (offset < 0 || offset > segment.byteSize() - BucketDescriptor.GROUP_LENGTH)
        {
            throw new IndexOutOfBoundsException(
                "a bucket group of " + BucketDescriptor.GROUP_LENGTH + " bytes at " + offset +
                " does not fit in a segment of " + segment.byteSize() + " bytes");
        }
        this.segment = segment;
        this.offset = offset;
        return this;
    }

    public MemorySegment segment()
    {
        return segment;
    }

    public long offset()
    {
        return offset;
    }

    /** Slot {@code slot} (0..13). */
    public long slot(final int slot)
    {
        return segment.get(LittleEndian.U64, offset + BucketDescriptor.slotOffsetInGroup(slot));
    }

    /** Sets slot {@code slot} with a plain store (local copies and tests; remote slots change only by CAS). */
    public BucketGroup slot(final int slot, final long word)
    {
        segment.set(LittleEndian.U64, offset + BucketDescriptor.slotOffsetInGroup(slot), word);
        return this;
    }

    /** The header word of bucket {@code bucket} (0..1); zero in this layout version. */
    public long bucketHeader(final int bucket)
    {
        return segment.get(
            LittleEndian.U64,
            offset + BucketDescriptor.bucketOffsetInGroup(bucket) + BucketDescriptor.BUCKET_HEADER_OFFSET);
    }

    public BucketGroup bucketHeader(final int bucket, final long word)
    {
        segment.set(
            LittleEndian.U64,
            offset + BucketDescriptor.bucketOffsetInGroup(bucket) + BucketDescriptor.BUCKET_HEADER_OFFSET, word);
        return this;
    }

    /**
     * The first used slot at or after {@code from} whose fingerprint is {@code fingerprint}, or {@link
     * #NONE}. Call again with the result + 1 to walk every candidate.
     */
    public int indexOfFingerprint(final int fingerprint, final int from)
    {
        for (int i = Math.max(from, 0); i < BucketDescriptor.SLOTS_PER_GROUP; i++)
        {
            final long word = slot(i);
            if (SlotWord.namesBlock(word) && SlotWord.fingerprint(word) == fingerprint)
            {
                return i;
            }
        }
        return NONE;
    }

    /** The first empty slot, or {@link #NONE} when the group is full. */
    public int indexOfEmpty()
    {
        for (int i = 0; i < BucketDescriptor.SLOTS_PER_GROUP; i++)
        {
            if (slot(i) == SlotWord.EMPTY)
            {
                return i;
            }
        }
        return NONE;
    }

    /** Whether the group's first header is a {@link MovedHeader MOVED} mark. */
    public boolean moved()
    {
        return MovedHeader.isMoved(bucketHeader(0));
    }

    /** Whether some slot is frozen for a move ({@link SlotWord#MOVING}). */
    public boolean anyMoving()
    {
        for (int i = 0; i < BucketDescriptor.SLOTS_PER_GROUP; i++)
        {
            if (SlotWord.isMoving(slot(i)))
            {
                return true;
            }
        }
        return false;
    }

    /** The number of used slots (a frozen empty slot counts: no insert may take it). */
    public int usedSlots()
    {
        int used = 0;
        for (int i = 0; i < BucketDescriptor.SLOTS_PER_GROUP; i++)
        {
            if (slot(i) != SlotWord.EMPTY)
            {
                used++;
            }
        }
        return used;
    }
}
