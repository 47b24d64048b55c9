package io.rdmakv.systemtests.hardening.space;

import io.rdmakv.client.KvClient;
import io.rdmakv.client.OutOfSpaceException;
import io.rdmakv.server.KvServer;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.server.control.ServerCounter;
import io.rdmakv.systemtests.LocalCluster;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One session exhausts its quota (the default: a quarter of the data area) while another keeps writing:
 * the greedy one gets an OutOfSpaceException that names its quota, the other is never refused.
 */
class SessionQuotaTest
{
    private static final int VALUE = 8 * 1024;

    private KvServer server;
    private KvClient greedy;
    private KvClient modest;

    @AfterEach
    void stop()
    {
        LocalCluster.closeAll(modest, greedy, server);
    }

    @Test
    void quotaExhaustionByOneSessionWhileAnotherStillWrites() throws Exception
    {
        server = LocalCluster.startNode(ServerConfig.local(LocalCluster.MEMORY));
        final long quota = server.config().sessionQuotaFor(server.geometry().dataLength());
        greedy = LocalCluster.client(server);
        modest = LocalCluster.client(server);
        final AtomicBoolean stop = new AtomicBoolean();
        final AtomicInteger modestPuts = new AtomicInteger();
        final CompletableFuture<Void> writer = CompletableFuture.runAsync(() ->
        {
            final byte[] v = new byte[512];
            while (!stop.get())
            {
                final int i = modestPuts.getAndIncrement();
                modest.put(LocalCluster.bytes("modest-" + (i % 500)), v);
            }
        });
        int written = 0;
        OutOfSpaceException refused = null;
        try
        {
            while (written < 100_000)
            {
                greedy.put(LocalCluster.bytes("greedy-" + written), new byte[VALUE]);
                written++;
            }
        }
        catch (final OutOfSpaceException e)
        {
            refused = e;
        }
        TimeUnit.MILLISECONDS.sleep(200);
        stop.set(true);
        writer.get(30, TimeUnit.SECONDS);

        assertTrue(refused != null, "the greedy session was refused after " + written + " values");
        assertTrue(refused.getMessage().contains("this session's quota") &&
            refused.getMessage().contains("session quota of " + quota + " bytes"), refused.getMessage());
        assertTrue((long)written * VALUE <= quota, written + " values of " + VALUE + " within a quota of " + quota);
        assertTrue((long)written * VALUE > quota / 2, "most of the quota was usable: " + written);
        assertTrue(server.counters().get(ServerCounter.ALLOCS_REFUSED_QUOTA) >= 1);
        assertTrue(server.freeBytes() > quota, "the node itself is far from full: " + server.freeBytes());
        assertTrue(modestPuts.get() > 100, "the other session kept writing: " + modestPuts.get());
        assertNull(greedy.get(LocalCluster.bytes("greedy-" + written)), "the refused put wrote nothing");
        assertArrayEquals(new byte[VALUE], greedy.get(LocalCluster.bytes("greedy-0")));
        modest.put(LocalCluster.bytes("after"), new byte[VALUE]);
        assertEquals(VALUE, modest.get(LocalCluster.bytes("after")).length);
    }
}
