package io.rdmakv.common.cluster;

import java.util.Arrays;

/**
 * One replica set: the nodes that hold the same partitions in regions of one layout, so a slot word and
 * a block offset mean the same on each of them.
 *
 * <ul>
 *   <li>{@code members}: the replicas in sync, primary first, then the backups in chain order. A write
 *       CASes the backups in this order ({@code members[1]} first: it decides races), then the primary,
 *       and is acknowledged only then. Empty: every replica is gone and the group's partitions are lost
 *       until an operator acts.</li>
 *   <li>{@code copying}: nodes catching up with the primary; writers WRITE each new block to them too
 *       (no CAS), and they do not count as replicas until they are moved to {@code members}.</li>
 *   <li>{@code sealed}: writes to the group's partitions wait (clients retry within their timeout) while a
 *       copying node makes its last pass; reads go on.</li>
 * </ul>
 *
 * Immutable: the arrays are copied in and out.
 */
public record ReplicaGroup(int id, int[] members, int[] copying, boolean sealed)
{
    /** The most replicas a group may have (members plus copying). */
    public static final int MAX_REPLICAS = 5;

    public ReplicaGroup
    {
        if (id < 0)
        {
            throw new InvalidClusterMapException("replica group id " + id + " is negative");
        }
        members = members == null ? new int[0] : members.clone();
        copying = copying == null ? new int[0] : copying.clone();
        if (members.length + copying.length > MAX_REPLICAS)
        {
            throw new InvalidClusterMapException(
                "replica group " + id + " has " + (members.length + copying.length) + " nodes, at most " + MAX_REPLICAS);
        }
        final int[] all = Arrays.copyOf(members, members.length + copying.length);
        System.arraycopy(copying, 0, all, members.length, copying.length);
        Arrays.sort(all);
        for (int i = 1; i < all.length; i++)
        {
            if (all[i] == all[i - 1])
            {
                throw new InvalidClusterMapException("replica group " + id + " lists node " + all[i] + " twice");
            }
        }
    }

    /** A group of one node: how a map without replication sees each node. */
    public static ReplicaGroup single(final int nodeId)
    {
        return new ReplicaGroup(nodeId, new int[] {nodeId}, new int[0], false);
    }

    @Override
    public int[] members()
    {
        return members.clone();
    }

    @Override
    public int[] copying()
    {
        return copying.clone();
    }

    /** The primary's node id, or -1 when the group has lost every replica. */
    public int primary()
    {
        return members.length == 0 ? -1 : members[0];
    }

    /** Replicas in sync (primary included). */
    public int memberCount()
    {
        return members.length;
    }

    /** The id of member {@code i} (0 is the primary, 1.. the backups in chain order). */
    public int member(final int i)
    {
        return members[i];
    }

    public int copyingCount()
    {
        return copying.length;
    }

    public int copying(final int i)
    {
        return copying[i];
    }

    public boolean lost()
    {
        return members.length == 0;
    }

    /** Whether {@code nodeId} is a member or copying. */
    public boolean contains(final int nodeId)
    {
        return isMember(nodeId) || isCopying(nodeId);
    }

    public boolean isMember(final int nodeId)
    {
        for (final int m : members)
        {
            if (m == nodeId)
            {
                return true;
            }
        }
        return false;
    }

    public boolean isCopying(final int nodeId)
    {
        for (final int c : copying)
        {
            if (c == nodeId)
            {
                return true;
            }
        }
        return false;
    }

    @Override
    public boolean equals(final Object o)
    {
        return o instanceof ReplicaGroup g && id == g.id && sealed == g.sealed && Arrays.equals(members, g.members) &&
            Arrays.equals(copying, g.copying);
    }

    @Override
    public int hashCode()
    {
        return (id * 31 + Arrays.hashCode(members)) * 31 + Arrays.hashCode(copying) + (sealed ? 1 : 0);
    }

    @Override
    public String toString()
    {
        return "group{" + id + " members=" + Arrays.toString(members) +
            (copying.length == 0 ? "" : " copying=" + Arrays.toString(copying)) + (sealed ? " sealed" : "") + "}";
    }
}
