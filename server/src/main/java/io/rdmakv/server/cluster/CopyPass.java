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
     * Runs one pass against the primary at {@code primary}, for the map of {@code epoch}.
     *
     * <p>The final pass (in the sealed epoch) is only sound once the primary has applied that epoch: until
     * then writers of the older one may still change its slots after the pass read them, and those writes
     * would be missing here once this node counts as a replica. So a pass should fail when the primary's
     * HELLO_OK carries a map older than {@code epoch} (it is retried, and the primary catches up).
     *
     * @return the slots of this node it changed (0: already equal to the primary)
     * @throws Exception when the pass could not finish (the primary unreachable, behind {@code epoch}, fenced,
     *     ...): it is retried
     */
    long pass(InetSocketAddress primary, long epoch) throws Exception;
}
