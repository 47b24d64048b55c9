package io.rdmakv.server.cluster;

import io.rdmakv.server.control.RebalanceDesk;
import io.rdmakv.server.replication.RegionCopier;
import io.rdmakv.server.space.SegmentLoads;

import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The node as {@link ZooKeeperNode} joins it to a cluster: it applies maps ({@link MapApplier}), serves only
 * while it is current, fences its sessions when it cannot vouch for what it serves, and copies a primary's
 * region, and moves partitions ({@link MoveNode}). {@code io.rdmakv.server.KvServer} implements it (so that this package does not depend on the one that
 * assembles the node).
 */
public interface MemberNode extends MapApplier, MoveNode
{
    /** The bootstrap listener's port (the member znode's, unless the node advertises another). */
    int port();

    /** Serves only while {@code current} says so, refusing HELLO with {@code why} otherwise. */
    void followCurrency(BooleanSupplier current, Supplier<String> why);

    /** Whether the node serves now: not shutting down, and current. */
    boolean serving();

    /**
     * Fences every session now, because the node cannot vouch for what it serves: {@code why}.
     *
     * @return the sessions fenced, or -1 when that did not finish in time
     */
    int selfFence(String why);

    /**
     * Answers REBALANCE through {@code desk} from now on ({@code kvctl rebalance}); without one (a static cluster) the
     * node refuses it.
     */
    void useRebalance(RebalanceDesk desk);

    /** The copier that makes this node's region equal to a primary's (re-replication). */
    RegionCopier regionCopier();

    /**
     * The loads of the segments of the partitions this node's group owns, from the last census pass, on the group's
     * primary ({@link SegmentLoads#NONE} elsewhere): what {@code load/<id>} reports ({@link LoadReporter}).
     */
    SegmentLoads segmentLoads();
}
