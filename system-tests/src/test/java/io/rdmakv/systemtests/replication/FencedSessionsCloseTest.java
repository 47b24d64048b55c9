package io.rdmakv.systemtests.replication;

import io.rdmakv.client.KvClient;
import io.rdmakv.client.KvConnectionException;
import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.server.KvServer;
import io.rdmakv.systemtests.LocalCluster;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.opentest4j.AssertionFailedError;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Every session a client replaces after a fence is closed: its queue pair and memory region go back to the client's
 * protection domain, so {@link KvClient#close()} frees the domain (on the tcp provider {@code ibv_dealloc_pd} refuses,
 * EBUSY, while a region or queue pair of it is open, and says how many). A group of two under a static map; each
 * round hands both nodes a map that fences every session (the fence epoch its own epoch), as a failover or a group
 * added would, and then uses the client the way YCSB's binding does at cleanup ({@link KvClient#writePath}, {@link
 * KvClient#nodeStats}: this thread's session with each node, found broken and opened again under a map the client
 * does not have yet) and the way a batch does ({@link KvClient#getAll}), and writes and reads.
 */
class FencedSessionsCloseTest
{
    private static final int ROUNDS = 4;

    @TempDir
    Path dir;

    private ReplicatedPair group;

    @AfterEach
    void stop()
    {
        LocalCluster.closeAll(group);
    }

    @Test
    void sessionsReplacedAfterFencesAreClosedAndCloseFreesTheProtectionDomain() throws Throwable
    {
        group = ReplicatedPair.start(dir, 2);
        final ClusterMap running = group.nodes[0].clusterMap();
        final KvClient client = KvClient.connect(LocalCluster.clientConfig(group.address(0))
            .withOpTimeout(Duration.ofSeconds(5)));
        Throwable failed = null;
        try
        {
            final Map<byte[], byte[]> written = new HashMap<>();
            for (int i = 0; i < 16; i++)
            {
                written.put(bytes("k" + i), bytes("v" + i));
            }
            written.forEach(client::put);
            for (int round = 1; round <= ROUNDS; round++)
            {
                final long epoch = running.epoch() + round;
                final ClusterMap fencing = new ClusterMap(epoch, epoch, running.partitionCount(), running.nodes(),
                    running.replicationFactor(), running.groups(), running.partitionGroups());
                for (final KvServer node : group.nodes)
                {
                    node.apply(fencing, false);
                }
                // a query on a session the node fenced fails (CONNECTION_LOST) and drops it; the next one opens a new
                // session, whose HELLO_OK brings the map this client does not have yet
                final int r = round;
                assertEquals(group.nodes.length, reconnecting(() -> client.nodeStats()).size(),
                    "round " + r + ": every node's stats");
                // the binding's cleanup: each node's write path, on this thread's session with it
                for (int id = 0; id < group.nodes.length; id++)
                {
                    final int node = id;
                    assertEquals(KvClient.ONE_SIDED, reconnecting(() -> client.writePath(node)),
                        "round " + r + ": the write path of node " + node);
                }
                final List<byte[]> keys = new ArrayList<>(written.keySet());
                final List<byte[]> values = client.getAll(keys);
                for (int i = 0; i < keys.size(); i++)
                {
                    assertEquals(new String(written.get(keys.get(i)), StandardCharsets.UTF_8),
                        new String(values.get(i), StandardCharsets.UTF_8), "round " + round + ": getAll");
                }
                client.put(bytes("round"), bytes("r" + round));
                assertEquals("r" + round, new String(client.get(bytes("round")), StandardCharsets.UTF_8));
            }
        }
        catch (final Throwable e)
        {
            failed = e;
        }
        try
        {
            client.close();
        }
        catch (final RuntimeException e)
        {
            // a session replaced after a fence was never closed: its queue pair and region are still the domain's
            final AssertionFailedError closing = new AssertionFailedError("closing the client after the fences: " + e,
                e);
            if (failed != null)
            {
                closing.addSuppressed(failed);
            }
            throw closing;
        }
        if (failed != null)
        {
            throw failed;
        }
    }

    /**
     * {@code call}'s answer, called again after a lost connection (the first call on a session the node fenced;
     * "the next call reconnects") at most twice; any other failure fails the test.
     */
    private static <T> T reconnecting(final Supplier<T> call)
    {
        for (int attempt = 1; ; attempt++)
        {
            try
            {
                return call.get();
            }
            catch (final KvConnectionException e)
            {
                if (attempt == 3)
                {
                    throw e;
                }
            }
        }
    }

    private static byte[] bytes(final String s)
    {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
