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
    long droppedFrees)
{
    public long operations()
    {
        return gets + puts + deletes + compareAndSets;
    }
}
