package io.rdmakv.common.layout;

import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.MoveBatch;
import io.rdmakv.common.cluster.ReplicaGroup;
import io.rdmakv.common.cluster.RetiredSegment;
import io.rdmakv.common.hash.KeyHash;

/**
 * Where a key's candidate groups lie in one node's index: per partition the segment its map gives it on this
 * node's replica group ({@link KeyHash#group1(long, long, long)}). A node without a map, or whose map has no
 * segment table (a single node, a static map, an unreplicated cluster), has one segment over its whole index,
 * {@code (0, groupCount)}: the same function, not a second path. A partition of another group has no segment
 * here ({@link #NONE}): no group of this index is a candidate of its keys.
 *
 * <p>The node replaces the table when it applies a map ({@link #use}); readers (the control thread, the copier, the
 * scrub) see one table or the other whole. {@link #segmentOf} is a volatile read, a partition and one array load:
 * no allocation.
 */
public final class IndexSegments
{
    /** A partition with no segment on this node. */
    public static final long NONE = 0L;

    private record Table(int partitions, long[] segments)
    {
    }

    private final long groupCount;
    private final Table whole;
    private volatile Table table;

    /** The whole-index table of an index of {@code groupCount} groups (at least 2). */
    public IndexSegments(final long groupCount)
    {
        this.groupCount = groupCount;
        this.whole = new Table(1, new long[] {KeyHash.segment(0, groupCount)});
        this.table = whole;
    }

    /** The whole-index table of a region laid out as {@code geometry}. */
    public static IndexSegments whole(final RegionGeometry geometry)
    {
        return new IndexSegments(geometry.groupCount());
    }

    /** The index's group count. */
    public long groupCount()
    {
        return groupCount;
    }

    /**
     * Takes the segments of {@code map} for the partitions of the group that has node {@code nodeId} as a member or
     * copying node; the whole index when the map has no segment table. The caller has checked that they fit
     * ({@link #misfit}).
     */
    public void use(final ClusterMap map, final int nodeId)
    {
        if (!map.hasSegments())
        {
            table = whole;
            return;
        }
        final ReplicaGroup group = map.groupOfNode(nodeId);
        final long[] segments = new long[map.partitionCount()];
        for (int p = 0; p < segments.length; p++)
        {
            segments[p] = group != null && map.groupFor(p).id() == group.id() ? map.segmentOf(p) : NONE;
        }
        table = new Table(map.partitionCount(), segments);
    }

    /**
     * Why {@code map}'s segments for the group of node {@code nodeId} do not fit an index of {@code groupCount}
     * groups, or null when they do (no table, no group, or every segment of at least 2 groups inside the index):
     * the segments of its partitions, the target segments of moves into the group ({@code X_B}, incoming) and the
     * group's retired segments, which its nodes keep until reclaimed.
     */
    public static String misfit(final ClusterMap map, final int nodeId, final long groupCount)
    {
        final ReplicaGroup group = map.groupOfNode(nodeId);
        if (!map.hasSegments() || group == null)
        {
            return null;
        }
        for (int p = 0; p < map.partitionCount(); p++)
        {
            if (map.groupFor(p).id() == group.id() && !fits(map.segmentOf(p), groupCount))
            {
                return misfit("partition " + p + "'s index segment", map.segmentOf(p), group, groupCount);
            }
        }
        for (final MoveBatch b : map.moves().batches())
        {
            for (int i = 0; i < b.size(); i++)
            {
                if (b.target() == group.id() && !fits(b.segment(i), groupCount))
                {
                    return misfit("move batch " + b.id() + "'s target segment of partition " + b.partition(i),
                        b.segment(i), group, groupCount);
                }
            }
        }
        for (final RetiredSegment r : map.moves().retired())
        {
            if (r.group() == group.id() && !fits(r.segment(), groupCount))
            {
                return misfit("partition " + r.partition() + "'s retired segment", r.segment(), group, groupCount);
            }
        }
        return null;
    }

    private static boolean fits(final long segment, final long groupCount)
    {
        final long count = KeyHash.segmentCount(segment);
        return count >= 2 && KeyHash.segmentBase(segment) + count <= groupCount;
    }

    private static String misfit(final String what, final long segment, final ReplicaGroup group, final long groupCount)
    {
        return what + " (base " + KeyHash.segmentBase(segment) + ", " + KeyHash.segmentCount(segment) +
            " groups) on group " + group.id() + " does not fit this node's index of " + groupCount + " groups";
    }

    /** The packed segment ({@link KeyHash#segment}) of the key with hash {@code keyHash} here, or {@link #NONE}. */
    public long segmentOf(final long keyHash)
    {
        final Table t = table;
        return t.segments[KeyHash.partition(keyHash, t.partitions)];
    }

    /** Whether {@code group} is one of the key's two candidate groups in this index. */
    public boolean isCandidateGroup(final long keyHash, final long group)
    {
        final long segment = segmentOf(keyHash);
        return KeyHash.isCandidateGroup(keyHash, group, KeyHash.segmentBase(segment), KeyHash.segmentCount(segment));
    }

    /** The key's first candidate group here, or -1 when its partition has no segment here. */
    public long group1(final long keyHash)
    {
        final long segment = segmentOf(keyHash);
        final long count = KeyHash.segmentCount(segment);
        return count < 2 ? -1 : KeyHash.group1(keyHash, KeyHash.segmentBase(segment), count);
    }

    /** The key's second candidate group here, or -1 when its partition has no segment here. */
    public long group2(final long keyHash)
    {
        final long segment = segmentOf(keyHash);
        final long count = KeyHash.segmentCount(segment);
        return count < 2 ? -1 : KeyHash.group2(keyHash, KeyHash.segmentBase(segment), count);
    }
}
