package io.rdmakv.server.cluster;

import java.net.InetSocketAddress;

/**
 * One diff pass of a copying node against its group's primary (the node's {@code RegionCopier}): blocking,
 * on the copy worker's thread. A seam, so that {@link NodeRole} is tested without a copier.
 */
@FunctionalInterface
public interface CopyPass
{
    /**
     * Runs one pass against the primary at {@code primary}.
     *
     * @return the slots of this node it changed (0: already equal to the primary)
     * @throws Exception when the pass could not finish (the primary unreachable, fenced, ...): it is retried
     */
    long pass(InetSocketAddress primary) throws Exception;
}
