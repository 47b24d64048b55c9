package io.rdmakv.server.replication;

import io.rdmakv.client.KvClient;
import io.rdmakv.client.KvClientConfig;
import io.rdmakv.common.layout.RegionGeometry;
import io.rdmakv.server.KvServer;
import io.rdmakv.server.config.ServerConfig;
import org.agrona.concurrent.NanoClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A chunk that takes longer than half the grace period is redone, and what its slow attempt installed is copied
 * again; a group that stays too slow has what it installed cleared and counted as skipped, never left behind.
 * Slowness is a clock that jumps by a grace period between the index READ and the end of chosen attempts, so
 * the tests do not depend on how fast this machine is. Small tcp nodes (1 MiB, 256 KiB chunks: 1024 groups). And
 * closing the copier stops a pass in progress.
 */
class RegionCopierRedoTest
{
    private static final long MEMORY = 1L << 20;
    private static final int CHUNK = 256 * 1024;
    private static final int KEYS = 150;
    private static final long GRACE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private KvServer a;
    private KvServer b;
    private final Map<String, byte[]> expected = new HashMap<>();

    @BeforeEach
    void start() throws IOException
    {
        a = node();
        b = node();
        final SplittableRandom random = new SplittableRandom(7);
        try (KvClient client = client(a))
        {
            for (int i = 0; i < KEYS; i++)
            {
                final byte[] value = new byte[random.nextInt(10, 1000)];
                random.nextBytes(value);
                client.put(key(i), value);
                expected.put("key-" + i, value);
            }
        }
    }

    @AfterEach
    void stop()
    {
        if (b != null)
        {
            b.close();
        }
        if (a != null)
        {
            a.close();
        }
    }

    @Test
    void slowChunksAreRedoneAndCopyAgainWhatTheyInstalled()
    {
        final RegionCopier copier = b.regionCopier();
        copier.clock(new SlowAttempts(3));
        final CopyReport report = copier.pass(primary());
        assertEquals(3, report.chunksRedone(), report.toString());
        assertEquals(0, report.skippedBlocks(), report.toString());
        assertEquals(KEYS, report.slotsChanged(), report.toString());
        assertTrue(report.blocksCopied() > KEYS, "the slow attempts' copies are made again: " + report);
        readsEveryKey();

        copier.clock(System::nanoTime);
        final CopyReport again = copier.pass(primary());
        assertTrue(again.converged(), again.toString());
        assertEquals(0, again.chunksRedone(), again.toString());
    }

    @Test
    void groupsThatStayTooSlowHaveTheirCopiesClearedAndCounted() throws IOException
    {
        final RegionCopier copier = b.regionCopier();
        copier.clock(new SlowAttempts(-1));
        final CopyReport report = copier.pass(primary());
        assertEquals(KEYS, report.skippedBlocks(), report.toString());
        assertTrue(report.chunksRedone() > 0, report.toString());
        try (KvClient client = client(b))
        {
            for (int i = 0; i < KEYS; i++)
            {
                assertNull(client.get(key(i)), "key-" + i + " was given up: its slot is empty");
            }
        }
        assertEquals(0, b.usedSlots());

        copier.clock(System::nanoTime);
        final CopyReport again = copier.pass(primary());
        assertEquals(KEYS, again.blocksCopied(), again.toString());
        readsEveryKey();
    }

    @Test
    void closeStopsAPassAtItsNextChunk() throws Exception
    {
        final RegionCopier copier = b.regionCopier();
        final CountDownLatch inPass = new CountDownLatch(1);
        copier.clock(() ->
        {
            if (inPass.getCount() > 0)
            {
                inPass.countDown();
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(500)); // the close comes meanwhile
            }
            return System.nanoTime();
        });
        final CompletableFuture<CopyReport> pass = CompletableFuture.supplyAsync(() -> copier.pass(primary()));
        inPass.await();
        copier.close();
        final ExecutionException e = assertThrows(ExecutionException.class, () -> pass.get(10, TimeUnit.SECONDS));
        assertInstanceOf(CopyFailedException.class, e.getCause());
        assertTrue(e.getCause().getMessage().contains("stopped"), e.getCause().getMessage());
        assertThrows(IllegalStateException.class, () -> copier.pass(primary()));
    }

    private void readsEveryKey()
    {
        try (KvClient client = client(b))
        {
            for (final Map.Entry<String, byte[]> e : expected.entrySet())
            {
                assertArrayEquals(e.getValue(), client.get(e.getKey().getBytes(StandardCharsets.UTF_8)), e.getKey());
            }
        }
    }

    private static KvServer node() throws IOException
    {
        return KvServer.start(ServerConfig.local(MEMORY).toBuilder().chunkSize(CHUNK).graceNanos(GRACE_NANOS)
            .sessionQuotaBytes(RegionGeometry.forMemory(MEMORY, CHUNK).dataLength()).build());
    }

    private static KvClient client(final KvServer server)
    {
        return KvClient.connect(KvClientConfig.of("127.0.0.1:" + server.port()).withTransport("tcp"));
    }

    private InetSocketAddress primary()
    {
        return new InetSocketAddress("127.0.0.1", a.port());
    }

    private static byte[] key(final int i)
    {
        return ("key-" + i).getBytes(StandardCharsets.UTF_8);
    }

    /**
     * The system clock, jumping a grace period forward at the end of each of the next {@code slow} attempts (all,
     * when negative). An attempt reads the clock twice: when it posts the index READ and after its last write.
     */
    private static final class SlowAttempts implements NanoClock
    {
        private int slow;
        private boolean atEnd;
        private long offset;

        SlowAttempts(final int slow)
        {
            this.slow = slow;
        }

        @Override
        public long nanoTime()
        {
            if (atEnd && slow != 0)
            {
                slow--;
                offset += GRACE_NANOS;
            }
            atEnd = !atEnd;
            return System.nanoTime() + offset;
        }
    }
}
