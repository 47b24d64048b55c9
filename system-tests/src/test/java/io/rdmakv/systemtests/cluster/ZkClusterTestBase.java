package io.rdmakv.systemtests.cluster;

import io.rdmakv.common.cluster.ClusterMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/** What the ZooKeeper cluster tests share: a cluster of child-JVM nodes, stopped after each test. */
abstract class ZkClusterTestBase
{
    @TempDir
    Path dir;

    ZkNodes cluster;

    @AfterEach
    void stopCluster() throws Exception
    {
        if (cluster != null)
        {
            cluster.keepLogs(getClass().getSimpleName());
            cluster.close();
        }
    }

    /** Starts {@code count} nodes (each through a ZooKeeper relay of its own when {@code relayed}) and waits for a full map. */
    ClusterMap startReplicated(final int count, final int replicas, final boolean relayed) throws Exception
    {
        return startReplicated(count, replicas, relayed, List.of());
    }

    /** As above, every node started with {@code nodeArgs} too. */
    ClusterMap startReplicated(final int count, final int replicas, final boolean relayed, final List<String> nodeArgs)
        throws Exception
    {
        cluster = new ZkNodes(dir, count, replicas, relayed, nodeArgs);
        return cluster.awaitMap("groups of " + replicas + " in sync", Duration.ofSeconds(60),
            m -> ZkNodes.fullyReplicated(m, replicas));
    }
}
