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
 * Which nodes a map write must find unregistered (in the same ZooKeeper transaction), and waits the promotion wait
 * for: those it takes a place from while they are not registered (a primary replaced or lost, a backup or copying
 * node dropped, a node dropped from the map); not a restarted one (registered under a new incarnation: its old
 * process is gone) and not one that keeps its place.
 */
class GoneMembersTest
{
    private static final int PARTITIONS = 4;
    private static final List<ClusterNode> NODES = List.of(new ClusterNode(0, "127.0.0.1", 1),
        new ClusterNode(1, "127.0.0.1", 2), new ClusterNode(2, "127.0.0.1", 3));

    @Test
    void aPromotionOverAnUnregisteredPrimaryNamesIt()
    {
        final ClusterMap before = map(1, new ReplicaGroup(0, new int[] {0, 1}, new int[0], false));
        final ClusterMap after = map(2, new ReplicaGroup(0, new int[] {1}, new int[0], false));
        assertEquals(List.of(0), Coordinator.goneMembers(before, after, List.of(member(1), member(2))));
    }

    @Test
    void aLostGroupNamesItsPrimary()
    {
        final ClusterMap before = map(1, new ReplicaGroup(0, new int[] {0}, new int[0], false));
        final ClusterMap after = map(2, new ReplicaGroup(0, new int[0], new int[0], false));
        assertEquals(List.of(0), Coordinator.goneMembers(before, after, List.of(member(1))));
    }

    @Test
    void aRestartedPrimaryOrOneThatStaysIsNotNamed()
    {
        final ClusterMap before = map(1, new ReplicaGroup(0, new int[] {0, 1}, new int[0], false));
        final ClusterMap promoted = map(2, new ReplicaGroup(0, new int[] {1}, new int[0], false));
        assertEquals(List.of(), Coordinator.goneMembers(before, promoted, List.of(member(0), member(1))),
            "registered again (a new process): its old one cannot serve");
        final ClusterMap sealed = map(2, new ReplicaGroup(0, new int[] {0, 1}, new int[] {2}, true));
        assertEquals(List.of(), Coordinator.goneMembers(before, sealed, List.of(member(1))));
        assertEquals(List.of(), Coordinator.goneMembers(null, before, List.of()));
    }

    /**
     * A backup whose member znode vanished (its session expired: ZooKeeper restarted, say) is not dropped at once:
     * named, the write waits the promotion wait and fails if it registered again meanwhile.
     */
    @Test
    void anUnregisteredBackupOrCopyingNodeDroppedFromItsGroupIsNamed()
    {
        final ClusterMap before = map(1, new ReplicaGroup(0, new int[] {0, 1}, new int[] {2}, true));
        final ClusterMap withoutBackup = map(2, new ReplicaGroup(0, new int[] {0}, new int[] {2}, true));
        assertEquals(List.of(1), Coordinator.goneMembers(before, withoutBackup, List.of(member(0), member(2))));
        final ClusterMap withoutCopy = map(2, new ReplicaGroup(0, new int[] {0, 1}, new int[0], false));
        assertEquals(List.of(2), Coordinator.goneMembers(before, withoutCopy, List.of(member(0), member(1))));
        assertEquals(List.of(), Coordinator.goneMembers(before, withoutBackup, List.of(member(0), member(1), member(2))),
            "registered: not gone (the planner only drops it for another reason, e.g. a new incarnation)");
    }

    @Test
    void anUnregisteredNodeDroppedFromTheMapIsNamed()
    {
        final ClusterMap before = map(1, new ReplicaGroup(0, new int[] {0, 1}, new int[0], false));
        final ClusterMap fewer = new ClusterMap(2, PARTITIONS, NODES.subList(0, 2), 2, before.groups(), groups());
        assertEquals(List.of(2), Coordinator.goneMembers(before, fewer, List.of(member(0), member(1))));
    }

    private static int[] groups()
    {
        return new int[PARTITIONS];
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
