package io.rdmakv.client.internal.op;

import io.rdmakv.client.internal.lane.Backoff;
import io.rdmakv.client.internal.lane.ClientCounter;
import io.rdmakv.client.internal.lane.KeyLocation;
import io.rdmakv.client.internal.lane.LaneCounters;
import io.rdmakv.client.internal.lane.LaneRequests;
import io.rdmakv.peer.Status;
import io.rdmakv.common.layout.SlotWord;
import io.rdmakv.peer.ReadLease;
import org.agrona.concurrent.NanoClock;

/**
 * GET: with a cached slot, READ the slot and its block in one doorbell and accept the block if the slot
 * still holds the cached word and the block is the key's (1 round trip). Otherwise READ both candidate
 * groups (one doorbell), then the block of each fingerprint match until one holds the key (2 round
 * trips). A result is trusted only if its reads took less than half the grace period (a block cannot
 * have been reused in that time); a slower or torn read is retried. In a replicated cluster a result, found
 * or absent, is returned only if the session's read lease held when its reads completed ({@link ReadLease}:
 * the same clock read as the grace check); else {@link Status#LEASE_EXPIRED}.
 */
final class GetProtocol
{
    private final KeyLocation key;
    private final LaneRequests requests;
    private final BlockSearch search;
    private final CachedSlot cached;
    private final LaneCounters counters;
    private final LaneResult result;
    private final NanoClock clock;
    private ReadLease lease = ReadLease.UNENFORCED;

    GetProtocol(final KeyLocation key, final LaneRequests requests, final BlockSearch search, final CachedSlot cached,
        final LaneCounters counters, final LaneResult result, final NanoClock clock)
    {
        this.key = key;
        this.requests = requests;
        this.search = search;
        this.cached = cached;
        this.counters = counters;
        this.result = result;
        this.clock = clock;
    }

    /** Reads under {@code lease} from now on (set once, when the session opens). */
    void lease(final ReadLease lease)
    {
        this.lease = lease;
    }

    int get()
    {
        if (cached.lookup())
        {
            final long start = clock.nanoTime();
            final long word = cached.word();
            final long slotAddress = cached.slotAddress();
            if (requests.readSlotAndBlock(slotAddress, word) != Status.OK)
            {
                return requests.failure();
            }
            final long done = clock.nanoTime();
            if (cached.holds(word) && cached.inTime(start, done))
            {
                if (!lease.heldAt(done))
                {
                    return leaseExpired();
                }
                cached.hit();
                cached.remember(slotAddress, word, start);
                return result.readVersion(word, key.versionSalt());
            }
            cached.missed();
            cached.invalidate();
        }
        for (int attempt = 0; attempt < Backoff.MAX_ATTEMPTS; attempt++)
        {
            final long start = clock.nanoTime();
            if (requests.readGroups(key) != Status.OK)
            {
                return requests.failure();
            }
            switch (search.search())
            {
                case FOUND ->
                {
                    final long done = clock.nanoTime();
                    if (cached.inTime(start, done))
                    {
                        if (!lease.heldAt(done))
                        {
                            return leaseExpired();
                        }
                        // a frozen word is never cached (the cached path must miss once the freeze reaches it), and the
                        // version is the word without the bit: the same version before the freeze and during it
                        cached.remember(search.slotAddress(), search.word(), start);
                        return result.readVersion(search.word(), key.versionSalt());
                    }
                }
                case ABSENT ->
                {
                    return lease.heldAt(clock.nanoTime()) ? Status.NOT_FOUND : leaseExpired();
                }
                case CORRUPTED ->
                {
                    return Status.CORRUPTED;
                }
                case FAILED ->
                {
                    return requests.failure();
                }
                case MOVED ->
                {
                    return Status.MOVED;
                }
                case CHANGED ->
                {
                }
            }
            counters.increment(ClientCounter.VALIDATION_RETRIES);
            Backoff.pause(attempt);
        }
        return Status.RETRIES_EXHAUSTED;
    }

    private int leaseExpired()
    {
        counters.increment(ClientCounter.READ_LEASE_EXPIRED);
        return Status.LEASE_EXPIRED;
    }
}
