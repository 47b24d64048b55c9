package io.rdmakv.systemtests.badinput;

import io.rdmakv.client.KvClient;
import io.rdmakv.client.OutOfSpaceException;
import io.rdmakv.common.layout.RegionGeometry;
import io.rdmakv.server.KvServer;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.systemtests.LocalCluster;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The smallest node's data area (two chunks of 256 KiB, 524288 bytes) fills before its index does when
 * values are large: the put that finds no space fails with OutOfSpaceException and writes nothing.
 */
class OutOfSpaceTest
{
    private static final int CHUNK = 1 << 18;
    private static final int VALUE = 200 * 1024;

    private KvServer server;
    private KvClient client;

    @BeforeEach
    void start()
    {
        // a session may hold the whole data area here (the default quota is a quarter): the node itself fills
        server = LocalCluster.startNode(ServerConfig.local(RegionGeometry.minimumMemory(CHUNK)).toBuilder()
            .chunkSize(CHUNK).graceNanos(TimeUnit.MILLISECONDS.toNanos(20)).sessionQuotaBytes(2L * CHUNK).build());
        client = LocalCluster.client(server);
        assertEquals(2L * CHUNK, server.geometry().dataLength());
    }

    @AfterEach
    void stop()
    {
        LocalCluster.closeAll(client, server);
    }

    private static byte[] key(final int i)
    {
        return LocalCluster.bytes("big" + i);
    }

    private static byte[] value(final int seed)
    {
        final byte[] v = new byte[VALUE];
        for (int i = 0; i < v.length; i++)
        {
            v[i] = (byte)(seed * 7 + i);
        }
        return v;
    }

    /** Puts 200 KiB values until the node has no space; returns the keys written and the one refused. */
    private List<Integer> fill()
    {
        final List<Integer> written = new ArrayList<>();
        for (int i = 0; i < 4; i++)
        {
            try
            {
                client.put(key(i), value(i));
                written.add(i);
            }
            catch (final OutOfSpaceException e)
            {
                assertEquals("put: node " + LocalCluster.address(server) + " has no data space left", e.getMessage());
                return written;
            }
        }
        throw new AssertionError("four values of " + VALUE + " bytes fit into " + 2 * CHUNK + " bytes");
    }

    @Test
    void putWithoutSpaceFailsAndWritesNothing()
    {
        final List<Integer> written = fill();
        final int refused = written.size();
        assertTrue(refused >= 1, "the first value fits");
        assertTrue(server.counters().allocFailures() > 0, "the node refused an ALLOC");
        assertNull(client.get(key(refused)), "the refused put wrote nothing");
        for (final int i : written)
        {
            assertArrayEquals(value(i), client.get(key(i)), "key big" + i);
        }
        assertTrue(client.delete(key(0)), "a delete needs no space");
        assertNull(client.get(key(0)));
    }

    @Test
    void twoValuesFitIntoTwoChunks()
    {
        assertEquals(2, fill().size(), "2 blocks of 204864 bytes in a data area of 524288");
    }

    @Test
    void deleteMakesRoomForAnotherValue()
    {
        final List<Integer> written = fill();
        final int refused = written.size();
        for (final int i : written)
        {
            assertTrue(client.delete(key(i)));
        }
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (true)
        {
            try
            {
                client.put(key(refused), value(refused));
                break;
            }
            catch (final OutOfSpaceException e)
            {
                if (System.nanoTime() - deadline > 0)
                {
                    throw new AssertionError("the deleted values' space never came back", e);
                }
                Thread.onSpinWait();
            }
        }
        assertArrayEquals(value(refused), client.get(key(refused)));
    }
}
