package io.rdmakv.server.cluster;

import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.ReplicaGroup;

/**
 * What a node is in a cluster map, as {@code rdmakv_replica_role} exports it: {@link #NONE} (-1, in no map),
 * {@link #SPARE} (0), {@link #COPYING} (1), {@link #BACKUP} (2), {@link #PRIMARY} (3).
 */
public enum ReplicaRole
{
    /** Listed by no applied map: HELLOs are refused, the node is not ready. */
    NONE(-1),
    /** Listed, in no replica group: holds nothing until a group needs it. */
    SPARE(0),
    /** Catching up with its group's primary; not a replica yet. */
    COPYING(1),
    /** An in-sync replica after the primary, in chain order. */
    BACKUP(2),
    /** Its group's first member: allocates, holds the insert locks, serves reads. */
    PRIMARY(3);

    private final int value;

    ReplicaRole(final int value)
    {
        this.value = value;
    }

    /** The value of {@code rdmakv_replica_role}. */
    public int value()
    {
        return value;
    }

    /** What node {@code nodeId} is in {@code map} (null: {@link #NONE}). */
    public static ReplicaRole of(final ClusterMap map, final int nodeId)
    {
        if (map == null || map.node(nodeId) == null)
        {
            return NONE;
        }
        final ReplicaGroup group = map.groupOfNode(nodeId);
        if (group == null)
        {
            return SPARE;
        }
        if (group.isCopying(nodeId))
        {
            return COPYING;
        }
        return group.primary() == nodeId ? PRIMARY : BACKUP;
    }
}
