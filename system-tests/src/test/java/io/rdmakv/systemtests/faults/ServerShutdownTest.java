package io.rdmakv.systemtests.faults;

import io.rdmakv.client.KvClient;
import io.rdmakv.client.KvConnectionException;
import io.rdmakv.client.KvException;
import io.rdmakv.server.KvServer;
import io.rdmakv.systemtests.Await;
import io.rdmakv.systemtests.LocalCluster;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A node shuts down with clients connected, one idle and one busy writing: close() is bounded, and both
 * clients learn it from a KvConnectionException that names the node and says it is shutting down (the
 * node's SHUTDOWN notice), rather than from a hang or a timeout.
 */
class ServerShutdownTest
{
    private KvServer server;
    private KvClient idle;
    private KvClient busy;

    @AfterEach
    void stop()
    {
        LocalCluster.closeAll(idle, busy, server);
    }

    @Test
    void closeIsBoundedAndConnectedClientsFailNamingTheNode() throws Exception
    {
        server = LocalCluster.startNode();
        final String node = LocalCluster.address(server);
        idle = KvClient.connect(LocalCluster.clientConfig(node).withOpTimeout(Duration.ofSeconds(2)));
        busy = KvClient.connect(LocalCluster.clientConfig(node).withOpTimeout(Duration.ofSeconds(2)));
        idle.put(LocalCluster.bytes("idle"), LocalCluster.bytes("before"));
        final AtomicInteger puts = new AtomicInteger();
        final CompletableFuture<KvException> writer = CompletableFuture.supplyAsync(() ->
        {
            while (true)
            {
                try
                {
                    busy.put(LocalCluster.bytes("busy" + puts.get() % 500), LocalCluster.bytes("v" + puts.get()));
                    puts.incrementAndGet();
                }
                catch (final KvException e)
                {
                    return e;
                }
            }
        });
        Await.until("the busy client is writing", Duration.ofSeconds(10), () -> puts.get() >= 50 || writer.isDone());
        Await.until("two lanes: each client's seed session, taken over by the thread using it",
            Duration.ofSeconds(5), () -> server.sessionCount() == 2, () -> server.sessionCount() + " sessions");

        final long start = System.nanoTime();
        server.close();
        final long closeMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(closeMillis < 3_000, "close() took " + closeMillis + " ms");
        server.close();

        final KvException busyFailure = writer.get(5, TimeUnit.SECONDS);
        assertEquals(KvConnectionException.class, busyFailure.getClass(), busyFailure.toString());
        assertTrue(busyFailure.getMessage().contains("node " + node + " is shutting down"), busyFailure.getMessage());

        final KvConnectionException idleFailure = assertThrows(KvConnectionException.class,
            () -> idle.get(LocalCluster.bytes("idle")));
        final String message = idleFailure.getMessage();
        assertTrue(message.contains("node " + node + " is shutting down"), "the SHUTDOWN notice came 100 ms before " +
            "the teardown: " + message);
        final KvConnectionException again = assertThrows(KvConnectionException.class,
            () -> idle.get(LocalCluster.bytes("idle")));
        assertTrue(again.getMessage().contains("cannot open a session with node " + node), again.getMessage());
        System.out.printf("shutdown: close() %d ms; busy client: %s; idle client: %s%n", closeMillis,
            busyFailure.getMessage(), message);
    }
}
