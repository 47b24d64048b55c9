package io.rdmakv.client.internal;

/**
 * Plain per-lane counters: written only by the lane's owning thread, read (racily, as gauges) by
 * whoever collects statistics. No atomics, no allocation on the data path.
 */
public final class LaneCounters
{
    long gets;
    long puts;
    long deletes;
    long compareAndSets;
    long notFound;
    long conflicts;
    long errors;
    long roundTrips;
    long casRetries;
    long validationRetries;
    long lockRetries;
    long controlMessages;
    long cacheHits;
    long droppedFrees;

    public long gets()
    {
        return gets;
    }

    public long puts()
    {
        return puts;
    }

    public long deletes()
    {
        return deletes;
    }

    public long compareAndSets()
    {
        return compareAndSets;
    }

    public long notFound()
    {
        return notFound;
    }

    public long conflicts()
    {
        return conflicts;
    }

    public long errors()
    {
        return errors;
    }

    /** Doorbells waited on: each is one network round trip. */
    public long roundTrips()
    {
        return roundTrips;
    }

    public long casRetries()
    {
        return casRetries;
    }

    public long validationRetries()
    {
        return validationRetries;
    }

    public long lockRetries()
    {
        return lockRetries;
    }

    public long controlMessages()
    {
        return controlMessages;
    }

    public long cacheHits()
    {
        return cacheHits;
    }

    public long droppedFrees()
    {
        return droppedFrees;
    }

    /** Adds this lane's counts into {@code total}. */
    public void addTo(final LaneCounters total)
    {
        total.gets += gets;
        total.puts += puts;
        total.deletes += deletes;
        total.compareAndSets += compareAndSets;
        total.notFound += notFound;
        total.conflicts += conflicts;
        total.errors += errors;
        total.roundTrips += roundTrips;
        total.casRetries += casRetries;
        total.validationRetries += validationRetries;
        total.lockRetries += lockRetries;
        total.controlMessages += controlMessages;
        total.cacheHits += cacheHits;
        total.droppedFrees += droppedFrees;
    }
}
