package io.rdmakv.server.control;

import io.rdmakv.common.protocol.ControlMessage;
import io.rdmakv.common.protocol.RebalanceMessage;

import java.util.concurrent.CompletableFuture;

/**
 * Where a node takes the operator's REBALANCE ({@code kvctl rebalance}): a node of a ZooKeeper cluster writes the
 * request to {@code rebalance/request}, or judges it (dry run), off the control agent's thread. A node without one
 * (a static cluster) refuses REBALANCE with ERROR.
 */
public interface RebalanceDesk
{
    /**
     * Takes {@code request} on a thread of the desk's own; completes with REBALANCE_OK, or ERROR saying why not (a
     * request that does not parse, a write ZooKeeper refused). Returns at once.
     */
    CompletableFuture<ControlMessage> ask(RebalanceMessage request);
}
