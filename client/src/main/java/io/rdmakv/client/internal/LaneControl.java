package io.rdmakv.client.internal;

/** The control-plane calls a lane's data path needs: space grants and frees. */
interface LaneControl
{
    /** Asks the node for an extent of at least {@code minBytes}; on success it is the lane's current extent. */
    int allocate(long minBytes);

    /** Sends the lane's pending FREE batch (dropping entries too old to send safely). */
    int flushFrees();
}
