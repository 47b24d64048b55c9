package io.rdmakv.client.internal.op;

import io.rdmakv.client.internal.lane.Backoff;
import io.rdmakv.client.internal.lane.ClientCounter;
import io.rdmakv.client.internal.lane.LaneCounters;
import io.rdmakv.client.internal.lane.LaneRequests;
import io.rdmakv.peer.Status;
import io.rdmakv.common.layout.SlotWord;
/**
 * PUT (insert or replace). The new block is written out of place in the first doorbell that goes out.
 * <ol>
 * <li>Cached slot: CAS it from the cached word (fresh entry: WRITE + CAS, 1 round trip; older entry: WRITE +
 *     READ slot and block to confirm, then CAS: 2).</li>
 * <li>Otherwise WRITE + READ both groups, find the key's slot (READ its block), CAS it from the word found:
 *     3 round trips. A lost CAS or a block that changed under us retries with back-off.</li>
 * <li>A key that is absent is inserted under its group's insert lock ({@link InsertProtocol}).</li>
 * <li>A slot whose block is damaged (the corruption verdict) is repaired by the node ({@link DamageRepair});
 *     then the key is absent there and is inserted afresh.</li>
 * </ol>
 *
 * <p><b>Why a blind CAS only for a fresh entry.</b> A CAS that succeeds proves the slot held exactly the
 * cached word, and a word names a block (offset, length, fingerprint), not a key. While the word stays in
 * the slot its block stays this key's; once it left the slot its block was freed, and the node hands freed
 * space out again only a grace period later. So within half the grace period of seeing the word (the
 * other half covers the CAS's flight), a slot holding it again must hold it still: the CAS from a fresh
 * entry is the check (WRITE + CAS, one doorbell, ordered on the RC queue pair). An older entry could meet
 * that word again for another key (same fingerprint, same group, its block at the same place): a CAS would
 * swing that key's slot to ours, and undoing it would be seen by its readers. So an older entry is
 * confirmed first (WRITE + READ slot and block, then CAS: 2 round trips) — and every GET hit refreshes the
 * entry's time, so a read-modify-write of a key is 1 + 1.
 */
final class PutProtocol
{
    private final BlockSearch search;
    private final CachedSlot cached;
    private final NewBlock block;
    private final InsertProtocol insert;
    private final DamageRepair repair;
    private final LaneRequests requests;
    private final LaneCounters counters;

    PutProtocol(final BlockSearch search, final CachedSlot cached, final NewBlock block, final InsertProtocol insert,
        final DamageRepair repair, final LaneRequests requests, final LaneCounters counters)
    {
        this.repair = repair;
        this.search = search;
        this.cached = cached;
        this.block = block;
        this.insert = insert;
        this.requests = requests;
        this.counters = counters;
    }

    /** Installs the assembled block as the key's value. */
    int put()
    {
        int rc = block.place();
        if (rc != Status.OK)
        {
            return rc;
        }
        if (cached.lookup())
        {
            final long now = block.now();
            final long word = cached.word();
            final long slotAddress = cached.slotAddress();
            switch (cached.check(now, block))
            {
                case TRUSTED ->
                {
                    if ((rc = block.casSlot(slotAddress, word)) != Status.OK)
                    {
                        return rc;
                    }
                    if (requests.casResult() == word)
                    {
                        cached.hit();
                        return block.committed(slotAddress, word, now);
                    }
                    counters.increment(ClientCounter.CAS_RETRIES);
                    cached.missed();
                    cached.invalidate();
                }
                case FAILED ->
                {
                    return requests.failure();
                }
                case CHANGED -> cached.missed();
            }
        }
        for (int attempt = 0; attempt < Backoff.MAX_ATTEMPTS; attempt++)
        {
            final long start = block.now();
            if ((rc = block.readGroups()) != Status.OK)
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
                    if ((rc = block.casSlot(search.slotAddress(), search.word())) != Status.OK)
                    {
                        return rc;
                    }
                    if (requests.casResult() == search.word())
                    {
                        return block.committed(search.slotAddress(), search.word(), start);
                    }
                    counters.increment(ClientCounter.CAS_RETRIES);
                }
                case ABSENT ->
                {
                    switch (insert.insert(start))
                    {
                        case INSERTED ->
                        {
                            return Status.OK;
                        }
                        case FAILED ->
                        {
                            if (insert.failure() != Status.CORRUPTED)
                            {
                                return insert.failure();
                            }
                            if ((rc = repair.repair()) < 0)
                            {
                                return rc;
                            }
                        }
                        case PRESENT, RETRY ->
                        {
                        }
                    }
                }
                case CHANGED -> counters.increment(ClientCounter.VALIDATION_RETRIES);
                case CORRUPTED ->
                {
                    if ((rc = repair.repair()) < 0)
                    {
                        return rc;
                    }
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
}
