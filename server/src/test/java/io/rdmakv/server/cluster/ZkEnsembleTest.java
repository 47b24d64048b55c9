package io.rdmakv.server.cluster;

import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.ClusterNode;
import io.rdmakv.server.cluster.zk.ZkOptions;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static io.rdmakv.server.cluster.ZkTestCluster.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Memberships against a three-server ZooKeeper ensemble: losing one server changes nothing. */
class ZkEnsembleTest
{
    @Test
    void oneZooKeeperServerDownChangesNoMapAndChangesGoOn() throws Exception
    {
        try (TestingCluster ensemble = new TestingCluster(3))
        {
            ensemble.start();
            final List<ZkMembership> nodes = new ArrayList<>();
            final List<Recorder> recorders = new ArrayList<>();
            try
            {
                // sessions long enough to outlast the ensemble's own leader election
                final ZkOptions options = new ZkOptions(ensemble.getConnectString(), "ensemble", 2, 8, 20_000, 300);
                for (int id = 0; id < 3; id++)
                {
                    final Recorder r = new Recorder();
                    nodes.add(ZkMembership.start(options, ZkTestCluster.member(id, 1000 + id), r));
                    recorders.add(r);
                    if (id == 1)
                    {
                        await("map of group [0, 1]", () -> recorders.stream().allMatch(x -> x.last() != null));
                    }
                }
                await("spare 2 listed", () -> recorders.stream().allMatch(r -> r.last() != null &&
                    r.last().nodes().size() == 3));
                final ClusterMap formed = recorders.get(0).last();

                final InstanceSpec victim = ensemble.getInstances().iterator().next();
                assertTrue(ensemble.killServer(victim));
                // a change made after the loss is the next epoch: nothing changed in between
                nodes.remove(2).close();
                recorders.remove(2);
                await("spare 2 gone from the map", () -> recorders.stream().allMatch(r ->
                    r.last().nodes().stream().map(ClusterNode::id).toList().equals(List.of(0, 1))));
                for (final Recorder r : recorders)
                {
                    assertEquals(formed.epoch() + 1, r.last().epoch());
                    assertEquals(formed.groups(), r.last().groups());
                    r.assertOrdered();
                }
                await("every node connected", () -> nodes.stream().allMatch(ZkMembership::connected));
            }
            finally
            {
                nodes.forEach(ZkMembership::close);
            }
        }
    }
}
