package io.rdmakv.systemtests.badinput;

import io.rdmakv.client.KvClient;
import io.rdmakv.client.KvConnectionException;
import io.rdmakv.client.KvException;
import io.rdmakv.server.KvServer;
import io.rdmakv.server.config.MemoryWindowMode;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.systemtests.LocalCluster;
import io.rdmakv.systemtests.peer.RegionView;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A node with a victim key among neighbours, and the checks the corruption tests share: a GET of the
 * victim fails with a plain KvException after bounded retries (never wrong bytes, never a broken
 * lane), and every neighbour still reads fine without a reconnect.
 */
abstract class CorruptionFixture
{
    /** Longer than this for a GET that ends in a corruption verdict is worth reporting. */
    private static final long SLOW_VERDICT_MS = 2_000;
    private static final int NEIGHBOURS = 200;

    KvServer server;
    KvClient writer;
    RegionView view;
    final byte[] key = LocalCluster.bytes("victim");
    final byte[] value = LocalCluster.bytes("the value whose bytes a bad DIMM flips: " + "0123456789".repeat(8));

    @BeforeEach
    void start()
    {
        // the damage stands for a stray WRITE of a buggy client: possible only on a node without memory windows
        // (with them, WriteWindowsTest shows such a WRITE refused); a bad DIMM does the same on any node
        server = LocalCluster.startNode(ServerConfig.local(LocalCluster.NODE_MEMORY)
            .withMemoryWindows(MemoryWindowMode.OFF));
        writer = LocalCluster.client(server);
        for (int i = 0; i < NEIGHBOURS; i++)
        {
            writer.put(neighbour(i), neighbourValue(i));
        }
        writer.put(key, value);
        view = new RegionView(server);
    }

    @AfterEach
    void stop()
    {
        LocalCluster.closeAll(view, writer, server);
    }

    private static byte[] neighbour(final int i)
    {
        return LocalCluster.bytes("neighbour-" + i);
    }

    private static byte[] neighbourValue(final int i)
    {
        return LocalCluster.bytes("neighbour value " + i);
    }

    /** GETs the victim with {@code client}: must fail with a plain KvException, never return bytes. */
    long getFails(final KvClient client)
    {
        final long errors = client.stats().errors();
        final long start = System.nanoTime();
        final KvException e = assertThrows(KvException.class, () ->
        {
            final byte[] got = client.get(key);
            throw new AssertionError("a corrupted block was returned: " + (got == null ? "null (absent)" :
                new String(got)));
        });
        final long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertFalse(e instanceof KvConnectionException, "the lane stays up: " + e);
        assertInstanceOf(io.rdmakv.client.CorruptedBlockException.class, e, "a damaged block is named as such");
        assertTrue(e.getMessage().startsWith("get: ") && e.getMessage().contains("damaged") &&
            e.getMessage().contains("node " + LocalCluster.address(server)), e.getMessage());
        assertEquals(errors + 1, client.stats().errors());
        return millis;
    }

    void othersReadFine(final KvClient client)
    {
        final long reconnects = settledSessionsOpened();
        for (int i = 0; i < NEIGHBOURS; i++)
        {
            assertArrayEquals(neighbourValue(i), client.get(neighbour(i)), "neighbour " + i);
        }
        assertEquals(reconnects, settledSessionsOpened(), "no reconnect was needed");
    }

    void report(final String what, final long millis)
    {
        System.out.printf("corrupted %s: failing GET took %d ms%s%n", what, millis,
            millis > SLOW_VERDICT_MS ? " (SLOW: over " + SLOW_VERDICT_MS + " ms)" : "");
    }

    /**
     * Sessions opened, once the node's counters caught up with its registrations (the control agent counts
     * a registration on its own thread, a moment after it).
     */
    private long settledSessionsOpened()
    {
        final long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(5);
        while (server.counters().sessionsOpened() - server.counters().sessionsClosed() != server.sessionCount() &&
            System.nanoTime() < deadline)
        {
            Thread.onSpinWait();
        }
        return server.counters().sessionsOpened();
    }
}
