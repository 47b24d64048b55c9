package io.rdmakv.client.internal.session;

import io.rdmakv.client.internal.op.SlotCache;
import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.ClusterNode;
import io.rdmakv.common.cluster.ReplicaGroup;
import io.rdmakv.common.hash.KeyHash;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A router refreshed in place records, per partition, when the client adopted a placement that changed (another
 * group or another segment), and carries the time of every other partition over: a slot-cache entry of a key seen
 * before its partition's placement is never CASed from blind (growth.md §6, the last client rule).
 */
class RouterPlacementTest
{
    private static final Router.SessionOpener NEVER = node ->
    {
        throw new AssertionError("no session is opened here");
    };
    private static final int PARTITIONS = 4;

    /** Groups 0 = {1, 2} and 1 = {3, 4}, fence epoch 1; partition p on group {@code groupOf[p]}, segment {@code segments[p]}. */
    private static ClusterMap map(final long epoch, final int[] groupOf, final long[] segments)
    {
        final List<ClusterNode> nodes = new ArrayList<>();
        for (int id = 1; id <= 4; id++)
        {
            nodes.add(new ClusterNode(id, "127.0.0.1", 7000 + id));
        }
        return new ClusterMap(epoch, 1, PARTITIONS, nodes, 2,
            List.of(new ReplicaGroup(0, new int[] {1, 2}, null, false), new ReplicaGroup(1, new int[] {3, 4}, null, false)),
            groupOf, segments);
    }

    private static long[] segments(final long... bases)
    {
        final long[] packed = new long[bases.length];
        for (int p = 0; p < bases.length; p++)
        {
            packed[p] = KeyHash.segment(bases[p], 8);
        }
        return packed;
    }

    @Test
    void onlyPartitionsWhosePlacementChangedAreStampedAndTheStampIsCarriedOver()
    {
        final Router first = new Router(map(1, new int[] {0, 0, 1, 1}, segments(0, 8, 0, 8)), NEVER, new SlotCache(64));
        for (int p = 0; p < PARTITIONS; p++)
        {
            assertEquals(Router.NEVER_MOVED, first.placedNanos(p), "a new router's sessions saw no other placement");
        }

        final long before = System.nanoTime();
        // partition 0 moves to group 1 (segment 16 there); partition 3 stays on group 1 in another segment
        final Router moved = new Router(map(2, new int[] {1, 0, 1, 1}, segments(16, 8, 0, 24)), first);
        assertTrue(moved.placedNanos(0) >= before, "the partition that changed group");
        assertEquals(Router.NEVER_MOVED, moved.placedNanos(1));
        assertEquals(Router.NEVER_MOVED, moved.placedNanos(2));
        assertTrue(moved.placedNanos(3) >= before, "the partition that changed segment in its group");

        final Router same = new Router(map(3, new int[] {1, 0, 1, 1}, segments(16, 8, 0, 24)), moved);
        assertEquals(moved.placedNanos(0), same.placedNanos(0), "an unchanged placement keeps its adoption time");
        assertEquals(moved.placedNanos(3), same.placedNanos(3));
        assertEquals(Router.NEVER_MOVED, same.placedNanos(1));
    }
}
