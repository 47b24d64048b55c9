package io.rdmakv.server.cluster.map;

import io.rdmakv.common.hash.KeyHash;

import java.util.Map;
import java.util.TreeMap;

/**
 * The free ranges of one group's index arena, for placing a move's target segment (docs/growth.md §3): every
 * segment the group owns, receives (incoming) or has retired is taken; {@link #allocate} places a new one first fit,
 * lowest base first. Deterministic; a few thousand segments per arena, so a sorted map is enough. Not thread-safe.
 */
final class ArenaSpace
{
    private final long groups;
    /** Taken ranges: base -> end (exclusive); ranges may touch or (in a map that breaks the rules) overlap. */
    private final TreeMap<Long, Long> taken = new TreeMap<>();

    /** The arena of an index of {@code groups} bucket groups, all free. */
    ArenaSpace(final long groups)
    {
        this.groups = groups;
    }

    /** Marks the packed {@code segment} taken. */
    void take(final long segment)
    {
        final long base = KeyHash.segmentBase(segment);
        final long end = base + KeyHash.segmentCount(segment);
        taken.merge(base, end, Math::max);
    }

    /**
     * Takes the lowest free range of {@code count} groups (at least 2) inside the arena.
     *
     * @return the packed segment, or -1 when no free range is that long.
     */
    long allocate(final long count)
    {
        if (count < 2)
        {
            throw new IllegalArgumentException("a segment needs at least 2 groups, not " + count);
        }
        long cursor = 0;
        for (final Map.Entry<Long, Long> range : taken.entrySet())
        {
            if (range.getKey() - cursor >= count)
            {
                break;
            }
            cursor = Math.max(cursor, range.getValue());
        }
        if (groups - cursor < count || cursor + count > KeyHash.MAX_SEGMENT_FIELD + 1)
        {
            return -1;
        }
        final long segment = KeyHash.segment(cursor, count);
        take(segment);
        return segment;
    }

    /** The free groups in all, in ranges of any length (to prefer the emptiest arena). */
    long freeGroups()
    {
        long cursor = 0;
        long free = 0;
        for (final Map.Entry<Long, Long> range : taken.entrySet())
        {
            free += Math.max(0, Math.min(groups, range.getKey()) - cursor);
            cursor = Math.max(cursor, range.getValue());
        }
        return free + Math.max(0, groups - cursor);
    }

    /** The longest free range, in groups (for a refusal's message). */
    long largestFree()
    {
        long cursor = 0;
        long largest = 0;
        for (final Map.Entry<Long, Long> range : taken.entrySet())
        {
            largest = Math.max(largest, range.getKey() - cursor);
            cursor = Math.max(cursor, range.getValue());
        }
        return Math.max(largest, groups - cursor);
    }
}
