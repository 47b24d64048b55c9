package io.rdmakv.server.cluster;

import io.rdmakv.server.replication.MoveCopy;
import io.rdmakv.server.replication.PartitionMove;

/**
 * What a node's {@link MoveRole} needs of the node: copying a batch in (a target primary), freezing a segment along
 * its chain (a source primary), and cancelling freezes before an abort is applied. {@code
 * io.rdmakv.server.KvServer} implements it; tests fake it.
 */
public interface MoveNode
{
    /** Starts copying {@code move}'s partitions into this node's group (bulk passes begin at once). */
    MoveCopy startCopy(PartitionMove move);

    /**
     * Freezes {@code segment} on this node, its group's primary, and its backups, for a move decided under the map of
     * epoch {@code ticket}. Blocking.
     *
     * @throws io.rdmakv.server.replication.FreezeCancelledException when {@link #cancelFreezes} named a later epoch
     * @throws IllegalStateException                                 when the freeze failed (the message says why)
     */
    void freeze(long segment, long ticket);

    /** Cancels every freeze decided under a map older than {@code epoch} and waits until none can CAS again. */
    void cancelFreezes(long epoch);
}
