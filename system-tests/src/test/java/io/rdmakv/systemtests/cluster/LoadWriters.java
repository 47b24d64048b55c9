package io.rdmakv.systemtests.cluster;

import io.rdmakv.client.KvClient;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Threads that keep writing new versions of their own keys through one client and read some back, keeping
 * a ledger: per key the newest version acknowledged and the newest attempted (a call that failed may or may
 * not have landed). {@link #verify} checks every acknowledged write against the store; {@link #longestGapMillis}
 * is the longest time without a successful write (the time without service around a fault).
 */
final class LoadWriters implements AutoCloseable
{
    private final int threads;
    private final int keysPerThread;
    private final String prefix;
    private final AtomicLongArray acked;
    private final AtomicLongArray attempted;
    private final AtomicLong lastSuccessNanos = new AtomicLong(System.nanoTime());
    private final AtomicLong longestGapNanos = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();
    private final AtomicLong writes = new AtomicLong();
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final List<Throwable> problems = new CopyOnWriteArrayList<>();
    private final List<String> failureSamples = new CopyOnWriteArrayList<>();
    private final List<Thread> workers = new ArrayList<>();

    LoadWriters(final KvClient client, final String prefix, final int threads, final int keysPerThread)
    {
        this.threads = threads;
        this.keysPerThread = keysPerThread;
        this.prefix = prefix;
        acked = new AtomicLongArray(threads * keysPerThread);
        attempted = new AtomicLongArray(threads * keysPerThread);
        for (int t = 0; t < threads; t++)
        {
            final int thread = t;
            workers.add(Thread.ofPlatform().name(prefix + "-writer-" + t).start(() -> write(client, thread)));
        }
    }

    /** The longest time without a successful write since the last call (and resets it). */
    long longestGapMillis()
    {
        return TimeUnit.NANOSECONDS.toMillis(longestGapNanos.getAndSet(0));
    }

    long writes()
    {
        return writes.get();
    }

    long failures()
    {
        return failures.get();
    }

    /** The first few failed calls, as their exceptions said. */
    List<String> failureSamples()
    {
        return failureSamples;
    }

    private byte[] key(final int slot)
    {
        return (prefix + "-" + slot).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] value(final int slot, final long version)
    {
        return ("v" + version + " of " + slot + " " + "x".repeat(100)).getBytes(StandardCharsets.UTF_8);
    }

    private static long versionOf(final byte[] value)
    {
        final String s = new String(value, StandardCharsets.UTF_8);
        return Long.parseLong(s.substring(1, s.indexOf(' ')));
    }

    private void write(final KvClient client, final int thread)
    {
        long version = 0;
        while (running.get())
        {
            version++;
            for (int k = 0; k < keysPerThread && running.get(); k++)
            {
                final int slot = thread * keysPerThread + k;
                attempted.set(slot, version);
                try
                {
                    client.put(key(slot), value(slot, version));
                    acked.set(slot, version);
                    final long now = System.nanoTime();
                    longestGapNanos.accumulateAndGet(now - lastSuccessNanos.getAndSet(now), Math::max);
                    writes.incrementAndGet();
                    if (k % 8 == 0)
                    {
                        final byte[] v = client.get(key(slot));
                        if (v == null || versionOf(v) < version)
                        {
                            problems.add(new AssertionError("key " + slot + " read " + (v == null ? "nothing" :
                                "v" + versionOf(v)) + " right after v" + version + " was acknowledged"));
                        }
                    }
                }
                catch (final RuntimeException e)
                {
                    failures.incrementAndGet();
                    if (failureSamples.size() < 5)
                    {
                        failureSamples.add(e.toString());
                    }
                }
            }
        }
    }

    /** Stops the writers, then checks every acknowledged key through {@code client}. */
    void verify(final KvClient client) throws InterruptedException
    {
        close();
        assertEquals(List.of(), problems, "reads saw no acknowledged write undone");
        int checked = 0;
        for (int slot = 0; slot < threads * keysPerThread; slot++)
        {
            final long ack = acked.get(slot);
            if (ack == 0)
            {
                continue;
            }
            final byte[] v = client.get(key(slot));
            assertNotNull(v, "key " + slot + " acknowledged at v" + ack + " is gone");
            final long version = versionOf(v);
            assertTrue(version >= ack && version <= attempted.get(slot), "key " + slot + " holds v" + version +
                ", acknowledged v" + ack + ", attempted up to v" + attempted.get(slot));
            checked++;
        }
        assertTrue(checked > threads * keysPerThread / 2, checked + " keys checked");
    }

    @Override
    public void close() throws InterruptedException
    {
        running.set(false);
        for (final Thread w : workers)
        {
            w.join(TimeUnit.SECONDS.toMillis(60));
        }
    }
}
