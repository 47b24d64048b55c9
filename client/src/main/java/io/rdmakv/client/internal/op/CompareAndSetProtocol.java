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
 *
 * <p>A version is the slot word XOR the placement's salt ({@link io.rdmakv.common.layout.VersionSalt}), so the word
 * CASed from is {@code version ^ salt}. A key whose partition moved keeps its version: the copy's block carries the
 * version the key had on the source group as its origin ({@link io.rdmakv.common.layout.KvBlock#version}). When no
 * candidate slot holds the word, the key's block is READ, and if its origin is the version the slot is CASed from
 * the word that names it: the value is still the one that version was read with (any write since replaced the block,
 * and with it the origin). That costs one READ more on a conflict, and on the first conditional write of a moved key
 * (docs/growth.md §15.1).
 */
final class CompareAndSetProtocol
{
    private final KeyLocation key;
    private final CachedSlot cached;
    private final NewBlock block;
    private final InsertProtocol insert;
    private final BlockSearch search;
    private final LaneRequests requests;
    private final LaneCounters counters;

    CompareAndSetProtocol(final KeyLocation key, final CachedSlot cached, final NewBlock block,
        final InsertProtocol insert, final BlockSearch search, final LaneRequests requests,
        final LaneCounters counters)
    {
        this.key = key;
        this.cached = cached;
        this.block = block;
        this.insert = insert;
        this.search = search;
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

    private int ifVersion(final long version)
    {
        // the slot word the version names in this placement; a word with MOVING (a client never CASes from a frozen
        // word) or another fingerprint than the key's is none: the version is from another placement, and only a
        // moved block's origin can still hold it (nor is such a word's "block" READ: its length is noise)
        final long expected = version ^ key.versionSalt();
        final boolean aWordHere = !SlotWord.isMoving(expected) && SlotWord.fingerprint(expected) == key.fingerprint();
        int rc;
        if (aWordHere && cached.lookup() && cached.word() == expected)
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
        // the block the word names comes with the groups: a word whose block was freed and its space reused can be
        // another key's now, in a slot of these groups when that key has the same fingerprint
        final boolean checkBlock = aWordHere && search.mayRead(expected);
        if ((rc = checkBlock ? block.readGroupsAndBlock(expected) : block.readGroups()) != Status.OK)
        {
            return rc;
        }
        if (key.moved())
        {
            return Status.MOVED;
        }
        if (aWordHere)
        {
            final int candidate = key.candidateHolding(expected);
            if (candidate != KeyLocation.NONE)
            {
                return checkBlock && search.holdsKey(expected) ? casFrom(key.slotAddress(candidate), expected, start) :
                    Status.CONFLICT;
            }
            if (key.candidateHolding(expected | SlotWord.MOVING) != KeyLocation.NONE)
            {
                return Status.FROZEN; // the version frozen for a move is not a conflict yet: it may be abandoned
            }
        }
        return fromOrigin(version, start);
    }

    /** No slot holds {@code version}: a conflict, unless the key's block was copied in a move under that version. */
    private int fromOrigin(final long version, final long start)
    {
        switch (search.search())
        {
            case FOUND ->
            {
                if (search.block().origin() != version)
                {
                    return Status.CONFLICT;
                }
                final long word = search.word();
                return SlotWord.isMoving(word) ? Status.FROZEN : casFrom(search.slotAddress(), word, start);
            }
            case MOVED ->
            {
                return Status.MOVED;
            }
            case FAILED ->
            {
                return requests.failure();
            }
            case CORRUPTED ->
            {
                return Status.CORRUPTED;
            }
            default ->
            {
                // absent, or its block replaced under the READ: a write came between, so the version is gone
                return Status.CONFLICT;
            }
        }
    }

    /** CASes the slot at {@code slotAddress} from {@code word} to the new block. */
    private int casFrom(final long slotAddress, final long word, final long start)
    {
        final int rc = block.casSlot(slotAddress, word);
        if (rc != Status.OK)
        {
            return rc;
        }
        final long found = requests.casResult();
        if (found == word)
        {
            return block.committed(slotAddress, word, start);
        }
        return found == (word | SlotWord.MOVING) ? Status.FROZEN : Status.CONFLICT;
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
