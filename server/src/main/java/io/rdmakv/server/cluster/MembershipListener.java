package io.rdmakv.server.cluster;

import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.server.cluster.map.MapCheck;
import io.rdmakv.server.cluster.map.MapRefusal;

/**
 * What a node hears from {@link ZkMembership}. Both methods are called on one thread, in order: maps in
 * increasing epoch order (a map of an epoch not above the last one delivered is never delivered), connection
 * changes where they happen between maps. A slow listener delays the next call, never reorders it.
 */
public interface MembershipListener
{
    /** A map of a higher epoch than the last one delivered. */
    void onMap(ClusterMap map);

    /**
     * The ZooKeeper connection went down ({@code false}: suspended or lost) or came back ({@code true}). While
     * it is down the node keeps serving with its current map; membership changes wait.
     */
    void onZooKeeper(boolean connected);

    /**
     * The map in ZooKeeper breaks a rule no coordinator's map breaks ({@link MapCheck}): it is not applied, the
     * map applied before stays. Called in order with the other two.
     */
    default void onMapRefused(final MapRefusal reason, final String detail)
    {
    }
}
