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
     * Freezes {@code segments} (a batch's, in turn, over one set of backup sessions) on this node, its group's primary,
     * and its backups, for a move decided under the map of epoch {@code ticket}. Blocking.
     *
     * @throws io.rdmakv.server.replication.FreezeCancelledException when {@link #cancelFreezes} named a later epoch
     * @throws IllegalStateException                                 when the freeze failed (the message says why)
     */
    void freeze(long[] segments, long ticket);

    /** Cancels every freeze decided under a map older than {@code epoch} and waits until none can CAS again. */
    void cancelFreezes(long epoch);

    /**
     * Client sessions whose client may still run an operation under a map older than {@code epoch} (what its
     * heartbeats last reported, or the epoch it was opened under).
     */
    int sessionsBelow(long epoch);

    /** Fences those sessions, as an expired lease does ({@code why} in the log); returns how many. */
    int fenceSessionsBelow(long epoch, String why);

    /**
     * What reclaiming a retired segment did: the blocks its words named, and on a primary how many were freed into
     * the grace period, deferred (in a live writer's latest extent: freed when it moves on) or refused.
     */
    record Reclaimed(int named, int freed, int deferred, int refused)
    {
    }

    /**
     * Reclaims a retired segment on this node (docs/growth.md §10): zeroes it, headers included, and on its group's
     * primary ({@code primary}) frees the blocks its words named, each judged as a FREE.
     */
    Reclaimed reclaim(long segment, boolean primary);

    /** The grace period (nanoseconds): how long a READ may be in flight after what it read was replaced. */
    long graceNanos();

    /** Answers STATS with {@code source}'s move progress from now on ({@code kvctl cluster}); a node without STATS: no-op. */
    default void reportMovesWith(final io.rdmakv.server.control.MoveProgressSource source)
    {
    }
}
