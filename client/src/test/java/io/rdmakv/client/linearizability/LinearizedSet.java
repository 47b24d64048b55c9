package io.rdmakv.client.linearizability;

import java.util.Arrays;

/**
 * The set of operations linearized so far, as a bitset over operations numbered in invocation
 * order. Because the search linearizes roughly in that order, the set is a run of full words, a
 * short mixed stretch, then zeros; {@link #key} stores only the mixed stretch, so a memo entry
 * costs the width of the concurrency window rather than the length of the history.
 */
final class LinearizedSet
{
    private final long[] words;
    /** Words [0, full) are all ones. */
    private int full;
    /** Words above high are all zero; -1 when the set is empty. */
    private int high = -1;

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

    /** The words of the set up to its last nonzero one. */
    long[] words()
    {
        return Arrays.copyOf(words, high + 1);
    }

    /** A memo key for this set together with the model {@code state}. */
    Key key(final int state)
    {
        final long[] tail = high < full ? new long[0] : Arrays.copyOfRange(words, full, high + 1);
        return new Key(state, full, tail);
    }

    /** A configuration of the search: which operations are linearized, and the register's state after them. */
    static final class Key
    {
        private final int state;
        private final int full;
        private final long[] tail;
        private final int hash;

        private Key(final int state, final int full, final long[] tail)
        {
            this.state = state;
            this.full = full;
            this.tail = tail;
            this.hash = (Arrays.hashCode(tail) * 31 + full) * 31 + state;
        }

        @Override
        public boolean equals(final Object other)
        {
            return other instanceof Key k && k.hash == hash && k.state == state && k.full == full
                && Arrays.equals(k.tail, tail);
        }

        @Override
        public int hashCode()
        {
            return hash;
        }
    }
}
