package io.rdmakv.systemtests.store;

import io.rdmakv.client.ClientStats;
import io.rdmakv.client.KvClient;
import io.rdmakv.systemtests.LocalCluster;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** GETs racing with many UPDATEs of the same keys only ever return values that were written. */
class ConcurrentReadersTest
{
    private static final int KEYS = 4;
    private static final int WRITERS = 4;
    private static final int READERS = 4;
    private static final long RUN_NANOS = TimeUnit.SECONDS.toNanos(3);
    private static final long MAX_RUN_NANOS = TimeUnit.SECONDS.toNanos(60);

    /** A value that names its writer and sequence, padded to a size that varies with the sequence. */
    private static byte[] value(final int writer, final int seq)
    {
        final int length = 16 + (seq * 37 + writer * 11) % 700;
        final ByteBuffer b = ByteBuffer.allocate(length);
        b.putInt(writer).putInt(seq).putInt(length);
        while (b.hasRemaining())
        {
            b.put((byte)(writer * 31 + seq));
        }
        return b.array();
    }

    @Test
    void readsReturnOnlyWrittenValuesAndTheLatestAtTheEnd() throws Exception
    {
        try (LocalCluster cluster = new LocalCluster(); KvClient client = cluster.client())
        {
            final Set<String> written = ConcurrentHashMap.newKeySet();
            for (int k = 0; k < KEYS; k++)
            {
                final byte[] initial = value(99, k);
                client.put(key(k), initial);
                written.add(Arrays.toString(initial));
            }
            final AtomicBoolean stop = new AtomicBoolean();
            final List<Throwable> failures = new CopyOnWriteArrayList<>();
            final AtomicLong reads = new AtomicLong();
            final AtomicLong writes = new AtomicLong();
            final int[][] lastSeq = new int[WRITERS][KEYS];
            final Thread[] threads = new Thread[WRITERS + READERS];
            for (int w = 0; w < WRITERS; w++)
            {
                final int writer = w;
                threads[w] = Thread.ofPlatform().name("writer-" + w).start(() ->
                {
                    int seq = 0;
                    try
                    {
                        while (!stop.get())
                        {
                            final int k = seq % KEYS;
                            final byte[] v = value(writer, seq);
                            written.add(Arrays.toString(v));
                            client.put(key(k), v);
                            lastSeq[writer][k] = seq;
                            writes.incrementAndGet();
                            seq++;
                        }
                    }
                    catch (final Throwable t)
                    {
                        failures.add(t);
                    }
                });
            }
            for (int r = 0; r < READERS; r++)
            {
                threads[WRITERS + r] = Thread.ofPlatform().name("reader-" + r).start(() ->
                {
                    int i = 0;
                    try
                    {
                        while (!stop.get())
                        {
                            final byte[] v = client.get(key(i++ % KEYS));
                            if (v == null || !written.contains(Arrays.toString(v)))
                            {
                                failures.add(new AssertionError("read a value never written: " +
                                    (v == null ? "null" : Arrays.toString(Arrays.copyOf(v, Math.min(16, v.length))))));
                                return;
                            }
                            reads.incrementAndGet();
                        }
                    }
                    catch (final Throwable t)
                    {
                        failures.add(t);
                    }
                });
            }
            // At least RUN_NANOS, and on a slow machine (an emulated VM) until enough has happened, within a bound.
            final long start = System.nanoTime();
            while (failures.isEmpty() && System.nanoTime() - start < MAX_RUN_NANOS &&
                (System.nanoTime() - start < RUN_NANOS || reads.get() < 100 || writes.get() < 100))
            {
                Thread.onSpinWait();
            }
            stop.set(true);
            for (final Thread t : threads)
            {
                t.join(TimeUnit.SECONDS.toMillis(20));
            }
            assertEquals(List.of(), failures);
            assertTrue(reads.get() > 100 && writes.get() > 100, "reads " + reads + ", writes " + writes);
            final Set<String> finals = new HashSet<>();
            for (int k = 0; k < KEYS; k++)
            {
                finals.add(Arrays.toString(client.get(key(k))));
            }
            for (final String f : finals)
            {
                assertTrue(written.contains(f));
            }
            final ClientStats stats = client.stats();
            assertEquals(0, stats.errors(), stats.toString());
        }
    }

    private static byte[] key(final int k)
    {
        return ("hot-" + k).getBytes();
    }
}
