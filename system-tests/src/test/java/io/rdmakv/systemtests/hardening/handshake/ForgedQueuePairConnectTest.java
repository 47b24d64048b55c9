package io.rdmakv.systemtests.hardening.handshake;

import io.rdmakv.client.KvClient;
import io.rdmakv.server.KvServer;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.systemtests.ClusterFiles;
import io.rdmakv.systemtests.LocalCluster;
import io.rdmakv.verbs.QueuePairEndpoint;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A peer that knows everything about a real client's session except the secrets (queue pair numbers,
 * the node's provider port, the client's device port: what the bootstrap shows an eavesdropper, or what
 * sequential numbers would give away) connects to the session's queue pairs in the window before the
 * client does. The node and the client refuse it, the node counts it, and the client connects and works.
 */
class ForgedQueuePairConnectTest
{
    @TempDir
    Path dir;

    private HelloTap tap;
    private KvServer server;
    private CompletableFuture<KvClient> connecting;

    @AfterEach
    void stop() throws Exception
    {
        if (tap != null)
        {
            tap.release();
        }
        final KvClient client = connecting == null ? null : connecting.handle((c, e) -> c).get(20, TimeUnit.SECONDS);
        LocalCluster.closeAll(client, server, tap);
    }

    @Test
    void aConnectWithoutTheSecretIsRefusedAndTheClientWorks() throws Exception
    {
        assumeTrue("tcp".equals(LocalCluster.TRANSPORT), "the tcp provider's handshake is what this test forges");
        tap = new HelloTap();
        server = LocalCluster.startNode(ServerConfig.local(LocalCluster.NODE_MEMORY).withCluster(0,
            ClusterFiles.write(dir, tap.port())).withAdvertise("127.0.0.1", tap.port()));
        tap.start(server.port());
        final String address = "127.0.0.1:" + tap.port();
        connecting = CompletableFuture.supplyAsync(() -> KvClient.connect(LocalCluster.clientConfig(address)));

        final QueuePairEndpoint node = tap.nodeEndpoint().get(20, TimeUnit.SECONDS);
        final QueuePairEndpoint client = tap.clientEndpoint().get(20, TimeUnit.SECONDS);
        final long rejected = server.rejectedConnections();

        assertNotEquals(BadPeer.TCP_OK, BadPeer.forgeConnect(node.host(), node.port(),
            BadPeer.tcpHello(node.qpNum(), client.qpNum(), node.secret() ^ 0x5a5a)),
            "the node's queue pair refuses a wrong secret, its numbers right");
        assertNotEquals(BadPeer.TCP_OK, BadPeer.forgeConnect(node.host(), node.port(),
            BadPeer.tcpHello(node.qpNum(), client.qpNum(), 0)), "and no secret");
        assertEquals(rejected + 2, server.rejectedConnections(), "the node counts both");
        assertNotEquals(BadPeer.TCP_OK, BadPeer.forgeConnect(client.host(), client.port(),
            BadPeer.tcpHello(client.qpNum(), node.qpNum(), client.secret() ^ 0x5a5a)),
            "the client's queue pair refuses a wrong secret too");

        tap.release();
        final KvClient kv = connecting.get(20, TimeUnit.SECONDS);
        for (int i = 0; i < 50; i++)
        {
            kv.put(LocalCluster.bytes("key" + i), LocalCluster.bytes("value" + i));
        }
        for (int i = 0; i < 50; i++)
        {
            assertArrayEquals(LocalCluster.bytes("value" + i), kv.get(LocalCluster.bytes("key" + i)));
        }
    }
}
