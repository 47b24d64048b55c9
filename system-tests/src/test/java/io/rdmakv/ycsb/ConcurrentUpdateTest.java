package io.rdmakv.ycsb;

import io.rdmakv.systemtests.LocalCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import site.ycsb.Status;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static io.rdmakv.ycsb.RdmaKvClientTest.fields;
import static io.rdmakv.ycsb.RdmaKvClientTest.read;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** Threads updating different fields of one record: every field keeps its thread's last write. */
class ConcurrentUpdateTest
{
    private static final int THREADS = 8;
    private static final int UPDATES = 200;

    private static LocalCluster cluster;

    @BeforeAll
    static void startServer()
    {
        cluster = new LocalCluster();
    }

    @AfterAll
    static void stopServer()
    {
        cluster.close();
    }

    @Test
    void concurrentUpdatesOfDifferentFieldsLoseNothing() throws Exception
    {
        final RdmaKvClient reader = Bindings.db(cluster);
        final Map<String, String> initial = new HashMap<>();
        for (int t = 0; t < THREADS; t++)
        {
            initial.put("field" + t, "initial");
        }
        initial.put("untouched", "kept");
        assertEquals(Status.OK, reader.insert("usertable", "contended", fields(flatten(initial))));

        final ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        final CountDownLatch start = new CountDownLatch(1);
        final List<Future<Void>> results = new ArrayList<>();
        for (int t = 0; t < THREADS; t++)
        {
            final String field = "field" + t;
            results.add(pool.submit(() ->
            {
                final RdmaKvClient db = Bindings.db(cluster);
                try
                {
                    start.await();
                    for (int i = 1; i <= UPDATES; i++)
                    {
                        assertEquals(Status.OK, db.update("usertable", "contended", fields(field, field + "=" + i)));
                    }
                }
                finally
                {
                    db.cleanup();
                }
                return null;
            }));
        }
        start.countDown();
        for (final Future<Void> result : results)
        {
            result.get();
        }
        pool.shutdown();

        final Map<String, String> expected = new HashMap<>();
        for (int t = 0; t < THREADS; t++)
        {
            expected.put("field" + t, "field" + t + "=" + UPDATES);
        }
        expected.put("untouched", "kept");
        try
        {
            assertEquals(expected, read(reader, "contended", null));
            assertEquals(THREADS * UPDATES, reader.counters().updates.sum());
            System.out.println("version conflicts retried: " + reader.counters().updateRetries.sum());
        }
        finally
        {
            reader.cleanup();
        }
    }

    private static String[] flatten(final Map<String, String> map)
    {
        final List<String> result = new ArrayList<>();
        map.forEach((k, v) ->
        {
            result.add(k);
            result.add(v);
        });
        return result.toArray(String[]::new);
    }
}
