package io.rdmakv.server.cluster;

import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.ClusterNode;
import io.rdmakv.common.cluster.ReplicaGroup;
import io.rdmakv.server.cluster.map.MemberInfo;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Which primaries a map write must find unregistered (in the same ZooKeeper transaction), and waits the promotion
 * wait for: those it replaces or loses while they are not registered; not a restarted one (registered under a new
 * incarnation: its old process is gone) and not one that keeps its place.
 */
class GonePrimariesTest
{
    private static final int PARTITIONS = 4;
    private static final List<ClusterNode> NODES = List.of(new ClusterNode(0, "127.0.0.1", 1),
        new ClusterNode(1, "127.0.0.1", 2), new ClusterNode(2, "127.0.0.1", 3));

    @Test
    void aPromotionOverAnUnregisteredPrimaryNamesIt()
    {
        final ClusterMap before = map(1, new ReplicaGroup(0, new int[] {0, 1}, new int[0], false));
        final ClusterMap after = map(2, new ReplicaGroup(0, new int[] {1}, new int[0], false));
        assertEquals(List.of(0), Coordinator.gonePrimaries(before, after, List.of(member(1), member(2))));
    }

    @Test
    void aLostGroupNamesItsPrimary()
    {
        final ClusterMap before = map(1, new ReplicaGroup(0, new int[] {0}, new int[0], false));
        final ClusterMap after = map(2, new ReplicaGroup(0, new int[0], new int[0], false));
        assertEquals(List.of(0), Coordinator.gonePrimaries(before, after, List.of(member(1))));
    }

    @Test
    void aRestartedPrimaryOrOneThatStaysIsNotNamed()
    {
        final ClusterMap before = map(1, new ReplicaGroup(0, new int[] {0, 1}, new int[0], false));
        final ClusterMap promoted = map(2, new ReplicaGroup(0, new int[] {1}, new int[0], false));
        assertEquals(List.of(), Coordinator.gonePrimaries(before, promoted, List.of(member(0), member(1))),
            "registered again (a new process): its old one cannot serve");
        final ClusterMap sealed = map(2, new ReplicaGroup(0, new int[] {0, 1}, new int[] {2}, true));
        assertEquals(List.of(), Coordinator.gonePrimaries(before, sealed, List.of(member(1))));
        assertEquals(List.of(), Coordinator.gonePrimaries(null, before, List.of()));
    }

    private static ClusterMap map(final long epoch, final ReplicaGroup group)
    {
        final int[] groups = new int[PARTITIONS];
        Arrays.fill(groups, 0);
        return new ClusterMap(epoch, PARTITIONS, NODES, 2, List.of(group), groups);
    }

    private static MemberInfo member(final int id)
    {
        return ZkTestCluster.member(id, 7);
    }
}
