package io.rdmakv.server.cluster;

import io.rdmakv.server.cluster.map.MoveState;

import java.util.Map;

/**
 * How a node tells the coordinator how far it is with the move batches of a map ({@code moves/<id>},
 * {@link ZkMoveReporter}): a seam, so that what a node does at each phase is tested without ZooKeeper.
 */
@FunctionalInterface
public interface MoveReporter
{
    /**
     * Reports the node's whole move state in the map of {@code epoch}: for each batch it has something to say of,
     * its state (a report counts only for the map of its epoch: write it again after each map applied).
     *
     * @throws Exception when the report could not be written (retried while the map stays the same)
     */
    void report(long epoch, Map<Long, MoveState> batches) throws Exception;
}
