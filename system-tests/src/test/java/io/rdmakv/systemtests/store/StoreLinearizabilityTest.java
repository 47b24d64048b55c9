package io.rdmakv.systemtests.store;

import io.rdmakv.client.ClientStats;
import io.rdmakv.client.KvClient;
import io.rdmakv.client.Versioned;
import io.rdmakv.server.config.MemoryWindowMode;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.systemtests.LocalCluster;
import io.rdmakv.testsupport.concurrent.Racers;
import io.rdmakv.testsupport.linearizability.KeyedCheckResult;
import io.rdmakv.testsupport.linearizability.KeyedHistory;
import io.rdmakv.testsupport.linearizability.LinearizabilityChecker;
import io.rdmakv.testsupport.linearizability.Op;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Many client threads on a few hot keys with random GET / PUT / DELETE / compare-and-set: every key's
 * history, as the clients saw it, must be linearizable as a register. The threads of a client share its
 * slot cache, so one thread's cached slot serves another's operation (and a blind CAS of a fresh entry one
 * thread wrote another's).
 */
class StoreLinearizabilityTest
{
    private static final int THREADS = 8;
    private static final int KEYS = 3;
    private static final int OPS_PER_THREAD = 300;

    /** Whether odd threads read with {@code getAll} (every key in one batch) instead of {@code getVersioned}. */
    static volatile boolean batchReads;

    @Test
    void hotKeysStayLinearizable() throws Exception
    {
        batchReads = false;
        // each racing thread is a session of its own, writing its blocks through its own memory window (where the
        // device has windows: siw has none, and a node asked for them there refuses to start, saying so)
        try (LocalCluster cluster = withWindowsIfTheDeviceHasThem(); KvClient client = cluster.client())
        {
            checkLinearizable(client, client, KEYS);
            final ClientStats stats = client.stats();
            assertTrue(stats.casRetries() + stats.lockRetries() + stats.conflicts() > 0,
                "the threads must actually have raced: " + stats);
            assertTrue(stats.cacheHits() > 0, "the threads went through their shared cache: " + stats);
        }
    }

    private static LocalCluster withWindowsIfTheDeviceHasThem()
    {
        try
        {
            return new LocalCluster(ServerConfig.local(LocalCluster.MEMORY).withMemoryWindows(MemoryWindowMode.ON));
        }
        catch (final RuntimeException e)
        {
            if (e.getMessage() == null || !e.getMessage().contains("has no memory windows"))
            {
                throw e;
            }
            System.out.println("[linearizability] " + e.getMessage() + ": racing without windows");
            return new LocalCluster(ServerConfig.local(LocalCluster.MEMORY).withMemoryWindows(MemoryWindowMode.OFF));
        }
    }

    /**
     * Two clients on the same 6 keys, one with a cache of 4 entries (one set: the keys evict each other
     * all the time) and one with none: entries come and go under racing threads and stay only hints.
     */
    @Test
    void hotKeysStayLinearizableWithATinyCacheAndWithNone() throws Exception
    {
        batchReads = false;
        try (LocalCluster cluster = new LocalCluster();
            KvClient tiny = KvClient.connect(cluster.clientConfig().withCacheEntries(4));
            KvClient none = KvClient.connect(cluster.clientConfig().withCacheEntries(0)))
        {
            checkLinearizable(tiny, none, 2 * KEYS);
            assertTrue(tiny.stats().cacheHits() > 0, "the tiny cache served some: " + tiny.stats());
            assertEquals(0, none.stats().cacheHits(), "no cache, no hits: " + none.stats());
            assertTrue(none.stats().cacheMisses() > 0, "lookups missed: " + none.stats());
        }
    }

    /** As {@link #hotKeysStayLinearizable}, odd threads reading every key at once with {@code getAll}. */
    @Test
    void batchedReadsStayLinearizable() throws Exception
    {
        try (LocalCluster cluster = new LocalCluster(); KvClient client = cluster.client())
        {
            batchReads = true;
            checkLinearizable(client, client, 2 * KEYS);
            assertTrue(client.stats().gets() > THREADS * OPS_PER_THREAD / 4, "the batches read: " + client.stats());
        }
    }

    /**
     * Runs {@link #THREADS} threads on {@code keys} keys, even ones on {@code even} and odd ones on {@code odd},
     * and checks every key's history (also the node-assisted write path's, {@code NodeAssistedWritesTest}).
     */
    static void checkLinearizable(final KvClient even, final KvClient odd, final int keys) throws Exception
    {
        final KvClient[] clients = {even, odd};
        final KeyedHistory<Integer> history = new KeyedHistory<>();
        final List<Throwable> failures = Racers.run("lin-", THREADS,
            process -> run(clients[process % 2], history, process, keys), Duration.ofSeconds(120));
        assertEquals(List.of(), failures);
        assertTrue(history.ops().size() >= THREADS * OPS_PER_THREAD, "every operation recorded");
        final KeyedCheckResult<Integer> result = history.check(new LinearizabilityChecker());
        assertTrue(result.isLinearizable(), result.summary());
    }

    private static void run(final KvClient client, final KeyedHistory<Integer> history, final int process,
        final int keys)
    {
        final SplittableRandom random = new SplittableRandom(1000 + process);
        final Versioned[] lastRead = new Versioned[keys];
        for (int i = 0; i < OPS_PER_THREAD; i++)
        {
            final int key = random.nextInt(keys);
            final byte[] keyBytes = ("lin-" + key).getBytes();
            final long value = ((long)(process + 1) << 32) | i;
            final int dice = random.nextInt(100);
            final long invoke = history.invoke();
            if (dice < 35 && batchReads && process % 2 == 1)
            {
                final List<byte[]> all = new ArrayList<>();
                for (int k = 0; k < keys; k++)
                {
                    all.add(("lin-" + k).getBytes());
                }
                final List<byte[]> values = client.getAll(all);
                final long response = history.now();
                for (int k = 0; k < keys; k++)
                {
                    final byte[] v = values.get(k);
                    history.record(k, Op.get(process, invoke, response,
                        v == null ? OptionalLong.empty() : OptionalLong.of(decode(v))));
                }
                continue;
            }
            if (dice < 35)
            {
                final Versioned v = client.getVersioned(keyBytes);
                lastRead[key] = v;
                history.record(key, Op.get(process, invoke, history.now(),
                    v == null ? OptionalLong.empty() : OptionalLong.of(decode(v.value()))));
            }
            else if (dice < 60)
            {
                client.put(keyBytes, encode(value, random));
                history.record(key, Op.put(process, value, invoke, history.now()));
            }
            else if (dice < 75)
            {
                final boolean existed = client.delete(keyBytes);
                history.record(key, Op.delete(process, invoke, history.now(), existed));
            }
            else
            {
                final Versioned seen = lastRead[key];
                final boolean ok = client.putIfVersion(keyBytes, encode(value, random),
                    seen == null ? KvClient.ABSENT : seen.version());
                history.record(key, Op.compareAndSet(process,
                    seen == null ? OptionalLong.empty() : OptionalLong.of(decode(seen.value())), value, invoke,
                    history.now(), ok));
            }
        }
    }

    /** A value carries its 8-byte identity, padded to a random length so blocks change size. */
    private static byte[] encode(final long value, final SplittableRandom random)
    {
        return ByteBuffer.allocate(8 + random.nextInt(200)).putLong(value).array();
    }

    private static long decode(final byte[] bytes)
    {
        return ByteBuffer.wrap(bytes).getLong();
    }
}
