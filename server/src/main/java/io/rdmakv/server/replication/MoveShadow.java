package io.rdmakv.server.replication;

import java.util.Arrays;

/**
 * The partition copier's memory of what it copied (docs/growth.md §7, "the shadow table"): per slot of the source
 * segments, the source word it last copied (without {@code MOVING}) and the slot of the target segment it used,
 * 12 bytes a slot in two primitive arrays, no object per key. A pass compares the source's words with these, not
 * with the target's words. Slots are numbered over the batch: the first partition's source slots, then the next's.
 */
final class MoveShadow
{
    /** No target slot. */
    static final int NONE = -1;

    private final long[] sourceWord;
    private final int[] targetSlot;

    MoveShadow(final long slots)
    {
        if (slots > Integer.MAX_VALUE)
        {
            throw new IllegalArgumentException("a batch of " + slots + " source slots is too large to copy");
        }
        sourceWord = new long[(int)slots];
        targetSlot = new int[(int)slots];
        Arrays.fill(targetSlot, NONE);
    }

    /** The source word slot {@code i} last copied (0: none). */
    long sourceWord(final int i)
    {
        return sourceWord[i];
    }

    /** The target slot (index inside its target segment) slot {@code i}'s key was copied to, or {@link #NONE}. */
    int targetSlot(final int i)
    {
        return targetSlot[i];
    }

    void copied(final int i, final long word, final int target)
    {
        sourceWord[i] = word;
        targetSlot[i] = target;
    }

    void forget(final int i)
    {
        sourceWord[i] = 0;
        targetSlot[i] = NONE;
    }

    int length()
    {
        return sourceWord.length;
    }
}
