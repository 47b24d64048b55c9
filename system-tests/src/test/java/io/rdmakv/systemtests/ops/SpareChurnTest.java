package io.rdmakv.systemtests.ops;

import io.rdmakv.client.KvClient;
import io.rdmakv.systemtests.LocalCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static io.rdmakv.systemtests.ops.ReplicatedMetricsCluster.awaitEpochAbove;
import static io.rdmakv.systemtests.ops.ReplicatedMetricsCluster.nodeWithRole;
import static io.rdmakv.systemtests.ops.ReplicatedMetricsCluster.roles;
import static io.rdmakv.systemtests.ops.ReplicatedMetricsCluster.sameEpoch;

/**
 * Nodes joining and leaving as spares fence nobody. Three child-JVM nodes under ZooKeeper with R = 2 (a group
 * of two and a spare), a client writing and reading on four threads, and the spare killed and started again
 * twice: each time the map changes (the spare leaves the node list, then joins it), and each time the group's
 * nodes fence no session (their {@code rdmakv_sessions_fenced_by_epoch_total} stays 0), no operation fails and
 * every acknowledged write reads back. Then the backup is killed: that map change fences (the counter moves),
 * so the counter would have caught a spare's change fencing too.
 */
class SpareChurnTest
{
    private static final String FENCED = "rdmakv_sessions_fenced_by_epoch_total";
    private static final String EPOCH = "rdmakv_cluster_epoch";
    private static final int THREADS = 4;

    @TempDir
    Path dir;

    @Test
    void aSpareLeavingAndJoiningFencesNoSessionWhileClientsWrite() throws Exception
    {
        try (ReplicatedMetricsCluster cluster = new ReplicatedMetricsCluster(dir, 3, 2))
        {
            final ReplicatedMetricsCluster.GroupAndSpare formed = cluster.awaitGroupAndSpare();
            Map<Integer, ReplicatedMetricsCluster.Scrape> scrapes = formed.scrapes();
            final int spare = formed.spare();
            final int primary = formed.primary();
            final int backup = formed.backup();
            final Map<String, byte[]> acknowledged = new ConcurrentHashMap<>();
            final ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
            final AtomicBoolean running = new AtomicBoolean(true);
            try (KvClient client = KvClient.connect(LocalCluster.clientConfig(cluster.seeds())))
            {
                final List<Thread> writers = new ArrayList<>();
                for (int t = 0; t < THREADS; t++)
                {
                    final int thread = t;
                    writers.add(Thread.ofPlatform().name("writer-" + t).start(() ->
                        write(client, thread, running, acknowledged, failures)));
                }
                long epoch = (long)scrapes.get(primary).value(EPOCH);
                for (int round = 0; round < 2; round++)
                {
                    Thread.sleep(500);
                    cluster.kill(spare);
                    epoch = awaitEpochAbove(cluster, primary, backup, epoch, "the spare gone from the map");
                    cluster.restart(spare);
                    epoch = awaitEpochAbove(cluster, primary, backup, epoch, "the spare back in the map");
                    cluster.awaitScrapes("the spare serving again", Duration.ofSeconds(40),
                        s -> s.size() == 3 && roles(s).equals(List.of(0, 2, 3)) && sameEpoch(s));
                }
                Thread.sleep(500);
                scrapes = cluster.scrapeAll();
                for (final int node : new int[] {primary, backup})
                {
                    assertEquals(0.0, scrapes.get(node).value(FENCED),
                        "node " + node + " fenced sessions at a spare's comings and goings (epoch " + epoch + ")");
                }
                running.set(false);
                for (final Thread w : writers)
                {
                    w.join(30_000);
                }
                assertEquals(List.of(), List.copyOf(failures), "no operation failed");
                assertTrue(acknowledged.size() > 100, "the writers wrote: " + acknowledged.size());
                for (final Map.Entry<String, byte[]> e : acknowledged.entrySet())
                {
                    assertArrayEquals(e.getValue(), client.get(bytes(e.getKey())), e.getKey());
                }
                System.out.println("[spare churn] " + acknowledged.size() + " keys written across 4 map changes " +
                    "(epoch " + epoch + "), 0 sessions fenced on the group's nodes");

                // a member leaving does fence: the counter sees it
                cluster.kill(backup);
                cluster.awaitScrapes("the primary fenced the sessions of the old placement", Duration.ofSeconds(30),
                    s -> s.containsKey(primary) && s.get(primary).value(FENCED) >= 1);
            }
        }
    }

    private static void write(final KvClient client, final int thread, final AtomicBoolean running,
        final Map<String, byte[]> acknowledged, final ConcurrentLinkedQueue<Throwable> failures)
    {
        int n = 0;
        while (running.get())
        {
            final String key = "churn-" + thread + "-" + (n % 200);
            final byte[] value = bytes("v" + n);
            try
            {
                client.put(bytes(key), value);
                acknowledged.put(key, value);
                final byte[] read = client.get(bytes(key));
                if (!java.util.Arrays.equals(value, read))
                {
                    failures.add(new AssertionError(key + " read " + (read == null ? null :
                        new String(read, StandardCharsets.UTF_8)) + " after writing v" + n));
                }
            }
            catch (final RuntimeException e)
            {
                failures.add(e);
            }
            n++;
        }
    }

    private static byte[] bytes(final String s)
    {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
