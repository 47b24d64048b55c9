package io.rdmakv.systemtests.replication;

import io.rdmakv.client.KvClient;
import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.ClusterNode;
import io.rdmakv.common.cluster.MapMoves;
import io.rdmakv.common.cluster.MoveBatch;
import io.rdmakv.common.cluster.MovePhase;
import io.rdmakv.common.cluster.ReplicaGroup;
import io.rdmakv.common.cluster.RetiredSegment;
import io.rdmakv.common.hash.KeyHash;
import io.rdmakv.common.layout.BucketDescriptor;
import io.rdmakv.common.layout.MovedHeader;
import io.rdmakv.common.layout.SlotWord;
import io.rdmakv.server.KvServer;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.systemtests.LocalCluster;
import io.rdmakv.systemtests.peer.RegionView;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A source group's replicas applying the maps of a move (growth.md §7, §9), handed to them as membership would: an
 * abort before SWITCH opens the frozen segment on every replica before the map is served, so writes go on; at SWITCH
 * every replica marks the retired segment MOVED before it serves the map. Group 1 (the target) is listed with nodes
 * that do not run: nothing here reaches it.
 */
class MoveMarksApplyTest
{
    private static final int MOVING_PARTITION = 7;
    private static final long GROUPS = 16;

    @TempDir
    Path dir;

    private ReplicatedPair group;
    /** The static map the group started with. */
    private ClusterMap running;

    @AfterEach
    void stop()
    {
        LocalCluster.closeAll(group);
    }

    private static long[] segments()
    {
        final long[] segments = new long[ReplicatedPair.PARTITIONS];
        for (int p = 0; p < segments.length; p++)
        {
            segments[p] = KeyHash.segment(p * GROUPS, GROUPS);
        }
        return segments;
    }

    /** The running map with group 1 (nodes 10 and 11, not running) added, at {@code epoch}, with {@code moves}. */
    private ClusterMap map(final long epoch, final boolean switched, final MapMoves moves)
    {
        final List<ClusterNode> nodes = new ArrayList<>(running.nodes());
        nodes.add(new ClusterNode(10, "127.0.0.1", 1));
        nodes.add(new ClusterNode(11, "127.0.0.1", 2));
        final List<ReplicaGroup> groups = new ArrayList<>(running.groups());
        groups.add(new ReplicaGroup(1, new int[] {10, 11}, null, false));
        final int[] partitionGroups = new int[ReplicatedPair.PARTITIONS];
        final long[] segments = segments();
        if (switched)
        {
            partitionGroups[MOVING_PARTITION] = 1;
            segments[MOVING_PARTITION] = targetSegment();
        }
        return new ClusterMap(epoch, running.fenceEpoch(), ReplicatedPair.PARTITIONS, nodes, running.replicationFactor(),
            groups, partitionGroups, segments).withMoves(moves);
    }

    private static long sourceSegment()
    {
        return segments()[MOVING_PARTITION];
    }

    private static long targetSegment()
    {
        return KeyHash.segment(0, GROUPS);
    }

    private static MapMoves batch(final long id, final MovePhase phase, final RetiredSegment... retired)
    {
        return new MapMoves(List.of(new MoveBatch(id, 0, 1, phase, 0, new int[] {MOVING_PARTITION},
            new long[] {targetSegment()})), List.of(retired));
    }

    private void applyToAll(final ClusterMap map) throws InterruptedException
    {
        for (final KvServer node : group.nodes)
        {
            node.apply(map, false);
        }
    }

    @Test
    void anAbortOpensTheFrozenSegmentOnEveryReplicaAndSwitchMarksItMoved() throws Exception
    {
        group = ReplicatedPair.start(dir, 2, ServerConfig.local(LocalCluster.MEMORY), segments());
        final byte[] key = keyOf(MOVING_PARTITION);
        running = group.nodes[0].clusterMap();
        final long epoch = running.epoch();
        try (KvClient client = KvClient.connect(LocalCluster.clientConfig(group.address(0))
            .withOpTimeout(Duration.ofSeconds(5))))
        {
            client.put(key, bytes("v1"));
            applyToAll(map(epoch + 1, false, batch(1000, MovePhase.COPY)));
            group.nodes[0].partitionMoves().freeze(sourceSegment());
            applyToAll(map(epoch + 2, false, batch(1000, MovePhase.FREEZE)));
            assertTrue(frozenSlots(0) > 0 && frozenSlots(1) > 0, "frozen on both replicas");

            applyToAll(map(epoch + 3, false, MapMoves.NONE));
            assertEquals(0, frozenSlots(0), "the abort opened the primary's segment");
            assertEquals(0, frozenSlots(1), "and the backup's");
            client.put(key, bytes("v2"));
            assertEquals("v2", new String(client.get(key), StandardCharsets.UTF_8), "writes go on");

            applyToAll(map(epoch + 4, false, batch(2000, MovePhase.COPY)));
            group.nodes[0].partitionMoves().freeze(sourceSegment());
            applyToAll(map(epoch + 5, false, batch(2000, MovePhase.FREEZE)));
            final RetiredSegment retired = new RetiredSegment(0, MOVING_PARTITION, sourceSegment(), epoch + 6, 2000);
            assertFalse(marked(0, epoch + 6), "nothing is marked before SWITCH");
            applyToAll(map(epoch + 6, true, batch(2000, MovePhase.SWITCH, retired)));
            assertTrue(marked(0, epoch + 6) && marked(1, epoch + 6), "every replica marked the retired segment");
            assertTrue(frozenSlots(0) > 0, "the retired segment stays frozen");
        }
    }

    /** Whether every group of the source segment on replica {@code r} carries MOVED of {@code switchEpoch}. */
    private boolean marked(final int r, final long switchEpoch)
    {
        try (RegionView view = new RegionView(group.ports[r]))
        {
            for (long g = KeyHash.segmentBase(sourceSegment()); g < KeyHash.segmentBase(sourceSegment()) + GROUPS; g++)
            {
                if (view.longAt(view.geometry().groupRegionOffset(g) + BucketDescriptor.MOVED_HEADER_OFFSET) !=
                    MovedHeader.moved(switchEpoch))
                {
                    return false;
                }
            }
            return true;
        }
    }

    /** Slots of the source segment on replica {@code r} that carry MOVING. */
    private int frozenSlots(final int r)
    {
        int frozen = 0;
        try (RegionView view = new RegionView(group.ports[r]))
        {
            for (long g = KeyHash.segmentBase(sourceSegment()); g < KeyHash.segmentBase(sourceSegment()) + GROUPS; g++)
            {
                for (int s = 0; s < BucketDescriptor.SLOTS_PER_GROUP; s++)
                {
                    if (SlotWord.isMoving(view.longAt(view.geometry().groupRegionOffset(g) +
                        BucketDescriptor.slotOffsetInGroup(s))))
                    {
                        frozen++;
                    }
                }
            }
        }
        return frozen;
    }

    private static byte[] keyOf(final int partition)
    {
        for (int i = 0; ; i++)
        {
            final byte[] key = bytes("key-" + i);
            if (KeyHash.partition(KeyHash.hash(key), ReplicatedPair.PARTITIONS) == partition)
            {
                return key;
            }
        }
    }

    private static byte[] bytes(final String s)
    {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
