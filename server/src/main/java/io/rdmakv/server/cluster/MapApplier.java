package io.rdmakv.server.cluster;

import io.rdmakv.common.cluster.ClusterMap;

/**
 * The node as {@link NodeRole} drives it: applying a map fences the sessions of older epochs, rebuilds the
 * allocator when the node just became its group's primary, and only then serves the map in HELLO_OK (or
 * refuses HELLOs, while the map does not list the node). {@code io.rdmakv.server.KvServer} implements it;
 * tests may fake it.
 */
public interface MapApplier
{
    /** This node's id. */
    int nodeId();

    /**
     * Applies {@code map}: fences every session opened under an older epoch (one step for the lot), with
     * {@code rebuildAllocator} rebuilds the allocator from one index scan, then serves {@code map} (or none,
     * when it does not list this node). Blocks until done.
     *
     * @return the sessions fenced
     */
    int apply(ClusterMap map, boolean rebuildAllocator) throws InterruptedException;
}
