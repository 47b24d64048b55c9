package io.rdmakv.server.space;

import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.ReplicaGroup;

import java.util.Arrays;

/**
 * The segments whose load a node counts in its census (docs/growth.md §11): on its group's primary, the segments of
 * every partition the group owns in the map; nothing on a backup, a copying node or a spare (their indexes hold the
 * primary's keys, which the primary counts), nor in a map without a segment table.
 *
 * @param epoch the map's epoch
 * @param partitions the partitions, ascending
 * @param segments each one's packed segment
 */
public record WatchedSegments(long epoch, int[] partitions, long[] segments)
{
    /** What node {@code nodeId} counts under {@code map} (none: no partitions). */
    public static WatchedSegments of(final ClusterMap map, final int nodeId)
    {
        if (map == null || map.isSimple() || !map.hasSegments())
        {
            return new WatchedSegments(0, new int[0], new long[0]);
        }
        final ReplicaGroup group = map.groupOfNode(nodeId);
        if (group == null || group.lost() || group.primary() != nodeId)
        {
            return new WatchedSegments(map.epoch(), new int[0], new long[0]);
        }
        int n = 0;
        final int[] partitions = new int[map.partitionCount()];
        final long[] segments = new long[map.partitionCount()];
        for (int p = 0; p < map.partitionCount(); p++)
        {
            if (map.groupFor(p).id() == group.id())
            {
                partitions[n] = p;
                segments[n++] = map.segmentOf(p);
            }
        }
        return new WatchedSegments(map.epoch(), Arrays.copyOf(partitions, n), Arrays.copyOf(segments, n));
    }
}
