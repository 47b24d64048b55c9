package io.rdmakv.systemtests.cluster;

import io.rdmakv.client.KvClient;
import io.rdmakv.client.TableFullException;
import io.rdmakv.common.layout.RegionGeometry;
import io.rdmakv.systemtests.LocalCluster;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A measurement, not run by default ({@code -Dtest=IndexFillMeasure}): two 32 MiB nodes, R = 2, the default
 * 4096 partitions (index segments of 8 bucket groups), filled with small keys until the first
 * {@code TableFullException}; prints the index load then (figures in limitations.md), and the same at 64 partitions
 * (segments of 512 groups).
 */
class IndexFillMeasure extends ZkClusterTestBase
{
    private static final int THREADS = 4;

    private double fill(final List<String> nodeArgs) throws Exception
    {
        startReplicated(2, 2, false, nodeArgs);
        final long slots = RegionGeometry.forMemory(32L << 20).slotCount();
        final AtomicLong inserted = new AtomicLong();
        final AtomicBoolean full = new AtomicBoolean();
        try (KvClient client = KvClient.connect(LocalCluster.clientConfig(cluster.seeds())))
        {
            final ExecutorService pool = Executors.newFixedThreadPool(THREADS);
            try
            {
                final List<Future<?>> writers = new java.util.ArrayList<>();
                for (int t = 0; t < THREADS; t++)
                {
                    final int thread = t;
                    writers.add(pool.submit(() ->
                    {
                        for (long i = thread; !full.get(); i += THREADS)
                        {
                            try
                            {
                                client.put(LocalCluster.bytes("fill-" + i), new byte[] {1});
                                inserted.incrementAndGet();
                            }
                            catch (final TableFullException e)
                            {
                                full.set(true);
                            }
                        }
                        return null;
                    }));
                }
                for (final Future<?> w : writers)
                {
                    w.get();
                }
            }
            finally
            {
                pool.shutdownNow();
            }
        }
        cluster.close();
        cluster = null;
        return (double)inserted.get() / slots;
    }

    @Test
    void indexLoadAtTheFirstTableFull() throws Exception
    {
        final double many = fill(List.of());
        dir = java.nio.file.Files.createDirectories(dir.resolve("sixty-four"));
        final double few = fill(List.of("--partitions", "64"));
        System.out.printf("replicated 32 MiB nodes (32,768 index groups): index load at the first table-full %.3f " +
            "at 4096 partitions (segments of 8 groups), %.3f at 64 partitions (segments of 512 groups)%n", many, few);
        assertTrue(many > 0.3 && many < few, many + " vs " + few);
    }
}
