package io.rdmakv.server.control;

import io.rdmakv.common.protocol.FreeMessage;
import io.rdmakv.server.space.FreeJob;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * FREEs of blocks inside another session's latest extent, held until that session is granted its next
 * extent (then nothing of the old one is in flight: they are checked and freed as the owner's own) or
 * departs (then the reclaim scan frees what no slot references). At most one entry per 64-byte unit of
 * an owner's latest extent, so at most a chunk's worth of units per session. Agent thread only.
 */
final class DeferredFrees implements FreeJob.Deferral
{
    private final Map<Long, TreeMap<Long, Integer>> byOwner = new HashMap<>();

    @Override
    public void defer(final long owner, final long offset, final int length)
    {
        byOwner.computeIfAbsent(owner, o -> new TreeMap<>()).put(offset, length);
    }

    /** The owner moved on to a new extent: its held entries as FREE messages (request id 0), or none. */
    List<FreeMessage> release(final long owner)
    {
        final TreeMap<Long, Integer> held = byOwner.remove(owner);
        final List<FreeMessage> messages = new ArrayList<>();
        if (held == null)
        {
            return messages;
        }
        final long[] offsets = new long[held.size()];
        final int[] lengths = new int[held.size()];
        int n = 0;
        for (final Map.Entry<Long, Integer> e : held.entrySet())
        {
            offsets[n] = e.getKey();
            lengths[n++] = e.getValue();
        }
        for (int from = 0; from < n; from += FreeMessage.MAX_ENTRIES)
        {
            final int to = Math.min(n, from + FreeMessage.MAX_ENTRIES);
            messages.add(new FreeMessage(0, java.util.Arrays.copyOfRange(offsets, from, to),
                java.util.Arrays.copyOfRange(lengths, from, to)));
        }
        return messages;
    }

    /** {@code owner} was granted a new extent: its held entries go to the end of its inbox, checked as its own. */
    void replay(final ServerSession owner, final Function<FreeMessage, FreeJob> job, final long censusPasses)
    {
        for (final FreeMessage moved : release(owner.id()))
        {
            owner.inbox.add(new Pending(-1, moved, job.apply(moved), censusPasses));
        }
    }

    /** The owner departed: the reclaim scan takes care of its space. */
    void forget(final long owner)
    {
        byOwner.remove(owner);
    }

    /** Forgets every held entry (the allocator was rebuilt from the index: nothing it named is granted any more). */
    void clear()
    {
        byOwner.clear();
    }
}
