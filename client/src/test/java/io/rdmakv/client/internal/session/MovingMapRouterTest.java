package io.rdmakv.client.internal.session;

import io.rdmakv.client.internal.op.SlotCache;
import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.ClusterNode;
import io.rdmakv.common.cluster.MapMoves;
import io.rdmakv.common.cluster.MoveBatch;
import io.rdmakv.common.cluster.MovePhase;
import io.rdmakv.common.cluster.ReplicaGroup;
import io.rdmakv.common.cluster.RetiredSegment;
import io.rdmakv.common.hash.KeyHash;
import io.rdmakv.common.protocol.wire.ClusterMapCodec;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A client takes maps with partition moves as it takes any placement-only map: in place (the sessions kept), routing
 * by the partition table alone: before SWITCH to the source group, from SWITCH on to the target, at its segment.
 */
class MovingMapRouterTest
{
    private static final Router.SessionOpener NEVER = node ->
    {
        throw new AssertionError("no session is opened here");
    };
    private static final long X_A = KeyHash.segment(0, 8);
    private static final long X_B = KeyHash.segment(40, 8);

    /** Groups 0 {1, 2} and 1 {3, 4}; 4 partitions, even ones on group 0; partition 0 on {@code group} at {@code segment}. */
    private static ClusterMap map(final long epoch, final int group, final long segment, final MapMoves moves)
    {
        final List<ClusterNode> nodes = List.of(new ClusterNode(1, "127.0.0.1", 7001),
            new ClusterNode(2, "127.0.0.1", 7002), new ClusterNode(3, "127.0.0.1", 7003),
            new ClusterNode(4, "127.0.0.1", 7004));
        final List<ReplicaGroup> groups = List.of(new ReplicaGroup(0, new int[] {1, 2}, null, false),
            new ReplicaGroup(1, new int[] {3, 4}, null, false));
        final long[] segments = {segment, KeyHash.segment(0, 8), KeyHash.segment(8, 8), KeyHash.segment(8, 8)};
        // through the binary form a node serves in HELLO_OK and its map area
        return ClusterMapCodec.decode(ClusterMapCodec.encode(new ClusterMap(epoch, 3, 4, nodes, 2, groups,
            new int[] {group, 1, 0, 1}, segments, moves)));
    }

    private static MapMoves batch(final MovePhase phase, final long epoch, final RetiredSegment... retired)
    {
        return new MapMoves(List.of(new MoveBatch(6000, 0, 1, phase, epoch, new int[] {0}, new long[] {X_B})),
            List.of(retired));
    }

    private static long keyOf(final int partition)
    {
        for (int i = 0; ; i++)
        {
            final long h = KeyHash.hash(("k" + i).getBytes(StandardCharsets.UTF_8));
            if (KeyHash.partition(h, 4) == partition)
            {
                return h;
            }
        }
    }

    @Test
    void aClientFollowsAMoveInPlaceAndRoutesByTheCurrentAssignment()
    {
        final RetiredSegment retired = new RetiredSegment(0, 0, X_A, 8, 6000);
        final List<ClusterMap> maps = List.of(map(5, 0, X_A, MapMoves.NONE), map(6, 0, X_A, batch(MovePhase.COPY, 6)),
            map(7, 0, X_A, batch(MovePhase.FREEZE, 7)), map(8, 1, X_B, batch(MovePhase.SWITCH, 8, retired)),
            map(9, 1, X_B, new MapMoves(List.of(), List.of(retired))), map(10, 1, X_B, MapMoves.NONE));
        Router router = new Router(maps.get(0), NEVER, new SlotCache(64));
        final long key = keyOf(0);
        for (final ClusterMap next : maps.subList(1, maps.size()))
        {
            assertTrue(router.keepsSessionsFor(next), "epoch " + next.epoch() + " fences nobody: sessions kept");
            router = new Router(next, router);
            final boolean switched = next.epoch() >= 8;
            assertEquals(switched ? 2 : 0, router.nodeOf(key), "epoch " + next.epoch() + ": the owner's node index");
            assertEquals(switched ? X_B : X_A, router.segmentOf(0));
            assertEquals(switched ? 4 : 2, router.decidingNodeId(0), "the deciding backup of the owning group");
        }
    }
}
