package io.rdmakv.systemtests.faults;

import io.rdmakv.client.KvClient;
import io.rdmakv.client.KvConnectionException;
import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.hash.KeyHash;
import io.rdmakv.server.KvServer;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.systemtests.Await;
import io.rdmakv.systemtests.ClusterFiles;
import io.rdmakv.systemtests.LocalCluster;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One node of three stops: the client fails fast, naming that node, for its keys, and keeps serving the
 * keys of the other two.
 */
class NodeStoppedTest
{
    private static final int NODES = 3;
    private static final int KEYS = 90;
    private static final Duration OP_TIMEOUT = Duration.ofSeconds(1);

    @TempDir
    Path dir;

    private final KvServer[] servers = new KvServer[NODES];
    private int[] ports;
    private KvClient client;

    @AfterEach
    void stop()
    {
        LocalCluster.closeAll(client);
        LocalCluster.closeAll(servers);
    }

    /** Starts three nodes on ports picked in advance (the map must list them); retries a lost port race. */
    private void startCluster()
    {
        for (int attempt = 1; ; attempt++)
        {
            ports = ClusterFiles.freePorts(NODES);
            final Path map = ClusterFiles.write(dir, ports);
            try
            {
                for (int id = 0; id < NODES; id++)
                {
                    servers[id] = LocalCluster.startNode(ServerConfig.local(8L << 20).withCluster(id, map)
                        .withListen("127.0.0.1", ports[id]));
                }
                return;
            }
            catch (final UncheckedIOException e)
            {
                LocalCluster.closeAll(servers);
                if (attempt == 3)
                {
                    throw e;
                }
            }
        }
    }

    private static byte[] key(final int i)
    {
        return LocalCluster.bytes("node-key-" + i);
    }

    private static byte[] value(final int i, final int version)
    {
        return LocalCluster.bytes("value of node-key-" + i + " v" + version);
    }

    @Test
    void keysOfTheStoppedNodeFailFastAndTheOthersKeepWorking()
    {
        startCluster();
        client = KvClient.connect(LocalCluster.clientConfig("127.0.0.1:" + ports[0]).withOpTimeout(OP_TIMEOUT)
            .withConnectTimeout(OP_TIMEOUT));
        final ClusterMap map = client.clusterMap();
        assertEquals(NODES, map.nodes().size(), "the client learnt the whole map from node 0");
        final List<List<Integer>> keysByNode = new ArrayList<>();
        for (int id = 0; id < NODES; id++)
        {
            keysByNode.add(new ArrayList<>());
        }
        for (int i = 0; i < KEYS; i++)
        {
            client.put(key(i), value(i, 1));
            keysByNode.get(map.nodeForKeyHash(KeyHash.hash(key(i))).id()).add(i);
        }
        for (int id = 0; id < NODES; id++)
        {
            assertTrue(keysByNode.get(id).size() >= 10, "node " + id + " holds " + keysByNode.get(id).size() +
                " of the keys");
            final KvServer node = servers[id];
            Await.until("the client has one lane to node " + id, Duration.ofSeconds(5),
                () -> node.sessionCount() == 1, () -> node.sessionCount() + " sessions");
        }

        final long stopStart = System.nanoTime();
        servers[1].close();
        final long stopMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stopStart);
        assertTrue(stopMillis < 3_000, "node 1 stopped in " + stopMillis + " ms");

        final String node1 = "127.0.0.1:" + ports[1];
        final List<Integer> lostKeys = keysByNode.get(1);
        final String first = failsFast(() -> client.get(key(lostKeys.get(0))), node1);
        assertTrue(first.contains("node " + node1 + " is shutting down"), first);
        final String reconnect = failsFast(() -> client.get(key(lostKeys.get(1))), node1);
        assertTrue(reconnect.contains("cannot open a session"), reconnect);
        failsFast(() -> client.put(key(lostKeys.get(2)), value(lostKeys.get(2), 2)), node1);
        failsFast(() -> client.delete(key(lostKeys.get(3))), node1);

        for (final int id : new int[] {0, 2})
        {
            for (final int i : keysByNode.get(id))
            {
                assertArrayEquals(value(i, 1), client.get(key(i)), "key " + i + " of node " + id);
                client.put(key(i), value(i, 2));
            }
        }
        for (int i = KEYS; i < KEYS + 30; i++)
        {
            final int owner = map.nodeForKeyHash(KeyHash.hash(key(i))).id();
            if (owner != 1)
            {
                client.put(key(i), value(i, 1));
                assertArrayEquals(value(i, 1), client.get(key(i)), "new key " + i + " on node " + owner);
            }
        }
        for (final int id : new int[] {0, 2})
        {
            for (final int i : keysByNode.get(id))
            {
                assertArrayEquals(value(i, 2), client.get(key(i)), "updated key " + i + " of node " + id);
            }
        }
    }

    /** Runs an operation that must fail with KvConnectionException naming {@code node} within the op timeout. */
    private static String failsFast(final Executable operation, final String node)
    {
        final long start = System.nanoTime();
        final KvConnectionException e = assertThrows(KvConnectionException.class, operation);
        final long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(millis <= OP_TIMEOUT.toMillis() + 500, "failed after " + millis + " ms: " + e.getMessage());
        assertTrue(e.getMessage().contains(node), "names the node " + node + ": " + e.getMessage());
        return e.getMessage();
    }
}
