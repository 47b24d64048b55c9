package io.rdmakv.server.cluster;

import io.rdmakv.common.cluster.ClusterMap;

/**
 * What ZooKeeper membership tells the node: each new cluster map, and whether the ZooKeeper connection is up.
 * Called on one thread, maps in increasing epoch order.
 */
public interface MembershipListener
{
    void onMap(ClusterMap map);

    void onZooKeeper(boolean connected);
}
