package io.rdmakv.systemtests.hardening.lease;

import io.rdmakv.client.KvClient;
import io.rdmakv.common.SpaceTiming;
import io.rdmakv.common.hash.KeyHash;
import io.rdmakv.common.layout.BucketDescriptor;
import io.rdmakv.common.protocol.AllocMessage;
import io.rdmakv.common.protocol.AllocOkMessage;
import io.rdmakv.common.protocol.HelloOkMessage;
import io.rdmakv.server.KvServer;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.server.control.ServerCounter;
import io.rdmakv.server.control.ServerCounters;
import io.rdmakv.systemtests.Await;
import io.rdmakv.systemtests.LocalCluster;
import io.rdmakv.systemtests.faults.ChildJvm;
import io.rdmakv.systemtests.peer.RawSession;
import io.rdmakv.systemtests.peer.RegionView;
import io.rdmakv.verbs.WcStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.OutputStream;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Sessions hold leases: a client that is frozen (SIGSTOP) or stops heartbeating while its connections stay
 * open loses its session within the lease timeout; the node fences it, releases its insert lock and takes
 * its space back, so nobody stalls behind it; a lock value that is no session's is cleared; a client that
 * only idles keeps its session. Node and clients run on {@link LocalCluster#TRANSPORT} (so
 * {@code scripts/softroce-verbs.sh --store} runs these over ibverbs, where the node changes lock words
 * through its loopback queue pair). Lease timeout {@code -Drdmakv.test.leaseMs} (1500 ms), heartbeats at a
 * sixth of it.
 */
class LeaseTest
{
    private static final long LEASE_MS = Long.getLong("rdmakv.test.leaseMs", 1500);
    private static final long HEARTBEAT_MS = LEASE_MS / 6;
    /** Slack for a loaded machine between a lease's end and the node acting on it. */
    private static final long MARGIN_MS = 1500;
    private static final long GRACE_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    @TempDir
    Path dir;

    private LocalCluster cluster;
    private KvServer server;
    private ServerCounters counters;
    private KvClient client;

    @BeforeEach
    void start()
    {
        cluster = new LocalCluster(ServerConfig.local(LocalCluster.MEMORY).toBuilder().graceNanos(GRACE_NANOS)
            .lease(TimeUnit.MILLISECONDS.toNanos(LEASE_MS), TimeUnit.MILLISECONDS.toNanos(HEARTBEAT_MS)).build());
        server = cluster.server();
        counters = server.counters();
        client = cluster.client();
        client.put(bytes("first"), bytes("opens the test client's session"));
    }

    @AfterEach
    void stop()
    {
        LocalCluster.closeAll(client, cluster);
    }

    private static byte[] bytes(final String s)
    {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private long group1(final String key)
    {
        return KeyHash.group1(KeyHash.hash(bytes(key)), server.geometry().groupCount());
    }

    /** A key whose inserts take the insert lock of {@code group}. */
    private String keyOfGroup(final long group, final String prefix)
    {
        for (int i = 0; ; i++)
        {
            if (group1(prefix + i) == group)
            {
                return prefix + i;
            }
        }
    }

    private long lockWord(final long group)
    {
        try (RegionView view = new RegionView(server))
        {
            return view.longAt(view.geometry().groupRegionOffset(group) + BucketDescriptor.INSERT_LOCK_OFFSET);
        }
    }

    @Test
    void theNodeChangesLockWordsThroughItsNicWhereTheCpusCasIsNotAtomicAgainstRdma()
    {
        final boolean glob = "GLOB".equals(server.deviceAttributes().atomicCapability());
        final String expected = "ibverbs".equals(server.transport()) && !glob ? "loopback" : "cpu";
        System.out.println("lease: index atomics " + server.indexAtomics() + " (transport " + server.transport() +
            ", atomics " + server.deviceAttributes().atomicCapability() + ")");
        assertEquals(expected, server.indexAtomics());
    }

    @Test
    void aFrozenClientLosesItsLeaseItsLockAndItsSpaceAndCannotWriteWhenItWakes() throws Exception
    {
        final long group = group1("contended");
        final long expiredBefore = counters.get(ServerCounter.LEASES_EXPIRED);
        final long releasedBefore = counters.get(ServerCounter.LOCKS_RELEASED);
        final long reclaimedBefore = counters.reclaimedBytes();
        try (ChildJvm child = ChildJvm.start(HolderMain.class, dir, Integer.toString(server.port()),
            LocalCluster.TRANSPORT, Long.toString(LocalCluster.OP_TIMEOUT.toMillis()), Long.toString(group)))
        {
            // a child JVM starts slowly on an emulated VM: give it the operation timeout and more
            final String first = child.nextLine(LocalCluster.OP_TIMEOUT.toMillis() + 30_000);
            assertNotNull(first, "the child says HELD; stderr: " + child.stderr());
            final String[] held = first.split(" ");
            assertEquals("HELD", held[0], "child's first line; stderr: " + child.stderr());
            final long rawId = Long.parseLong(held[1]);
            final long chunkOffset = Long.parseLong(held[2]);
            final long chunkLength = Long.parseLong(held[3]);
            assertEquals(rawId, lockWord(group), "the child holds the insert lock");
            Await.until("the child's two sessions and ours are open", Duration.ofSeconds(5),
                () -> server.sessionCount() == 3, () -> server.sessionCount() + " sessions");
            final long freeBefore = server.freeBytes();
            final long closedBefore = counters.sessionsClosed();

            signal(child, "STOP");
            final long frozenAt = System.nanoTime();
            final long detected = Await.until("the frozen child's two leases expire",
                Duration.ofMillis(LEASE_MS + MARGIN_MS + 5_000),
                // at least the child's two; an emulated VM can starve a healthy session's heartbeats too, and a
                // session of an earlier test may count its close late: so also wait until only ours is open and a
                // departure released a lock (the node counts closes and releases after its index scan, which takes
                // seconds under emulation)
                () -> counters.get(ServerCounter.LEASES_EXPIRED) >= expiredBefore + 2 &&
                    counters.sessionsClosed() >= closedBefore + 2 && server.sessionCount() == 1 &&
                    counters.get(ServerCounter.LOCKS_RELEASED) > releasedBefore,
                () -> counters.get(ServerCounter.LEASES_EXPIRED) - expiredBefore + " expired, " +
                    server.sessionCount() + " sessions");
            final long detectedMs = TimeUnit.NANOSECONDS.toMillis(detected);
            System.out.printf("lease: frozen client detected after %d ms (lease timeout %d ms, heartbeat %d ms)%n",
                detectedMs, LEASE_MS, HEARTBEAT_MS);
            assertTrue(detectedMs >= LEASE_MS - HEARTBEAT_MS - ClientTick.MS - 50, "expired after " + detectedMs +
                " ms: sooner than the lease allows");
            assertTrue(detectedMs <= LEASE_MS + MARGIN_MS, "expired after " + detectedMs + " ms, lease " + LEASE_MS);

            assertNotEquals(rawId, lockWord(group), "the frozen session's lock is released");
            assertEquals(releasedBefore + 1, counters.get(ServerCounter.LOCKS_RELEASED));
            final String other = keyOfGroup(group, "same-group-");
            final long t0 = System.nanoTime();
            client.put(bytes("contended"), bytes("inserted while the holder sleeps"));
            client.put(bytes(other), bytes("another insert to that group"));
            assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(5), "inserts to the group do not wait");
            assertTrue(counters.reclaimedBytes() - reclaimedBefore >= chunkLength,
                "the frozen sessions' grants are reclaimed: " + (counters.reclaimedBytes() - reclaimedBefore));
            Await.until("the reclaimed space is free again after the quarantine",
                Duration.ofNanos(SpaceTiming.reclaimQuarantineNanos(GRACE_NANOS)).plusSeconds(5),
                () -> server.freeBytes() >= freeBefore + chunkLength,
                () -> server.freeBytes() + " bytes free, " + freeBefore + " before the freeze");
            final long statsFree = client.nodeStats().values().iterator().next().memoryFree();
            assertTrue(statsFree >= freeBefore + chunkLength - (1L << 20), "STATS says so too: " + statsFree);

            signal(child, "CONT");
            command(child, "PUT late");
            final String late = child.nextLine(LocalCluster.OP_TIMEOUT.toMillis() + 10_000);
            System.out.println("lease: the woken client's next write: " + late);
            assertTrue(late.startsWith("PUT-FAILED KvConnectionException: ") &&
                late.contains(LocalCluster.address(server)), "fails cleanly, naming the node: " + late);
            command(child, "RAW");
            final String rawLine = child.nextLine(LocalCluster.OP_TIMEOUT.toMillis() + 30_000);
            assertNotNull(rawLine, "the child answers RAW; stderr: " + child.stderr());
            final String[] raw = rawLine.split(" ");
            assertEquals("RAW", raw[0]);
            assertNotEquals(WcStatus.SUCCESS.name(), raw[1], "a WRITE into its old grant fails");
            assertNotEquals(WcStatus.SUCCESS.name(), raw[2], "a CAS of its old lock fails");

            assertNull(client.get(bytes("late")), "nothing the woken client wrote is visible");
            assertNotEquals(rawId, lockWord(group));
            try (RegionView view = new RegionView(server))
            {
                final byte[] pattern = new byte[HolderMain.PATTERN_LENGTH];
                Arrays.fill(pattern, HolderMain.PATTERN);
                assertFalse(Arrays.equals(pattern, view.bytes(view.geometry().dataOffset() + chunkOffset,
                    pattern.length)), "its RDMA WRITE did not land in the space it lost");
            }
            command(child, "PUT again");
            assertEquals("PUT-OK again", child.nextLine(LocalCluster.OP_TIMEOUT.toMillis() + 10_000),
                "the next call opens a new session");
            assertArrayEquals(HolderMain.value("again"), client.get(bytes("again")));
            assertArrayEquals(bytes("inserted while the holder sleeps"), client.get(bytes("contended")));
            command(child, "EXIT");
        }
    }

    @Test
    void aConnectedSessionThatStopsHeartbeatingIsFencedAndItsLockAndSpaceReturn()
    {
        final long group = group1("silent");
        final long expiredBefore = counters.get(ServerCounter.LEASES_EXPIRED);
        try (RawSession raw = new RawSession(server.port()))
        {
            final HelloOkMessage hello = raw.hello();
            assertEquals(HEARTBEAT_MS, hello.heartbeatIntervalMs(), "HELLO_OK tells the interval");
            assertEquals(WcStatus.SUCCESS, raw.send(new AllocMessage(1, 4096)));
            final AllocOkMessage grant = (AllocOkMessage)raw.receive();
            final long lock = hello.indexRegion().address() + hello.geometry().groupRegionOffset(group) +
                BucketDescriptor.INSERT_LOCK_OFFSET;
            assertEquals(WcStatus.SUCCESS, raw.compareAndSwap(lock, hello.indexRegion().rkey(), 0, hello.sessionId()));
            final long reclaimedBefore = counters.reclaimedBytes();
            final long closedBefore = counters.sessionsClosed();

            raw.stopHeartbeats();
            final long detected = Await.until("the silent session's lease expires",
                Duration.ofMillis(LEASE_MS + MARGIN_MS + 5_000),
                () -> counters.get(ServerCounter.LEASES_EXPIRED) == expiredBefore + 1 &&
                    counters.sessionsClosed() == closedBefore + 1);
            System.out.printf("lease: silent session detected after %d ms (lease timeout %d ms)%n",
                TimeUnit.NANOSECONDS.toMillis(detected), LEASE_MS);
            assertTrue(TimeUnit.NANOSECONDS.toMillis(detected) <= LEASE_MS + MARGIN_MS);
            assertEquals(0, lockWord(group), "its lock is released");
            assertEquals(grant.chunkLength(), counters.reclaimedBytes() - reclaimedBefore, "its grant is reclaimed");
            assertNotEquals(WcStatus.SUCCESS, raw.compareAndSwap(lock, hello.indexRegion().rkey(), 0,
                hello.sessionId()), "fenced: it cannot take the lock again");
            client.put(bytes("silent"), bytes("inserted after the fence"));
            assertArrayEquals(bytes("inserted after the fence"), client.get(bytes("silent")));
        }
    }

    @Test
    void aLockHoldingAValueOfNoSessionIsClearedAndInsertsToItsGroupProceed()
    {
        final long group = group1("bogus");
        final long clearedBefore = counters.get(ServerCounter.STALE_LOCKS_CLEARED);
        try (RawSession raw = new RawSession(server.port()))
        {
            final HelloOkMessage hello = raw.hello();
            final long bogus = 0x0BAD_C0DE_0000_0001L;
            final long bogusLock = hello.indexRegion().address() + hello.geometry().groupRegionOffset(group) +
                BucketDescriptor.INSERT_LOCK_OFFSET;
            final long ownGroup = (group + 1) % hello.geometry().groupCount();
            final long ownLock = hello.indexRegion().address() + hello.geometry().groupRegionOffset(ownGroup) +
                BucketDescriptor.INSERT_LOCK_OFFSET;
            assertEquals(WcStatus.SUCCESS, raw.compareAndSwap(bogusLock, hello.indexRegion().rkey(), 0, bogus));
            assertEquals(WcStatus.SUCCESS, raw.compareAndSwap(ownLock, hello.indexRegion().rkey(), 0,
                hello.sessionId()));
            final long cleared = Await.until("the node clears the bogus lock",
                Duration.ofMillis(LEASE_MS + MARGIN_MS + 5_000), () -> lockWord(group) == 0,
                () -> "lock word " + Long.toHexString(lockWord(group)));
            System.out.printf("lease: bogus lock cleared after %d ms (sweep every %d ms)%n",
                TimeUnit.NANOSECONDS.toMillis(cleared), LEASE_MS);
            Await.until("counted", Duration.ofSeconds(5),
                () -> counters.get(ServerCounter.STALE_LOCKS_CLEARED) == clearedBefore + 1);
            client.put(bytes("bogus"), bytes("inserted once the lock was cleared"));
            assertArrayEquals(bytes("inserted once the lock was cleared"), client.get(bytes("bogus")));

            server.sweepStaleLocks();
            assertEquals(hello.sessionId(), lockWord(ownGroup), "a live session's lock stays");
            assertEquals(WcStatus.SUCCESS, raw.compareAndSwap(ownLock, hello.indexRegion().rkey(), hello.sessionId(),
                0));
            assertEquals(hello.sessionId(), raw.scratch().get(ValueLayout.JAVA_LONG, 0), "and is its owner's");
        }
    }

    @Test
    void aClientThatOnlyIdlesKeepsItsSessionAcrossSeveralLeaseTimeouts() throws InterruptedException
    {
        final long opened = counters.sessionsOpened();
        final long closed = counters.sessionsClosed();
        Thread.sleep(4 * LEASE_MS);
        assertEquals(0, counters.get(ServerCounter.LEASES_EXPIRED), "heartbeats kept every lease");
        assertEquals(closed, counters.sessionsClosed());
        assertArrayEquals(bytes("opens the test client's session"), client.get(bytes("first")));
        assertEquals(opened, counters.sessionsOpened(), "the same session served the read");
    }

    private static void signal(final ChildJvm child, final String signal) throws IOException, InterruptedException
    {
        final Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(child.process().pid()))
            .inheritIO().start();
        assertEquals(0, kill.waitFor(), "kill -" + signal);
    }

    private static void command(final ChildJvm child, final String line) throws IOException
    {
        final OutputStream in = child.process().getOutputStream();
        in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
        in.flush();
    }

    /** The client janitor's tick, by which a heartbeat may come late. */
    private static final class ClientTick
    {
        static final long MS = 50;
    }
}
