package io.rdmakv.client.internal.op;

import io.rdmakv.client.internal.lane.Backoff;
import io.rdmakv.client.internal.lane.KeyLocation;
import io.rdmakv.client.internal.lane.LaneCounters;
import io.rdmakv.client.internal.lane.LaneRequests;
import io.rdmakv.peer.Status;
import io.rdmakv.common.layout.SlotWord;
/**
 * Compare-and-set on a version (the slot word a reader saw): the new block is installed only if the
 * key's slot still holds exactly {@code expected}; the CAS on that word is the check. {@code expected}
 * {@link io.rdmakv.client.KvClient#ABSENT} inserts only if the key does not exist (under the insert lock,
 * {@link InsertProtocol}). A lost race is a {@link Status#CONFLICT}, never a silent success.
 */
final class CompareAndSetProtocol
{
    private final KeyLocation key;
    private final CachedSlot cached;
    private final NewBlock block;
    private final InsertProtocol insert;
    private final LaneRequests requests;
    private final LaneCounters counters;

    CompareAndSetProtocol(final KeyLocation key, final CachedSlot cached, final NewBlock block,
        final InsertProtocol insert, final LaneRequests requests, final LaneCounters counters)
    {
        this.key = key;
        this.cached = cached;
        this.block = block;
        this.insert = insert;
        this.requests = requests;
        this.counters = counters;
    }

    int compareAndSet(final long expected)
    {
        final int rc = block.place();
        if (rc != Status.OK)
        {
            return rc;
        }
        return expected == 0L ? insertIfAbsent() : ifVersion(expected);
    }

    private int ifVersion(final long expected)
    {
        if (SlotWord.isMoving(expected))
        {
            return Status.CONFLICT; // no version has the bit: a client never CASes from a frozen word
        }
        int rc;
        if (cached.lookup() && cached.word() == expected)
        {
            final long now = block.now();
            final long slotAddress = cached.slotAddress();
            switch (cached.check(now, block))
            {
                case TRUSTED ->
                {
                    if ((rc = block.casSlot(slotAddress, expected)) != Status.OK)
                    {
                        return rc;
                    }
                    if (requests.casResult() == expected)
                    {
                        cached.hit();
                        return block.committed(slotAddress, expected, now);
                    }
                    cached.invalidate();
                    return Status.CONFLICT;
                }
                case FAILED ->
                {
                    return requests.failure();
                }
                case CHANGED ->
                {
                    // the slot no longer held the version, or the READ was too slow to trust what it saw:
                    // only the groups can tell which (a slow READ of an unchanged slot is no conflict)
                    cached.missed();
                }
            }
        }
        final long start = block.now();
        if ((rc = block.readGroups()) != Status.OK)
        {
            return rc;
        }
        if (key.moved())
        {
            return Status.MOVED;
        }
        final int candidate = key.candidateHolding(expected);
        if (candidate == KeyLocation.NONE)
        {
            // the version frozen for a move is not a conflict yet: the move may still be abandoned
            return key.candidateHolding(expected | SlotWord.MOVING) == KeyLocation.NONE ? Status.CONFLICT : Status.FROZEN;
        }
        final long slotAddress = key.slotAddress(candidate);
        if ((rc = block.casSlot(slotAddress, expected)) != Status.OK)
        {
            return rc;
        }
        final long found = requests.casResult();
        if (found == expected)
        {
            return block.committed(slotAddress, expected, start);
        }
        return found == (expected | SlotWord.MOVING) ? Status.FROZEN : Status.CONFLICT;
    }

    private int insertIfAbsent()
    {
        for (int attempt = 0; attempt < Backoff.MAX_ATTEMPTS; attempt++)
        {
            final long start = block.now();
            final int rc = block.readGroups();
            if (rc != Status.OK)
            {
                return rc;
            }
            switch (insert.insert(start))
            {
                case INSERTED ->
                {
                    return Status.OK;
                }
                case PRESENT ->
                {
                    return Status.CONFLICT;
                }
                case FAILED ->
                {
                    return insert.failure();
                }
                case RETRY ->
                {
                }
            }
            Backoff.pause(attempt);
        }
        return Status.RETRIES_EXHAUSTED;
    }
}
