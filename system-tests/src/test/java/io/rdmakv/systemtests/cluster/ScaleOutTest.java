package io.rdmakv.systemtests.cluster;

import io.rdmakv.client.KvClient;
import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.ReplicaGroup;
import io.rdmakv.server.cluster.map.MoveRequest;
import io.rdmakv.server.cluster.zk.ZkPaths;
import io.rdmakv.systemtests.LocalCluster;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Growing a running cluster (issue 23): four nodes with two replicas per group, writers running; two nodes join,
 * form a new group (growth switch on), and three partitions of each old group move to it, two batches at once, each
 * batch walking COPY, FREEZE, SWITCH and OPEN through the real coordinator and the nodes' move roles; the old groups
 * then reclaim what they gave away. Nothing acknowledged is lost, and the longest time without a successful write is
 * printed.
 */
class ScaleOutTest extends ZkClusterTestBase
{
    private static final Duration OP_TIMEOUT = Duration.ofSeconds(20);
    private static final int PARTITIONS_PER_GROUP = 3;
    private static final int WRITERS = 4;
    private static final int KEYS_PER_WRITER = 40;
    private static final int FILL_KEYS_PER_PARTITION = 50;

    private static int partitionOf(final String key, final int partitions)
    {
        return io.rdmakv.common.hash.KeyHash.partition(io.rdmakv.common.hash.KeyHash.hash(bytes(key)), partitions);
    }

    private static byte[] bytes(final String s)
    {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void partitionsMoveToANewGroupUnderWritesLosingNothing() throws Exception
    {
        final ClusterMap first = startReplicated(4, 2, false);
        assertEquals(2, first.groups().size());
        try (CuratorFramework zk = CuratorFrameworkFactory.builder()
            .connectString(cluster.zookeeper.getConnectString()).retryPolicy(new RetryOneTime(100))
            .namespace("rdmakv/it").build())
        {
            zk.start();
            zk.create().creatingParentsIfNeeded().forPath(ZkPaths.REBALANCE_AUTO, "on".getBytes(StandardCharsets.UTF_8));
            try (KvClient client = KvClient.connect(LocalCluster.clientConfig(cluster.seeds()).withOpTimeout(OP_TIMEOUT));
                LoadWriters load = new LoadWriters(client, "scale", WRITERS, KEYS_PER_WRITER))
            {
                Thread.sleep(1000);
                final long gapBefore = load.longestGapMillis();
                final int added = cluster.add(2);
                final ClusterMap grown = cluster.awaitMap("a new group of the two nodes", Duration.ofSeconds(60),
                    m -> m.groups().size() == 3 && ZkNodes.fullyReplicated(m, 2));
                final ReplicaGroup fresh = grown.groups().get(2);
                assertTrue(fresh.isMember(added) && fresh.isMember(added + 1), grown.toString());
                // of each old group the three partitions holding most of the writers' keys: two batches at once
                final int partitions = grown.partitionCount();
                final int[] ledgerKeys = new int[partitions];
                for (int slot = 0; slot < WRITERS * KEYS_PER_WRITER; slot++)
                {
                    ledgerKeys[partitionOf("scale-" + slot, partitions)]++;
                }
                final List<Integer> moving = new ArrayList<>();
                for (final ReplicaGroup old : grown.groups().subList(0, 2))
                {
                    java.util.stream.IntStream.range(0, partitions).boxed()
                        .filter(p -> grown.groupFor(p).id() == old.id())
                        .sorted(java.util.Comparator.comparingInt((Integer p) -> -ledgerKeys[p]).thenComparing(p -> p))
                        .limit(PARTITIONS_PER_GROUP).forEach(moving::add);
                }
                // and more keys in them, written once, read back after the move
                final List<String> filled = new ArrayList<>();
                for (int i = 0; filled.size() < FILL_KEYS_PER_PARTITION * moving.size(); i++)
                {
                    final String key = "fill-" + i;
                    if (moving.contains(partitionOf(key, partitions)))
                    {
                        client.put(bytes(key), bytes("value of " + key));
                        filled.add(key);
                    }
                }
                zk.create().creatingParentsIfNeeded().forPath(ZkPaths.REBALANCE_REQUEST, new MoveRequest(0,
                    List.of(new MoveRequest.Wanted(moving.stream().mapToInt(Integer::intValue).toArray(), fresh.id(), 0)),
                    List.of()).toJson());
                final ClusterMap moved = cluster.awaitMap("the partitions on the new group, every move open",
                    Duration.ofSeconds(120), m -> m.moves().batches().isEmpty() &&
                        moving.stream().allMatch(p -> m.groupFor(p).id() == fresh.id()));
                final long gapDuringMove = load.longestGapMillis();
                final ClusterMap reclaimed = cluster.awaitMap("the old groups reclaimed", Duration.ofSeconds(60),
                    m -> m.moves().isEmpty());
                Thread.sleep(500);
                load.verify(client);
                for (final String key : filled)
                {
                    assertEquals("value of " + key, new String(client.get(bytes(key)), StandardCharsets.UTF_8), key);
                }
                System.out.printf("scale-out: %d writes, %d failed calls; %d partitions moved to group %d with %d " +
                    "ledger keys and %d more (epoch %d -> %d, reclaimed at %d); longest time without a write: %d ms " +
                    "before, %d ms during the move%n", load.writes(), load.failures(), moving.size(), fresh.id(),
                    moving.stream().mapToInt(p -> ledgerKeys[p]).sum(), filled.size(), grown.epoch(), moved.epoch(),
                    reclaimed.epoch(), gapBefore, gapDuringMove);
                assertEquals(0, load.failures(), "no write failed: " + load.failureSamples());
            }
        }
    }
}
