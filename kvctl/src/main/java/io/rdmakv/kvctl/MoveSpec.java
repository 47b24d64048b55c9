package io.rdmakv.kvctl;

import java.util.Arrays;

/**
 * One {@code --move P[,P...]:GROUP} of {@code kvctl rebalance}: partitions to move to a replica group, into segments
 * of {@code groups} bucket groups (0: the size each has now). Only the form is checked here; whether the partitions
 * and the group exist, and whether the group has room, is the node's and the coordinator's to judge.
 */
record MoveSpec(int[] partitions, int target, long groups)
{
    MoveSpec
    {
        partitions = partitions.clone();
        if (groups < 0 || groups == 1)
        {
            throw new IllegalArgumentException("--groups " + groups + ": a segment size is 0 (the size it has) or at " +
                "least 2 bucket groups");
        }
    }

    /**
     * Parses {@code P[,P...]:GROUP}: partition ids (each once) and a group id, all non-negative integers.
     *
     * @throws IllegalArgumentException saying what is wrong with {@code text}
     */
    static MoveSpec parse(final String text, final long groups)
    {
        final int colon = text.lastIndexOf(':');
        if (colon <= 0 || colon == text.length() - 1 || text.indexOf(':') != colon)
        {
            throw new IllegalArgumentException("--move '" + text + "': expected P[,P...]:GROUP, e.g. 3,5:1");
        }
        final String[] ids = text.substring(0, colon).split(",", -1);
        final int[] partitions = new int[ids.length];
        for (int i = 0; i < ids.length; i++)
        {
            partitions[i] = number(text, ids[i].trim(), "partition");
        }
        final int[] sorted = partitions.clone();
        Arrays.sort(sorted);
        for (int i = 1; i < sorted.length; i++)
        {
            if (sorted[i] == sorted[i - 1])
            {
                throw new IllegalArgumentException("--move '" + text + "': partition " + sorted[i] + " named twice");
            }
        }
        return new MoveSpec(partitions, number(text, text.substring(colon + 1).trim(), "group"), groups);
    }

    private static int number(final String text, final String field, final String what)
    {
        try
        {
            final int value = Integer.parseInt(field);
            if (value >= 0)
            {
                return value;
            }
        }
        catch (final NumberFormatException e)
        {
            // below
        }
        throw new IllegalArgumentException("--move '" + text + "': " + what + " '" + field + "' is not a " +
            "non-negative integer");
    }

    @Override
    public int[] partitions()
    {
        return partitions.clone();
    }

    @Override
    public boolean equals(final Object o)
    {
        return o instanceof MoveSpec m && Arrays.equals(partitions, m.partitions) && target == m.target &&
            groups == m.groups;
    }

    @Override
    public int hashCode()
    {
        return Arrays.hashCode(partitions) * 31 + target;
    }

    @Override
    public String toString()
    {
        return Arrays.toString(partitions) + " -> group " + target + (groups == 0 ? "" : " (" + groups + " groups)");
    }
}
