package io.rdmakv.server.control;

import io.rdmakv.common.protocol.StatsOkMessage;
import io.rdmakv.server.space.SegmentLoads;

/**
 * Where a STATS answer learns how far this node's part in partition moves has come ({@link
 * StatsOkMessage.MoveProgress}, shown by {@code kvctl cluster}): the node's move role, given the census's last count
 * of the segments this node watches. Called on the control agent's thread: it must neither block nor allocate more
 * than the answer.
 */
@FunctionalInterface
public interface MoveProgressSource
{
    /** A node that takes no part in moves. */
    MoveProgressSource NONE = loads -> StatsOkMessage.MoveProgress.NONE;

    StatsOkMessage.MoveProgress progress(SegmentLoads loads);
}
