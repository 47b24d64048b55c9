package io.rdmakv.testsupport.linearizability;

import java.util.Arrays;

/**
 * The set of operations linearized so far, as a bitset over operations numbered in invocation
 * order. Because the search linearizes roughly in that order, the set is a run of full words, a
 * short mixed stretch, then zeros; a memo {@link Key} holds only the mixed stretch, so an entry
 * costs the width of the concurrency window rather than the length of the history.
 */
final class LinearizedSet
{
    private final long[] words;
    /** Words [0, full) are all ones. */
    private int full;
    /** Words above high are all zero; -1 when the set is empty. */
    private int high = -1;
    private final Key probe = new Key();

    /** An empty set over {@code size} operations. */
    LinearizedSet(final int size)
    {
        words = new long[(size + 63) >>> 6];
    }

    void set(final int index)
    {
        final int w = index >>> 6;
        words[w] |= 1L << index;
        if (w > high)
        {
            high = w;
        }
        while (full < words.length && words[full] == -1L)
        {
            full++;
        }
    }

    void clear(final int index)
    {
        final int w = index >>> 6;
        words[w] &= ~(1L << index);
        if (w < full)
        {
            full = w;
        }
        while (high >= 0 && words[high] == 0)
        {
            high--;
        }
    }

    boolean contains(final int index)
    {
        return (words[index >>> 6] & 1L << index) != 0;
    }

    boolean isEmpty()
    {
        return high < 0;
    }

    /** A copy of the words of the set up to its last nonzero one. */
    long[] words()
    {
        return Arrays.copyOf(words, high + 1);
    }

    /** Whether the set given by {@code other} (as from {@link #words}) is a subset of this one. */
    boolean includes(final long[] other)
    {
        if (other.length > high + 1)
        {
            return false;
        }
        for (int i = 0; i < other.length; i++)
        {
            if ((other[i] & ~words[i]) != 0)
            {
                return false;
            }
        }
        return true;
    }

    /** Whether this set is a subset of the one given by {@code other} (as from {@link #words}). */
    boolean within(final long[] other)
    {
        if (high + 1 > other.length)
        {
            return false;
        }
        for (int i = 0; i <= high; i++)
        {
            if ((words[i] & ~other[i]) != 0)
            {
                return false;
            }
        }
        return true;
    }

    /**
     * A memo key for this set together with the model {@code state}: a view of the set as it is
     * now, reused by the next call. Store {@link Key#copy()} instead.
     */
    Key probe(final int state)
    {
        return probe.view(state, full, words, full, Math.max(full, high + 1));
    }

    /** A configuration of the search: which operations are linearized, and the register's state after them. */
    static final class Key
    {
        private int state;
        private int full;
        private long[] words;
        private int from;
        private int to;
        private int hash;

        private Key view(final int state, final int full, final long[] words, final int from, final int to)
        {
            this.state = state;
            this.full = full;
            this.words = words;
            this.from = from;
            this.to = to;
            int h = state * 31 + full;
            for (int i = from; i < to; i++)
            {
                h = h * 0x9E3779B1 + Long.hashCode(words[i] * 0xBF58476D1CE4E5B9L);
            }
            this.hash = h;
            return this;
        }

        /** A key of its own, unaffected by later changes to the set. */
        Key copy()
        {
            return new Key().view(state, full, Arrays.copyOfRange(words, from, to), 0, to - from);
        }

        @Override
        public boolean equals(final Object other)
        {
            return other instanceof Key k && k.hash == hash && k.state == state && k.full == full
                && Arrays.equals(k.words, k.from, k.to, words, from, to);
        }

        @Override
        public int hashCode()
        {
            return hash;
        }
    }
}
