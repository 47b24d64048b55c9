package io.rdmakv.systemtests.replication;

import io.rdmakv.client.KvClient;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Writers and one reader over a fixed set of keys (a moving partition's), through one client, keeping a ledger: per
 * key the newest version acknowledged and the newest attempted. {@link #verify} checks every key holds a version
 * between the two (nothing acknowledged lost, nothing never written). Also the longest single write and read, and
 * every failed call.
 */
final class PartitionLoad implements AutoCloseable
{
    private final List<byte[]> keys;
    private final AtomicLongArray acked;
    private final AtomicLongArray attempted;
    private final AtomicLong writes = new AtomicLong();
    private final AtomicLong reads = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();
    private final AtomicLong longestWriteNanos = new AtomicLong();
    private final AtomicLong longestReadNanos = new AtomicLong();
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final List<String> failureSamples = new CopyOnWriteArrayList<>();
    private final List<Thread> threads = new ArrayList<>();

    /** {@code writers} threads, each writing its own share of {@code keys} in turn, and one reader of all of them. */
    PartitionLoad(final KvClient client, final List<byte[]> keys, final int writers)
    {
        this.keys = List.copyOf(keys);
        acked = new AtomicLongArray(keys.size());
        attempted = new AtomicLongArray(keys.size());
        for (int t = 0; t < writers; t++)
        {
            final int first = t;
            threads.add(Thread.ofPlatform().name("partition-writer-" + t).start(() -> write(client, first, writers)));
        }
        threads.add(Thread.ofPlatform().name("partition-reader").start(() -> read(client)));
    }

    private void write(final KvClient client, final int first, final int stride)
    {
        long version = 0;
        while (running.get())
        {
            version++;
            for (int k = first; k < keys.size() && running.get(); k += stride)
            {
                attempted.set(k, version);
                final long start = System.nanoTime();
                try
                {
                    client.put(keys.get(k), Long.toString(version).getBytes(StandardCharsets.UTF_8));
                    acked.set(k, version);
                    writes.incrementAndGet();
                    longestWriteNanos.accumulateAndGet(System.nanoTime() - start, Math::max);
                }
                catch (final RuntimeException e)
                {
                    failed("PUT", e);
                }
            }
        }
    }

    private void read(final KvClient client)
    {
        while (running.get())
        {
            for (int k = 0; k < keys.size() && running.get(); k++)
            {
                final long start = System.nanoTime();
                try
                {
                    client.get(keys.get(k));
                    reads.incrementAndGet();
                    longestReadNanos.accumulateAndGet(System.nanoTime() - start, Math::max);
                }
                catch (final RuntimeException e)
                {
                    failed("GET", e);
                }
            }
        }
    }

    private void failed(final String op, final RuntimeException e)
    {
        failures.incrementAndGet();
        if (failureSamples.size() < 5)
        {
            failureSamples.add(op + ": " + e);
        }
    }

    /** Waits (up to 60 s) until at least {@code count} writes were acknowledged in all. */
    void awaitWrites(final long count) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (writes.get() < count)
        {
            assertTrue(System.nanoTime() < deadline, "only " + writes.get() + " of " + count + " writes in 60 s; " +
                failures.get() + " failed: " + failureSamples);
            Thread.sleep(5);
        }
    }

    long writes()
    {
        return writes.get();
    }

    long reads()
    {
        return reads.get();
    }

    long failures()
    {
        return failures.get();
    }

    List<String> failureSamples()
    {
        return failureSamples;
    }

    long longestWriteMillis()
    {
        return TimeUnit.NANOSECONDS.toMillis(longestWriteNanos.get());
    }

    long longestReadMillis()
    {
        return TimeUnit.NANOSECONDS.toMillis(longestReadNanos.get());
    }

    /** Stops the threads and waits for them. */
    void stop() throws InterruptedException
    {
        running.set(false);
        for (final Thread t : threads)
        {
            t.join(TimeUnit.SECONDS.toMillis(30));
        }
    }

    /** Every key holds a version between the newest acknowledged and the newest attempted. */
    void verify(final KvClient client)
    {
        for (int k = 0; k < keys.size(); k++)
        {
            final byte[] value = client.get(keys.get(k));
            final String key = new String(keys.get(k), StandardCharsets.UTF_8);
            if (acked.get(k) == 0 && value == null)
            {
                continue;
            }
            assertNotNull(value, key + ": acknowledged version " + acked.get(k) + " lost (no value)");
            final long version = Long.parseLong(new String(value, StandardCharsets.UTF_8));
            assertTrue(version >= acked.get(k) && version <= attempted.get(k), key + " holds version " + version +
                ", acknowledged " + acked.get(k) + ", attempted " + attempted.get(k));
        }
    }

    @Override
    public void close() throws InterruptedException
    {
        stop();
    }
}
