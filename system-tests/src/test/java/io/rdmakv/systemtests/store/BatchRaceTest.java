package io.rdmakv.systemtests.store;

import io.rdmakv.client.KvClient;
import io.rdmakv.server.KvServer;
import io.rdmakv.systemtests.LocalCluster;
import io.rdmakv.testsupport.concurrent.Racers;
import io.rdmakv.testsupport.linearizability.KeyedCheckResult;
import io.rdmakv.testsupport.linearizability.KeyedHistory;
import io.rdmakv.testsupport.linearizability.LinearizabilityChecker;
import io.rdmakv.testsupport.linearizability.Op;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** putAll batches on three nodes racing single operations on the same keys, checked for linearizability. */
class BatchRaceTest
{
    @TempDir
    Path dir;

    private final KvServer[] servers = new KvServer[3];
    private KvClient client;

    @AfterEach
    void stop()
    {
        LocalCluster.closeAll(client);
        LocalCluster.closeAll(servers);
    }

    /**
     * Threads writing every hot key with putAll race threads that PUT, GET and getAll them one at a time; every
     * key's history must be linearizable (each entry of a batch is one operation of its key, between the
     * call's start and end).
     */
    @Test
    void batchesRacingSinglePutsStayLinearizable() throws Exception
    {
        final String seed = BatchTest.startCluster(dir, servers);
        client = KvClient.connect(LocalCluster.clientConfig(seed));
        final int keys = 6;
        final KeyedHistory<Integer> history = new KeyedHistory<>();
        final List<Throwable> failures = Racers.run("batch-race-", 6,
            process -> race(client, history, process, keys), Duration.ofSeconds(120));
        assertEquals(List.of(), failures);
        final KeyedCheckResult<Integer> result = history.check(new LinearizabilityChecker());
        assertTrue(result.isLinearizable(), result.summary());
        assertTrue(client.stats().casRetries() > 0, "the writers actually raced: " + client.stats());
    }

    private static void race(final KvClient client, final KeyedHistory<Integer> history, final int process,
        final int keys)
    {
        final SplittableRandom random = new SplittableRandom(77 + process);
        for (int i = 0; i < 150; i++)
        {
            final long invoke = history.invoke();
            final int dice = random.nextInt(100);
            if (process % 2 == 0 && dice < 60)
            {
                final Map<byte[], byte[]> entries = new LinkedHashMap<>();
                final long[] written = new long[keys];
                for (int k = 0; k < keys; k++)
                {
                    written[k] = ((long)(process + 1) << 32) | ((long)i << 8) | k;
                    entries.put(raceKey(k), ByteBuffer.allocate(8 + random.nextInt(100)).putLong(written[k]).array());
                }
                client.putAll(entries);
                final long response = history.now();
                for (int k = 0; k < keys; k++)
                {
                    history.record(k, Op.put(process, written[k], invoke, response));
                }
                continue;
            }
            final int k = random.nextInt(keys);
            if (dice < 70)
            {
                final long value = ((long)(process + 1) << 32) | ((long)i << 8) | k;
                client.put(raceKey(k), ByteBuffer.allocate(8 + random.nextInt(100)).putLong(value).array());
                history.record(k, Op.put(process, value, invoke, history.now()));
            }
            else if (dice < 85)
            {
                final byte[] v = client.get(raceKey(k));
                history.record(k, Op.get(process, invoke, history.now(),
                    v == null ? OptionalLong.empty() : OptionalLong.of(ByteBuffer.wrap(v).getLong())));
            }
            else
            {
                final List<byte[]> all = new ArrayList<>();
                for (int j = 0; j < keys; j++)
                {
                    all.add(raceKey(j));
                }
                final List<byte[]> values = client.getAll(all);
                final long response = history.now();
                for (int j = 0; j < keys; j++)
                {
                    final byte[] v = values.get(j);
                    history.record(j, Op.get(process, invoke, response,
                        v == null ? OptionalLong.empty() : OptionalLong.of(ByteBuffer.wrap(v).getLong())));
                }
            }
        }
    }

    private static byte[] raceKey(final int k)
    {
        return LocalCluster.bytes("race-" + k);
    }
}
