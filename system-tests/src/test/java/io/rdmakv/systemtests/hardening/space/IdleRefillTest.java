package io.rdmakv.systemtests.hardening.space;

import io.rdmakv.client.KvClient;
import io.rdmakv.client.OutOfSpaceException;
import io.rdmakv.common.layout.RegionGeometry;
import io.rdmakv.server.KvServer;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.systemtests.Await;
import io.rdmakv.systemtests.LocalCluster;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Deleted space comes back even when its client stops working: a node filled by one client, emptied by
 * it, and left idle for more than a second takes new values again, from the same
 * client and from a second one, without the first disconnecting.
 */
class IdleRefillTest
{
    private static final int CHUNK = 1 << 18;
    private static final int VALUE = 16 * 1024;

    private KvServer server;
    private KvClient first;
    private KvClient second;

    @AfterEach
    void stop()
    {
        LocalCluster.closeAll(second, first, server);
    }

    private static byte[] key(final String who, final int i)
    {
        return LocalCluster.bytes(who + "-" + i);
    }

    private static byte[] value(final int seed)
    {
        final byte[] v = new byte[VALUE];
        java.util.Arrays.fill(v, (byte)seed);
        return v;
    }

    @Test
    void aNodeFilledEmptiedAndIdledTakesNewValuesFromTheSameClientAndAnother() throws Exception
    {
        final long memory = RegionGeometry.minimumMemory(CHUNK) + 6L * CHUNK;
        server = LocalCluster.startNode(ServerConfig.local(memory).toBuilder().chunkSize(CHUNK)
            .graceNanos(TimeUnit.MILLISECONDS.toNanos(20)).sessionQuotaBytes(memory).build());
        first = LocalCluster.client(server);
        int filled = 0;
        try
        {
            while (filled < 10_000)
            {
                first.put(key("fill", filled), value(filled));
                filled++;
            }
        }
        catch (final OutOfSpaceException e)
        {
            assertTrue(e.getMessage().contains("has no data space left"), e.getMessage());
        }
        assertTrue(filled > 40, filled + " values filled the node");
        for (int i = 0; i < filled; i++)
        {
            assertTrue(first.delete(key("fill", i)));
        }
        TimeUnit.MILLISECONDS.sleep(1_500); // idle: the first client sends nothing for 1.5 s

        final int deleted = filled;
        Await.until("the deleted space is free again", Duration.ofSeconds(5),
            () -> server.freeBytes() >= (long)(deleted - 10) * VALUE);
        second = LocalCluster.client(server);
        final int half = filled / 2 - 10; // each client may leave most of one extent unused at the end
        for (int i = 0; i < half; i++)
        {
            second.put(key("second", i), value(i));
            first.put(key("again", i), value(i + 1));
        }
        for (int i = 0; i < half; i++)
        {
            assertArrayEquals(value(i), first.get(key("second", i)));
            assertArrayEquals(value(i + 1), second.get(key("again", i)));
        }
        assertEquals(0, first.stats().droppedFrees(), "no FREE was given up");
    }
}
