package io.rdmakv.client.internal.op;

import io.rdmakv.client.internal.chain.ChainCommit;
import io.rdmakv.client.internal.lane.Backoff;
import io.rdmakv.client.internal.lane.ClientCounter;
import io.rdmakv.client.internal.lane.KeyLocation;
import io.rdmakv.client.internal.lane.LaneCounters;
import io.rdmakv.client.internal.lane.LaneRequests;
import io.rdmakv.client.internal.lane.SpaceLease;
import io.rdmakv.peer.Status;
import io.rdmakv.common.layout.SlotWord;

/**
 * DELETE: find the key's slot as a PUT does (a cached slot, confirmed unless fresh; else READ both
 * groups and the matching block), CAS it to empty, and give the block back (FREE). 2 round trips with a
 * cached slot (1 when the entry is fresh), 3 without; a key not there is {@link Status#NOT_FOUND}. A slot of
 * the key whose block is damaged (the corruption verdict) is cleared by the node ({@link DamageRepair}): the
 * key existed, damaged, and is gone now, so the DELETE succeeds (once the groups show no other slot of it).
 */
final class DeleteProtocol
{
    private final KeyLocation key;
    private final LaneRequests requests;
    private final ChainCommit commit;
    private final BlockSearch search;
    private final CachedSlot cached;
    private final SpaceLease space;
    private final DamageRepair repair;
    private final LaneCounters counters;

    DeleteProtocol(final KeyLocation key, final LaneRequests requests, final ChainCommit commit,
        final BlockSearch search,
        final CachedSlot cached, final SpaceLease space, final DamageRepair repair, final LaneCounters counters)
    {
        this.repair = repair;
        this.key = key;
        this.requests = requests;
        this.commit = commit;
        this.search = search;
        this.cached = cached;
        this.space = space;
        this.counters = counters;
    }

    int delete()
    {
        int rc;
        if (cached.lookup())
        {
            final long word = cached.word();
            final long slotAddress = cached.slotAddress();
            switch (cached.check(cached.now(), null))
            {
                case TRUSTED ->
                {
                    if ((rc = commit.casSlot(slotAddress, word, SlotWord.EMPTY)) != Status.OK)
                    {
                        return rc;
                    }
                    cached.invalidate();
                    if (requests.casResult() == word)
                    {
                        cached.hit();
                        return release(word);
                    }
                    counters.increment(ClientCounter.CAS_RETRIES);
                    cached.missed();
                }
                case FAILED ->
                {
                    return requests.failure();
                }
                case CHANGED -> cached.missed();
            }
        }
        boolean repaired = false;
        for (int attempt = 0; attempt < Backoff.MAX_ATTEMPTS; attempt++)
        {
            if ((rc = requests.readGroups(key)) != Status.OK)
            {
                return rc;
            }
            switch (search.search())
            {
                case FOUND ->
                {
                    if (SlotWord.isMoving(search.word()))
                    {
                        return Status.FROZEN;
                    }
                    if ((rc = commit.casSlot(search.slotAddress(), search.word(), SlotWord.EMPTY)) != Status.OK)
                    {
                        return rc;
                    }
                    if (requests.casResult() == search.word())
                    {
                        return release(search.word());
                    }
                    counters.increment(ClientCounter.CAS_RETRIES);
                }
                case ABSENT ->
                {
                    return repaired ? Status.OK : Status.NOT_FOUND;
                }
                case CHANGED -> counters.increment(ClientCounter.VALIDATION_RETRIES);
                case CORRUPTED ->
                {
                    if ((rc = repair.repair()) < 0)
                    {
                        return rc;
                    }
                    repaired |= rc == DamageRepair.REPAIRED;
                }
                case FAILED ->
                {
                    return requests.failure();
                }
                case MOVED ->
                {
                    return Status.MOVED;
                }
            }
            Backoff.pause(attempt);
        }
        return Status.RETRIES_EXHAUSTED;
    }

    private int release(final long word)
    {
        return space.release(SlotWord.blockOffset(word), SlotWord.blockLength(word));
    }
}
