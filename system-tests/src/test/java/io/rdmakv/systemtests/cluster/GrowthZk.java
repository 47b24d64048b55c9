package io.rdmakv.systemtests.cluster;

import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.hash.KeyHash;
import io.rdmakv.server.cluster.map.MoveRequest;
import io.rdmakv.server.cluster.map.StoredMap;
import io.rdmakv.server.cluster.zk.ZkPaths;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.function.Predicate;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * What the growth tests do in a test cluster's ZooKeeper ({@link ZkNodes}, cluster name {@code it}): turn the growth
 * switch on, ask for moves, and watch the coordinator's map znode itself (a phase may last less than a probe of every
 * node takes).
 */
final class GrowthZk implements AutoCloseable
{
    private final CuratorFramework zk;

    GrowthZk(final ZkNodes cluster)
    {
        zk = CuratorFrameworkFactory.builder().connectString(cluster.zookeeper.getConnectString())
            .retryPolicy(new RetryOneTime(100)).namespace("rdmakv/it").build();
        zk.start();
    }

    /** Turns {@code rebalance/auto} on: R spares form a new group. */
    void growthOn() throws Exception
    {
        zk.create().orSetData().creatingParentsIfNeeded().forPath(ZkPaths.REBALANCE_AUTO, bytes("on"));
    }

    /** Turns {@code rebalance/auto} off: nothing moves by itself (a drain still does). */
    void growthOff() throws Exception
    {
        zk.create().orSetData().creatingParentsIfNeeded().forPath(ZkPaths.REBALANCE_AUTO, bytes("off"));
    }

    /** Whether {@code drain/<id>} is there. */
    boolean draining(final int id) throws Exception
    {
        return zk.checkExists().forPath(ZkPaths.drain(id)) != null;
    }

    /** Asks the coordinator to move {@code partitions} to group {@code target}. */
    void requestMove(final List<Integer> partitions, final int target) throws Exception
    {
        zk.create().orSetData().creatingParentsIfNeeded().forPath(ZkPaths.REBALANCE_REQUEST, new MoveRequest(0,
            List.of(new MoveRequest.Wanted(partitions.stream().mapToInt(Integer::intValue).toArray(), target, 0)),
            List.of()).toJson());
    }

    /** The map the coordinator wrote last. */
    ClusterMap map() throws Exception
    {
        return StoredMap.fromJson(zk.getData().forPath(ZkPaths.MAP)).map();
    }

    /** Waits until the coordinator's map satisfies {@code condition}, polling every 10 ms. */
    ClusterMap awaitMap(final String what, final Duration timeout, final Predicate<ClusterMap> condition)
        throws Exception
    {
        final long deadline = System.nanoTime() + timeout.multipliedBy(ZkNodes.SLOWNESS).toNanos();
        ClusterMap last = null;
        while (System.nanoTime() < deadline)
        {
            last = map();
            if (condition.test(last))
            {
                return last;
            }
            Thread.sleep(10);
        }
        fail("timed out waiting for " + what + "; last map: " + last);
        return null;
    }

    static int partitionOf(final String key, final int partitions)
    {
        return KeyHash.partition(KeyHash.hash(bytes(key)), partitions);
    }

    static byte[] bytes(final String s)
    {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public void close()
    {
        zk.close();
    }
}
