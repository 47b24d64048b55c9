package io.rdmakv.systemtests.faults;

import io.rdmakv.client.KvClient;
import io.rdmakv.client.KvConnectionException;
import io.rdmakv.client.KvException;
import io.rdmakv.server.KvServer;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.server.control.ServerCounters;
import io.rdmakv.systemtests.Await;
import io.rdmakv.systemtests.ClusterFiles;
import io.rdmakv.systemtests.LocalCluster;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The node drops a working client's session because the session's bootstrap connection (its lease)
 * broke: a relay in front of the node's port cuts it. The client's queue pair is torn down by the node;
 * the client reports the loss once, reconnects on the next call, and loses no acknowledged write.
 */
class DroppedConnectionTest
{
    @TempDir
    Path dir;

    private LeaseProxy proxy;
    private KvServer server;
    private KvClient client;
    private String nodeAddress;

    @BeforeEach
    void start()
    {
        proxy = new LeaseProxy();
        server = LocalCluster.startNode(ServerConfig.local(LocalCluster.NODE_MEMORY).withCluster(0,
            ClusterFiles.write(dir, proxy.port())).withAdvertise("127.0.0.1", proxy.port()));
        proxy.start(server.port());
        nodeAddress = "127.0.0.1:" + proxy.port();
        client = KvClient.connect(LocalCluster.clientConfig(nodeAddress).withOpTimeout(Duration.ofSeconds(3)));
    }

    @AfterEach
    void stop()
    {
        LocalCluster.closeAll(client, server, proxy);
    }

    private static byte[] key(final String prefix, final int i)
    {
        return LocalCluster.bytes(prefix + i);
    }

    private static byte[] value(final String prefix, final int i, final int version)
    {
        return LocalCluster.bytes(prefix + "-value-" + i + "-v" + version + "-" + "x".repeat(i % 50));
    }

    /** Waits until only the lane's session and lease remain (the seed session of connect() becomes the lane). */
    private void awaitOneLease()
    {
        // Relays close on their own time: wait until one session and one lease hold steadily.
        final int[] steady = {0};
        Await.until("one session and one lease", Duration.ofSeconds(5),
            () -> (steady[0] = server.sessionCount() == 1 && proxy.openConnections() == 1 ? steady[0] + 1 : 0) >= 10,
            () -> server.sessionCount() + " sessions, " + proxy.openConnections() + " leases");
    }

    @Test
    void nextOperationFailsOnceThenTheClientReconnects()
    {
        for (int i = 0; i < 200; i++)
        {
            client.put(key("a", i), value("a", i, 1));
        }
        final ServerCounters counters = server.counters();
        final long opened = counters.sessionsOpened();
        final long closed = counters.sessionsClosed();
        awaitOneLease();

        assertEquals(1, proxy.dropAll(), "one lease: the lane's (the seed session, taken over)");
        Await.until("the node drops the session", Duration.ofSeconds(5),
            () -> server.sessionCount() == 0 && counters.sessionsClosed() == closed + 1,
            () -> server.sessionCount() + " sessions, " + counters.sessionsClosed() + " closed");

        final KvConnectionException lost = assertThrows(KvConnectionException.class,
            () -> client.get(key("a", 7)));
        assertTrue(lost.getMessage().contains("lost the connection to node " + nodeAddress), lost.getMessage());

        assertArrayEquals(value("a", 7, 1), client.get(key("a", 7)), "the next call reconnects");
        // The node counts an opened session on its control agent's thread, after the session already serves.
        Await.until("the node counts the new session", Duration.ofSeconds(5),
            () -> counters.sessionsOpened() > opened, () -> counters.sessionsOpened() + " opened");
        assertEquals(opened + 1, counters.sessionsOpened(), "one new session");
        client.put(key("a", 7), value("a", 7, 2));
        for (int i = 0; i < 200; i++)
        {
            assertArrayEquals(value("a", i, i == 7 ? 2 : 1), client.get(key("a", i)), "key a" + i);
        }
    }

    @Test
    void inFlightWritesFailAtMostOnceAndAcknowledgedOnesSurvive() throws Exception
    {
        final AtomicInteger acked = new AtomicInteger();
        final List<Integer> failed = new ArrayList<>();
        final List<String> failures = new ArrayList<>();
        final int maxPuts = 20_000;
        final CompletableFuture<Integer> writer = CompletableFuture.supplyAsync(() ->
        {
            int i = 0;
            while (i < maxPuts && (failed.isEmpty() || i < failed.getFirst() + 100))
            {
                try
                {
                    client.put(key("w", i), value("w", i, 1));
                    acked.incrementAndGet();
                }
                catch (final KvException e)
                {
                    failed.add(i);
                    failures.add(e.getClass().getSimpleName() + ": " + e.getMessage());
                }
                i++;
            }
            return i;
        });
        Await.until("the writer is under way", Duration.ofSeconds(10), () -> acked.get() >= 100 || writer.isDone());
        awaitOneLease();
        final long closed = server.counters().sessionsClosed();
        assertEquals(1, proxy.dropAll(), "the writer's lease");
        final int puts = writer.get(30, TimeUnit.SECONDS);
        assertTrue(server.counters().sessionsClosed() > closed, "the node dropped the writer's session");

        assertEquals(1, failed.size(), "exactly one put fails (the one that met the dropped session): " + failures);
        assertTrue(failures.getFirst().startsWith("KvConnectionException: put: lost the connection to node " +
            nodeAddress), failures.getFirst());
        assertEquals(puts - 1, acked.get());
        final int lost = failed.getFirst();
        for (int i = 0; i < puts; i++)
        {
            final byte[] got = client.get(key("w", i));
            if (i == lost)
            {
                if (got != null)
                {
                    assertArrayEquals(value("w", i, 1), got, "a failed put took effect whole or not at all");
                }
            }
            else if (got == null)
            {
                fail("acknowledged put of w" + i + " lost");
            }
            else
            {
                assertArrayEquals(value("w", i, 1), got, "key w" + i);
            }
        }
    }
}
