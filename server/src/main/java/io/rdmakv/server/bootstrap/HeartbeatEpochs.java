package io.rdmakv.server.bootstrap;

/**
 * The epochs one session's HEARTBEATs carry (protocol 8): what the client reports, and what the node answers with.
 * Used by the session's lease reader thread.
 */
public interface HeartbeatEpochs
{
    /**
     * The client reported {@code epoch}: the oldest map epoch under which an operation of it may still be running
     * on this node (any value 0..2^63-1 a well-formed HEARTBEAT carries: recorded for its own session only).
     */
    void reported(long epoch);

    /** The epoch the node has applied (its map area holds that map), for the answer. */
    long applied();
}
