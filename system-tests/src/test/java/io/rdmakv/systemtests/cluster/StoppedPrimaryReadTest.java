package io.rdmakv.systemtests.cluster;

import io.rdmakv.client.KvClient;
import io.rdmakv.client.KvException;
import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.ReplicaGroup;
import io.rdmakv.systemtests.LocalCluster;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The primary of a group of two is frozen with SIGSTOP while a client keeps reading a key through it. On a
 * kernel RDMA device (rxe in the Soft-RoCE VM) the frozen process's memory stays registered and its NIC keeps
 * answering one-sided READs, so only the client's read lease stands between the reader and a node that no
 * longer knows whether it is current. The backup is promoted, a new value is written through it and
 * acknowledged; from then on no GET that starts may return the value the stopped node still holds: each
 * returns the new value or fails, and the reader does reach the new value. On {@code tcp} the stopped node
 * answers nothing, and the same must hold. Tagged {@code softroce-store}: the Soft-RoCE VM run includes it.
 */
@Tag("softroce-store")
class StoppedPrimaryReadTest extends ZkClusterTestBase
{
    private static final byte[] BEFORE = LocalCluster.bytes("before the stop");
    private static final byte[] AFTER = LocalCluster.bytes("after the stop");
    private static final byte[] KEY = LocalCluster.bytes("stopped-primary key");

    /** One GET: when it started and ended (nanoTime), and what it returned or why it failed. */
    private record Read(long startNanos, long endNanos, byte[] value, String failure)
    {
        String describe(final long zeroNanos)
        {
            return String.format("GET [%.3f, %.3f] s -> %s", (startNanos - zeroNanos) / 1e9, (endNanos - zeroNanos) / 1e9,
                failure != null ? "failed: " + failure : value == null ? "null" : new String(value));
        }
    }

    @Test
    void noReadReturnsTheStoppedPrimarysValueOnceItsSuccessorAcknowledgedAWrite() throws Exception
    {
        final ClusterMap before = startReplicated(2, 2, false);
        final ReplicaGroup group = before.groups().getFirst();
        final int stopped = group.primary();
        final int successor = group.member(1);
        final List<Read> reads = new ArrayList<>();
        final AtomicBoolean reading = new AtomicBoolean(true);
        final long zero = System.nanoTime();
        try (KvClient reader = KvClient.connect(LocalCluster.clientConfig(cluster.address(stopped))))
        {
            reader.put(KEY, BEFORE);
            assertArrayEquals(BEFORE, reader.get(KEY));
            final Thread readerThread = Thread.ofPlatform().name("stopped-primary-reader").start(() ->
            {
                while (reading.get())
                {
                    final long start = System.nanoTime();
                    Read read;
                    try
                    {
                        final byte[] value = reader.get(KEY);
                        read = new Read(start, System.nanoTime(), value, null);
                    }
                    catch (final KvException e)
                    {
                        read = new Read(start, System.nanoTime(), null, e.getMessage());
                    }
                    synchronized (reads)
                    {
                        reads.add(read);
                    }
                }
            });
            Thread.sleep(500);
            cluster.signal(stopped, "STOP");
            final long stoppedAt = System.nanoTime(); // kill(1) returned: the node is stopped
            final long acknowledgedAt;
            final ClusterMap after;
            try
            {
                after = cluster.awaitMap("the backup promoted", Duration.ofSeconds(120),
                    m -> m.groups().getFirst().primary() == successor);
                try (KvClient writer = KvClient.connect(LocalCluster.clientConfig(cluster.address(successor))))
                {
                    writer.put(KEY, AFTER);
                }
                acknowledgedAt = System.nanoTime();
                awaitNewValueRead(reads, acknowledgedAt, LocalCluster.OP_TIMEOUT.multipliedBy(3));
            }
            finally
            {
                reading.set(false);
                readerThread.join(LocalCluster.OP_TIMEOUT.multipliedBy(2).toMillis());
                cluster.signal(stopped, "CONT");
            }

            final List<Read> all;
            synchronized (reads)
            {
                all = List.copyOf(reads);
            }
            int servedWhileStopped = 0;
            int failed = 0;
            int newValue = 0;
            for (final Read r : all)
            {
                if (r.startNanos > acknowledgedAt && r.failure == null)
                {
                    assertArrayEquals(AFTER, r.value, r.describe(zero) + ", which started after the write of \"" +
                        new String(AFTER) + "\" through the new primary was acknowledged at " +
                        String.format("%.3f s", (acknowledgedAt - zero) / 1e9) + "; the stopped node was stopped at " +
                        String.format("%.3f s", (stoppedAt - zero) / 1e9));
                    newValue++;
                }
                if (r.endNanos > stoppedAt && r.failure == null && Arrays.equals(BEFORE, r.value))
                {
                    servedWhileStopped++;
                }
                failed += r.failure == null ? 0 : 1;
            }
            assertTrue(newValue > 0, "the reader never read the new value");
            assertTrue(reader.clusterMap().epoch() >= after.epoch(), "the reader moved to the promoted map");
            if ("ibverbs".equals(LocalCluster.TRANSPORT))
            {
                // the point of running this over rxe: the stopped process's memory was still read, under the lease
                assertTrue(servedWhileStopped > 0, "no READ of the stopped primary completed after SIGSTOP, " +
                    "so the device did not serve its memory and the lease went untested");
            }
            System.out.printf("[stopped-primary] %s: %d GETs; %d returned the stopped node's value after SIGSTOP " +
                    "(under the lease), %d failed, %d started after the new write and returned it; epoch %d -> %d, " +
                    "promoted %.3f s after the stop%n", LocalCluster.TRANSPORT, all.size(), servedWhileStopped, failed,
                newValue, before.epoch(), after.epoch(), (acknowledgedAt - stoppedAt) / 1e9);
        }
    }

    /** Waits until a GET that started after {@code acknowledgedAt} succeeded (any value: the test checks which). */
    private static void awaitNewValueRead(final List<Read> reads, final long acknowledgedAt, final Duration timeout)
        throws InterruptedException
    {
        final long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline)
        {
            synchronized (reads)
            {
                for (int i = reads.size() - 1; i >= 0 && reads.get(i).startNanos > acknowledgedAt; i--)
                {
                    if (reads.get(i).failure == null)
                    {
                        return;
                    }
                }
            }
            Thread.sleep(50);
        }
    }
}
