package io.rdmakv.systemtests.cluster;

import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.kvctl.KvCtl;
import io.rdmakv.systemtests.LocalCluster;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code kvctl rebalance} end to end: kvctl in this JVM, REBALANCE over the wire to a kvserver node (a child JVM) of a
 * ZooKeeper cluster, and {@code rebalance/request} read back from ZooKeeper. The request moves a partition to a group
 * that does not exist, so the coordinator never acts on it and it stays for the test to read.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class KvCtlRebalanceTest extends ZkClusterTestBase
{
    private static final String REQUEST = "/rebalance/request";

    private record Run(int code, String out, String err)
    {
    }

    private Run kvctl(final int node, final String... args)
    {
        final List<String> all = new ArrayList<>(List.of("--hosts", cluster.address(node), "--timeout-ms", "10000"));
        all.addAll(LocalCluster.kvctlArgs());
        all.addAll(List.of(args));
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final int code = KvCtl.run(new PrintWriter(out), new PrintWriter(err), Map.of(), all.toArray(String[]::new));
        return new Run(code, out.toString(), err.toString());
    }

    @Test
    void aNodeWritesTheRequestAndADryRunWritesNothing() throws Exception
    {
        final ClusterMap map = startReplicated(2, 1, false);
        assertEquals(2, map.groups().size(), map.toString());
        try (CuratorFramework zk = CuratorFrameworkFactory.builder()
            .connectString(cluster.zookeeper.getConnectString()).retryPolicy(new RetryOneTime(100))
            .namespace("rdmakv/it").build())
        {
            zk.start();
            final Run dry = kvctl(1, "rebalance", "--move", "0,1:7", "--dry-run");
            assertEquals(KvCtl.FAILED, dry.code(), dry.out() + dry.err());
            // the first node of the map that answers takes it (node 0 here), whichever --hosts named
            assertTrue(dry.out().matches("dry run: the coordinator could not act on it now: cannot move \\[0, 1] -> " +
                "group 7: group 7 does not exist \\(as node [01] sees it: the map of epoch " + map.epoch() +
                ", 2 live member\\(s\\)\\); nothing written\n"), dry.out());
            assertNull(zk.checkExists().forPath(REQUEST), "a dry run writes nothing");

            final Run asked = kvctl(1, "rebalance", "--move", "0,1:7");
            assertEquals(KvCtl.OK, asked.code(), asked.out() + asked.err());
            assertTrue(asked.out().startsWith("requested, but the coordinator cannot act on it now: cannot move"),
                asked.out());
            assertEquals("{\"moves\":[{\"partitions\":[0,1],\"target\":7}],\"cancel\":[]}",
                new String(zk.getData().forPath(REQUEST), StandardCharsets.UTF_8));

            final Run noBatch = kvctl(0, "rebalance", "--cancel", "7001", "--dry-run");
            assertEquals(KvCtl.FAILED, noBatch.code(), noBatch.out() + noBatch.err());
            assertTrue(noBatch.out().contains("cannot cancel batch 7001: no such batch"), noBatch.out());
            assertEquals("{\"moves\":[{\"partitions\":[0,1],\"target\":7}],\"cancel\":[]}",
                new String(zk.getData().forPath(REQUEST), StandardCharsets.UTF_8), "left as it was");
        }
    }

    /**
     * {@code kvctl drain} over the wire: a node id not in the map is refused with nothing written, a dry run writes
     * nothing, a drain creates {@code drain/<id>} and a cancel deletes it. Two groups of one node each made at
     * creation have their whole arenas in segments, so nothing moves: the drain waits (the coordinator logs why).
     */
    @Test
    void aNodeWritesAndDeletesTheDrainZnode() throws Exception
    {
        final ClusterMap map = startReplicated(2, 1, false);
        assertEquals(2, map.groups().size(), map.toString());
        try (CuratorFramework zk = CuratorFrameworkFactory.builder()
            .connectString(cluster.zookeeper.getConnectString()).retryPolicy(new RetryOneTime(100))
            .namespace("rdmakv/it").build())
        {
            zk.start();
            final Run unknown = kvctl(0, "drain", "9");
            assertEquals(KvCtl.FAILED, unknown.code(), unknown.out() + unknown.err());
            assertTrue(unknown.err().contains("node 9 is not in the cluster map"), unknown.err());
            assertNull(zk.checkExists().forPath("/drain/9"));

            final Run dry = kvctl(0, "drain", "1", "--dry-run");
            assertEquals(KvCtl.OK, dry.code(), dry.out() + dry.err());
            assertTrue(dry.out().startsWith("dry run: would create /drain/1 (absent now); node 1 is in group "),
                dry.out());
            assertNull(zk.checkExists().forPath("/drain/1"), "a dry run writes nothing");

            final Run drain = kvctl(1, "--json", "drain", "1");
            assertEquals(KvCtl.OK, drain.code(), drain.out() + drain.err());
            assertTrue(drain.out().contains("node 1 is being drained (/drain/1 created)"), drain.out());
            assertTrue(drain.out().contains("\"drained\" : false"), drain.out());
            assertTrue(zk.checkExists().forPath("/drain/1") != null);

            final Run cancel = kvctl(0, "drain", "1", "--cancel");
            assertEquals(KvCtl.OK, cancel.code(), cancel.out() + cancel.err());
            assertTrue(cancel.out().startsWith("drain of node 1 cancelled (/drain/1 deleted)"), cancel.out());
            assertNull(zk.checkExists().forPath("/drain/1"));
        }
    }
}
