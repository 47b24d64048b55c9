package io.rdmakv.verbs;

import io.rdmakv.verbs.abi.IbvWc;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A preallocated off-heap array of {@code struct ibv_wc} that {@link CompletionQueue#poll} fills.
 * Read the entries through the reused {@link WorkCompletion} flyweights.
 */
public final class WorkCompletions implements AutoCloseable
{
    private final Arena arena;
    private final MemorySegment entries;
    private final WorkCompletion[] flyweights;

    private WorkCompletions(final int capacity)
    {
        if (capacity <= 0)
        {
            throw new IllegalArgumentException("capacity must be positive: " + capacity);
        }
        this.arena = Arena.ofShared();
        this.entries = arena.allocate((long)IbvWc.SIZE * capacity, 64);
        this.flyweights = new WorkCompletion[capacity];
        for (int i = 0; i < capacity; i++)
        {
            flyweights[i] = new WorkCompletion(entries.asSlice((long)i * IbvWc.SIZE, IbvWc.SIZE));
        }
    }

    public static WorkCompletions allocate(final int capacity)
    {
        return new WorkCompletions(capacity);
    }

    public WorkCompletion at(final int index)
    {
        return flyweights[index];
    }

    public int capacity()
    {
        return flyweights.length;
    }

    /** The whole {@code ibv_wc[capacity]} array. */
    public MemorySegment segment()
    {
        return entries;
    }

    @Override
    public void close()
    {
        if (arena.scope().isAlive())
        {
            arena.close();
        }
    }
}
