package io.rdmakv.server.cluster;

import io.rdmakv.server.cluster.map.MapRefusal;

/** What the metrics say about the node's place in the cluster (read at scrape time, from any thread). */
public interface ClusterView
{
    /** The epoch of the map applied (0: none). */
    long epoch();

    ReplicaRole role();

    /** Whether the ZooKeeper connection is up (false without ZooKeeper). */
    boolean zooKeeperConnected();

    /**
     * Whether the node can confirm it is current and serves ({@link NodeCurrency}); true without ZooKeeper
     * (nothing can depose such a node).
     */
    default boolean current()
    {
        return true;
    }

    /** The map applied (null: none). */
    default io.rdmakv.common.cluster.ClusterMap map()
    {
        return null;
    }

    /** Diff passes this node ran as a copying node. */
    long copyPasses();

    /** Slots those passes changed. */
    long copySlots();

    /** Failovers seen in the maps applied: a group whose primary changed to another live member. */
    long failovers();

    /**
     * Partitions of move batches in the applied map whose source ({@code asSource}) or target group is this node's
     * (docs/growth.md §13).
     */
    default int partitionsMoving(final boolean asSource)
    {
        return 0;
    }

    /**
     * How long the oldest move batch of the applied map has been in its phase, as this node saw it (seconds since it
     * first applied a map with the batch in that phase; 0: no batch): a stuck move shows here.
     */
    default double movePhaseAgeSeconds()
    {
        return 0;
    }

    /** Batches this node copied in as a target primary that opened here ({@code finished}) or were abandoned. */
    default long moves(final boolean finished)
    {
        return 0;
    }

    /** Keys (blocks) and bytes this node's partition copies wrote into its group, as a target primary. */
    default long moveKeys()
    {
        return 0;
    }

    default long moveBytes()
    {
        return 0;
    }

    /** Segments this node froze as a source primary, and the time those freezes took (nanoseconds). */
    default long moveFreezes()
    {
        return 0;
    }

    default long moveFreezeNanos()
    {
        return 0;
    }

    /** Maps read from ZooKeeper that this node refused to apply, for breaking {@code reason}'s rule. */
    default long mapsRefused(final MapRefusal reason)
    {
        return 0;
    }

    /** A node outside ZooKeeper: its static map (or none), no copying, no failovers. */
    static ClusterView fixed(final long epoch, final ReplicaRole role)
    {
        return new ClusterView()
        {
            @Override
            public long epoch()
            {
                return epoch;
            }

            @Override
            public ReplicaRole role()
            {
                return role;
            }

            @Override
            public boolean zooKeeperConnected()
            {
                return false;
            }

            @Override
            public long copyPasses()
            {
                return 0;
            }

            @Override
            public long copySlots()
            {
                return 0;
            }

            @Override
            public long failovers()
            {
                return 0;
            }
        };
    }
}
