package io.rdmakv.server.cluster;

import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.MoveBatch;
import io.rdmakv.common.cluster.ReplicaGroup;
import io.rdmakv.common.cluster.RetiredSegment;

import java.util.ArrayList;
import java.util.List;

/**
 * What one replica does to its own index when it applies a map, for the partition moves that map and the one
 * applied before it show (docs/growth.md §7, "Marking, opening", and §9), before it serves the map:
 * <ul>
 *   <li><b>mark</b> every retired segment of its group MOVED, with the switch epoch: at SWITCH on the source's
 *       replicas, and on any node that later serves the group (a promoted backup marks before it serves);</li>
 *   <li><b>open</b> (clear MOVING on) the segment of every partition of its group whose batch is gone from the map
 *       while the partition stayed, or came, here: OPEN on the target's replicas, an abort before SWITCH on the
 *       source's. Replicas open in no order; writers wait at a later replica still frozen
 *       ({@code FrozenReplica} in the client).</li>
 * </ul>
 * Both are idempotent, so a map applied twice, or a node that missed maps, does no harm. Only members act: a copying
 * node copies its primary's words and marks. An aborted batch's target segment (zeroed by the target's copier) is
 * not this class's. Pure: from the two maps and the node's id.
 *
 * @param moved       packed segments ({@code KeyHash#segment}) to mark MOVED
 * @param movedEpochs the switch epoch of each of {@code moved}
 * @param opened      packed segments to clear MOVING on
 */
public record MoveMarks(long[] moved, long[] movedEpochs, long[] opened)
{
    /** Nothing to do. */
    public static final MoveMarks NONE = new MoveMarks(new long[0], new long[0], new long[0]);

    /**
     * The marks node {@code nodeId} makes applying {@code after}, having applied {@code before} (null: none, or a map
     * without moves).
     */
    public static MoveMarks between(final ClusterMap before, final ClusterMap after, final int nodeId)
    {
        if (after.isSimple())
        {
            return NONE;
        }
        final ReplicaGroup group = after.groupOfNode(nodeId);
        if (group == null || !group.isMember(nodeId))
        {
            return NONE;
        }
        final List<RetiredSegment> retired = new ArrayList<>();
        for (final RetiredSegment r : after.moves().retired())
        {
            if (r.group() == group.id())
            {
                retired.add(r);
            }
        }
        final List<Long> opened = new ArrayList<>();
        if (before != null && !before.isSimple())
        {
            for (final MoveBatch batch : before.moves().batches())
            {
                if (after.moves().batch(batch.id()) != null ||
                    (batch.source() != group.id() && batch.target() != group.id()))
                {
                    continue;
                }
                for (int i = 0; i < batch.size(); i++)
                {
                    final int partition = batch.partition(i);
                    final ReplicaGroup now = after.groupFor(partition);
                    if (now != null && now.id() == group.id())
                    {
                        opened.add(after.segmentOf(partition));
                    }
                }
            }
        }
        if (retired.isEmpty() && opened.isEmpty())
        {
            return NONE;
        }
        final long[] moved = new long[retired.size()];
        final long[] epochs = new long[retired.size()];
        for (int i = 0; i < moved.length; i++)
        {
            moved[i] = retired.get(i).segment();
            epochs[i] = retired.get(i).switchEpoch();
        }
        return new MoveMarks(moved, epochs, opened.stream().mapToLong(Long::longValue).toArray());
    }

    /** Whether there is nothing to do. */
    public boolean isEmpty()
    {
        return moved.length == 0 && opened.length == 0;
    }
}
