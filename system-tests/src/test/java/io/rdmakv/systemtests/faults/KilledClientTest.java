package io.rdmakv.systemtests.faults;

import io.rdmakv.client.KvClient;
import io.rdmakv.common.SpaceTiming;
import io.rdmakv.server.KvServer;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.server.control.ServerCounters;
import io.rdmakv.systemtests.Await;
import io.rdmakv.systemtests.LocalCluster;
import io.rdmakv.systemtests.peer.RegionView;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A client JVM SIGKILLed in the middle of PUTs: what it was told is durable, the server notices it is
 * gone, and the space it held but no slot references comes back after the quarantine.
 */
class KilledClientTest
{
    private static final int ACKS_BEFORE_KILL = 300;
    private static final int MAX_PUTS = 20_000;
    private static final long GRACE_NANOS = TimeUnit.MILLISECONDS.toNanos(20);
    private static final Pattern ACK = Pattern.compile("ACK (\\d+) \\.");

    @TempDir
    Path dir;

    private KvServer server;

    @AfterEach
    void stop()
    {
        LocalCluster.closeAll(server);
    }

    @Test
    void ackedPutsSurviveAndTheDeadClientsSpaceIsReclaimed() throws InterruptedException
    {
        server = LocalCluster.startNode(ServerConfig.local(32L << 20).withGraceNanos(GRACE_NANOS));
        final long freeBefore = server.freeBytes();
        final ServerCounters counters = server.counters();

        final int lastAck;
        final long byesBeforeKill;
        final long closedBeforeKill;
        try (ChildJvm child = ChildJvm.start(PutterMain.class, dir, LocalCluster.address(server),
            Integer.toString(MAX_PUTS)))
        {
            assertEquals("READY", child.nextLine(20_000), "child's first line; stderr: " + child.stderr());
            int acked = -1;
            while (acked < ACKS_BEFORE_KILL - 1)
            {
                acked = expectAck(child.nextLine(10_000), acked + 1, child);
            }
            Await.until("the child's lane is the node's only session", Duration.ofSeconds(5),
                () -> server.sessionCount() == 1, () -> server.sessionCount() + " sessions");
            byesBeforeKill = counters.byeRequests();
            closedBeforeKill = counters.sessionsClosed();
            child.kill();
            String line;
            while ((line = child.nextLine(5_000)) != null)
            {
                acked = expectAck(line, acked + 1, child);
            }
            lastAck = acked;
        }

        final long noticed = Await.until("the node notices the killed client", Duration.ofSeconds(5),
            () -> server.sessionCount() == 0 && counters.sessionsClosed() == closedBeforeKill + 1,
            () -> server.sessionCount() + " sessions, " + counters.sessionsClosed() + " closed");
        final long departedAt = System.nanoTime();
        assertEquals(byesBeforeKill, counters.byeRequests(), "a killed client says no BYE");
        assertTrue(counters.reclaimedBytes() > 0, "the node reclaims the dead client's unreferenced space");

        final long live;
        final int slots;
        final long blockLength;
        try (RegionView view = new RegionView(server))
        {
            final List<RegionView.Slot> used = view.usedSlots();
            live = used.stream().mapToLong(RegionView.Slot::blockLength).sum();
            slots = used.size();
            blockLength = used.getFirst().blockLength();
        }
        assertTrue(slots == lastAck + 1 || slots == lastAck + 2, "used slots " + slots + " after " + (lastAck + 1) +
            " acked puts (one more is a put in flight that committed before the kill)");
        assertEquals(slots * blockLength, live, "every committed put is one block of " + blockLength + " bytes");

        final long expectedFree = freeBefore - live;
        final long quarantine = SpaceTiming.reclaimQuarantineNanos(GRACE_NANOS);
        final long free = server.freeBytes();
        if (System.nanoTime() - departedAt < quarantine / 2)
        {
            assertTrue(free < expectedFree, "reclaimed space waits out its quarantine: " + free +
                " bytes free already, " + expectedFree + " expected only after " + quarantine + " ns");
        }
        Await.until("the reclaimed space comes back after the quarantine",
            Duration.ofNanos(quarantine).plusSeconds(5), () -> server.freeBytes() == expectedFree,
            () -> server.freeBytes() + " bytes free, " + expectedFree + " expected (" + freeBefore +
                " before the client, " + live + " live)");

        try (KvClient reader = LocalCluster.client(server))
        {
            for (int i = 0; i <= lastAck; i++)
            {
                assertArrayEquals(PutterMain.value(i), reader.get(PutterMain.key(i)), "acked key k" + i);
            }
            final byte[] inFlight = reader.get(PutterMain.key(lastAck + 1));
            if (inFlight != null)
            {
                assertArrayEquals(PutterMain.value(lastAck + 1), inFlight, "the put in flight, committed");
            }
            assertEquals(slots == lastAck + 2, inFlight != null, "the extra slot is the put in flight");
            assertNull(reader.get(PutterMain.key(lastAck + 2)), "no put after the one in flight");
        }
        System.out.printf("killed client: %d acked, departure noticed in %d ms, %d bytes reclaimed%n", lastAck + 1,
            TimeUnit.NANOSECONDS.toMillis(noticed), counters.reclaimedBytes());
    }

    private static int expectAck(final String line, final int expected, final ChildJvm child)
    {
        final Matcher m = line == null ? null : ACK.matcher(line);
        if (m == null || !m.matches())
        {
            throw new AssertionError("expected ACK " + expected + ", child printed " + line + "; stderr: " +
                child.stderr());
        }
        assertEquals(expected, Integer.parseInt(m.group(1)), "puts are acked in order");
        return expected;
    }
}
