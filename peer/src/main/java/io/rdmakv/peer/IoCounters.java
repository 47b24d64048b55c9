package io.rdmakv.peer;

/**
 * What a session's I/O counts, for its owner's statistics (the client's lane counters; a node's peer sessions
 * count nothing). Called on the session's owning thread only, on the data path: implementations must not
 * allocate or block.
 */
public interface IoCounters
{
    /** Counts nothing. */
    IoCounters NONE = new IoCounters()
    {
        @Override
        public void roundTrips(final long delta)
        {
        }

        @Override
        public void controlMessage()
        {
        }
    };

    /** {@code delta} round trips (one per doorbell waited for; -1 for one charged to another operation). */
    void roundTrips(long delta);

    /** One control message sent. */
    void controlMessage();
}
