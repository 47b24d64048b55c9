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
}
