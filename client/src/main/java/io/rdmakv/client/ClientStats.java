package io.rdmakv.client;

/**
 * A snapshot of a client's counters, summed over all its lanes (open and closed).
 *
 * @param roundTrips        doorbells waited on, each one network round trip
 * @param casRetries        slot compare-and-swaps that lost a race and were retried
 * @param validationRetries reads retried because a block failed its checksum or key check, or was stale
 * @param lockRetries       inserts that found their group's insert lock taken
 * @param controlMessages   control messages sent (ALLOC, FREE, STATS, BYE)
 * @param cacheHits         operations served through a cached slot address
 * @param droppedFrees      always 0 (FREEs are never dropped); kept for readers of older statistics
 * @param cacheMisses       operations that found no cached slot address, or a wrong one, and searched the
 *                          key's bucket groups
 * @param getRoundTrips     round trips of GETs ({@code roundTrips} split by operation; control messages an
 *                          operation sent, ALLOC and FREE, count as its own)
 * @param putRoundTrips     round trips of PUTs
 * @param deleteRoundTrips  round trips of DELETEs
 * @param compareAndSetRoundTrips round trips of compare-and-sets ({@code putIfVersion})
 * @param fullWaits         inserts that found their key's partition full while it moved into a bigger index
 *                          segment, and waited for it to open there (docs/growth.md §11) rather than fail
 */
public record ClientStats(
    long gets,
    long puts,
    long deletes,
    long compareAndSets,
    long notFound,
    long conflicts,
    long errors,
    long roundTrips,
    long casRetries,
    long validationRetries,
    long lockRetries,
    long controlMessages,
    long cacheHits,
    long droppedFrees,
    long cacheMisses,
    long getRoundTrips,
    long putRoundTrips,
    long deleteRoundTrips,
    long compareAndSetRoundTrips,
    long fullWaits)
{
    /** Cache hits over cache lookups (hits and misses), or 0 before any. */
    public double cacheHitRatio()
    {
        final long lookups = cacheHits + cacheMisses;
        return lookups == 0 ? 0.0 : cacheHits / (double)lookups;
    }

    public long operations()
    {
        return gets + puts + deletes + compareAndSets;
    }
}
