package io.rdmakv.server.cluster;

import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.MoveBatch;
import io.rdmakv.common.cluster.MovePhase;
import io.rdmakv.common.cluster.ReplicaGroup;
import io.rdmakv.common.protocol.StatsOkMessage;
import io.rdmakv.server.replication.MoveCopy;
import io.rdmakv.server.space.SegmentLoads;

import java.util.function.LongFunction;

/**
 * What a node's move role tells STATS of the batches this node takes part in as a primary ({@code kvctl cluster}):
 * the one it copies into its group (with the copy, whose counters are read live) and the one its group gives up
 * (with the partitions' segments here, whose keys the census counts). The role republishes it under its own lock
 * whenever its map or its copies change; the control thread reads it without blocking.
 */
final class MovesTaken
{
    private record Taking(long copyBatch, MoveCopy copy, long sourceBatch, long[] sourceSegments)
    {
        static final Taking NONE = new Taking(StatsOkMessage.MoveProgress.NONE_BATCH, null,
            StatsOkMessage.MoveProgress.NONE_BATCH, new long[0]);
    }

    private final int nodeId;
    private volatile Taking taking = Taking.NONE;

    MovesTaken(final int nodeId)
    {
        this.nodeId = nodeId;
    }

    /**
     * From {@code map} and the copies this node runs ({@code copyOf}: a batch id's copy, or null): the batch this
     * node copies as its target group's primary, and the batch before SWITCH whose source group it is the primary of.
     */
    void publish(final ClusterMap map, final LongFunction<MoveCopy> copyOf)
    {
        long copyBatch = StatsOkMessage.MoveProgress.NONE_BATCH;
        MoveCopy copy = null;
        long sourceBatch = StatsOkMessage.MoveProgress.NONE_BATCH;
        long[] sourceSegments = new long[0];
        if (map != null && !map.isSimple())
        {
            for (final MoveBatch b : map.moves().batches())
            {
                final MoveCopy c = copyOf.apply(b.id());
                if (c != null && isPrimaryOf(map, b.target()))
                {
                    copyBatch = b.id();
                    copy = c;
                }
                // from SWITCH on the partitions (and their segments in the map) are the target's
                if (isPrimaryOf(map, b.source()) && b.phase() != MovePhase.SWITCH)
                {
                    sourceBatch = b.id();
                    sourceSegments = new long[b.size()];
                    for (int i = 0; i < sourceSegments.length; i++)
                    {
                        sourceSegments[i] = map.segmentOf(b.partition(i));
                    }
                }
            }
        }
        taking = copyBatch == StatsOkMessage.MoveProgress.NONE_BATCH &&
            sourceBatch == StatsOkMessage.MoveProgress.NONE_BATCH ? Taking.NONE :
            new Taking(copyBatch, copy, sourceBatch, sourceSegments);
    }

    /** Nothing taken part in any more (the role is closing). */
    void clear()
    {
        taking = Taking.NONE;
    }

    /**
     * How far it has come, given the census's last count {@code loads}: the copy's keys and bytes so far, and the keys
     * the given-up batch's partitions hold here ({@link StatsOkMessage.MoveProgress#UNKNOWN} until the census counted
     * every one of their segments). Never blocks.
     */
    StatsOkMessage.MoveProgress progress(final SegmentLoads loads)
    {
        final Taking t = taking;
        if (t == Taking.NONE)
        {
            return StatsOkMessage.MoveProgress.NONE;
        }
        long sourceKeys = t.sourceSegments().length == 0 ? StatsOkMessage.MoveProgress.UNKNOWN : 0;
        for (final long segment : t.sourceSegments())
        {
            final long used = loads.usedIn(segment);
            if (used < 0)
            {
                sourceKeys = StatsOkMessage.MoveProgress.UNKNOWN;
                break;
            }
            sourceKeys += used;
        }
        final MoveCopy copy = t.copy();
        return new StatsOkMessage.MoveProgress(t.copyBatch(), copy == null ? 0 : copy.keysCopied(),
            copy == null ? 0 : copy.bytesCopied(), t.sourceBatch(), sourceKeys);
    }

    private boolean isPrimaryOf(final ClusterMap map, final int groupId)
    {
        final ReplicaGroup g = map.groupById(groupId);
        return g != null && !g.lost() && g.primary() == nodeId;
    }
}
