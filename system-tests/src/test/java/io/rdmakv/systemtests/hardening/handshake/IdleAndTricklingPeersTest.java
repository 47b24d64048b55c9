package io.rdmakv.systemtests.hardening.handshake;

import io.rdmakv.client.KvClient;
import io.rdmakv.common.protocol.ControlCodec;
import io.rdmakv.common.protocol.HelloMessage;
import io.rdmakv.server.KvServer;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.systemtests.LocalCluster;
import io.rdmakv.systemtests.peer.RawSession;
import io.rdmakv.verbs.QueuePairEndpoint;
import io.rdmakv.verbs.VerbsConfig;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * An idle and a trickling connection to every port a node opens (its bootstrap port and its {@code tcp}
 * provider's port) stall nobody: a client already connected keeps doing puts and gets, and new clients
 * (new sessions, whose queue pairs connect through the provider's port) open and work, each operation
 * within the client's own timeout. The provider's port closes its bad peers at the handshake deadline.
 */
class IdleAndTricklingPeersTest
{
    private static final Duration TRICKLE_PAUSE = Duration.ofMillis(300);
    private static final Duration ROUND_PAUSE = Duration.ofMillis(200);
    private static final long HANDSHAKE_DEADLINE_MS = VerbsConfig.DEFAULT_HANDSHAKE_TIMEOUT_MS;

    @Test
    void badPeersOnEveryPortStallNoClient() throws Exception
    {
        assumeTrue("tcp".equals(LocalCluster.TRANSPORT), "the tcp provider's port is what this test attacks");
        // Every fresh client takes a chunk that waits out a quarantine after it closes: room for all of them.
        final KvServer server = LocalCluster.startNode(ServerConfig.local(128L << 20));
        try (server; KvClient steady = LocalCluster.client(server))
        {
            steady.put(LocalCluster.bytes("steady"), LocalCluster.bytes("v0"));
            final int bootstrapPort = server.port();
            final int devicePort;
            try (RawSession probe = new RawSession(bootstrapPort))
            {
                devicePort = probe.hello().serverEndpoint().port();
            }
            final byte[] hello = ControlCodec.toBytes(new HelloMessage(1, new byte[0],
                QueuePairEndpoint.tcp(1, 2, "127.0.0.1", 3, 4)));
            final List<BadPeer> devicePeers = new ArrayList<>();
            final List<BadPeer> all = new ArrayList<>();
            try
            {
                all.add(BadPeer.idle(bootstrapPort));
                all.add(BadPeer.trickling(bootstrapPort, hello, TRICKLE_PAUSE));
                devicePeers.add(BadPeer.idle(devicePort));
                devicePeers.add(BadPeer.trickling(devicePort, BadPeer.tcpHello(1, 2, 3), TRICKLE_PAUSE));
                all.addAll(devicePeers);
                devicePeers.forEach(BadPeer::closedAfterMs);

                final long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(HANDSHAKE_DEADLINE_MS + 1_000);
                final int[] rounds = {0};
                assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
                {
                    while (rounds[0] < 3 || System.nanoTime() - until < 0)
                    {
                        final byte[] key = LocalCluster.bytes("k" + rounds[0]);
                        final byte[] value = LocalCluster.bytes("value " + rounds[0]);
                        try (KvClient fresh = LocalCluster.client(server))
                        {
                            fresh.put(key, value);
                            assertArrayEquals(value, fresh.get(key), "a new client reads its write");
                        }
                        steady.put(LocalCluster.bytes("steady"), value);
                        assertArrayEquals(value, steady.get(key), "the connected client reads it too");
                        rounds[0]++;
                        Thread.sleep(ROUND_PAUSE);
                    }
                }, "clients kept working while bad peers held both ports");

                for (final BadPeer peer : devicePeers)
                {
                    final long ms = peer.closedAfterMs().get(20, TimeUnit.SECONDS);
                    assertTrue(ms >= HANDSHAKE_DEADLINE_MS - 100 && ms <= HANDSHAKE_DEADLINE_MS + 5_000,
                        "the provider's port closed a bad peer " + ms + " ms after it connected, deadline " +
                        HANDSHAKE_DEADLINE_MS + " ms");
                }
                assertTrue(server.rejectedConnections() >= 2, "counted: " + server.rejectedConnections());
            }
            finally
            {
                LocalCluster.closeAll(all.toArray(AutoCloseable[]::new));
            }
        }
    }
}
