package io.rdmakv.systemtests.replication;

import io.rdmakv.client.KvClient;
import io.rdmakv.common.layout.RegionGeometry;
import io.rdmakv.server.KvServer;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.server.control.ServerCounter;
import io.rdmakv.systemtests.Await;
import io.rdmakv.systemtests.LocalCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;

/**
 * Measures the primary's sweep of its backups (prints, asserts no timing): a static group of {@code
 * rdmakv.measure.sweep.replicas} nodes of {@code rdmakv.measure.sweep.memory} bytes, {@code
 * rdmakv.measure.sweep.keys} keys written, then 10 times a client that writes one key and closes: the time from
 * its close to the sweep's reclaim (BYE, drain, the sweep of every backup's whole index, the reclaim scan; with one
 * replica, no sweep: the baseline). Off
 * unless {@code -Drdmakv.measure.sweep=true}:
 *
 * <pre>
 * scripts/mvn -o -B verify -pl system-tests -am -Dtest=SweepMeasure -Dsurefire.failIfNoSpecifiedTests=false \
 *     -Drdmakv.measure.sweep=true [-Drdmakv.measure.sweep.memory=268435456 -Drdmakv.measure.sweep.replicas=2]
 * </pre>
 */
@EnabledIfSystemProperty(named = "rdmakv.measure.sweep", matches = "true")
class SweepMeasure
{
    @TempDir
    Path dir;

    @Test
    void measure()
    {
        final long memory = Long.getLong("rdmakv.measure.sweep.memory", 256L << 20);
        final int replicas = Integer.getInteger("rdmakv.measure.sweep.replicas", 2);
        final int keys = Integer.getInteger("rdmakv.measure.sweep.keys", 10_000);
        final ServerConfig config = ServerConfig.local(memory).toBuilder()
            .sessionQuotaBytes(RegionGeometry.forMemory(memory).dataLength()).build();
        try (ReplicatedPair group = ReplicatedPair.start(dir, replicas, config); KvClient client = group.client())
        {
            for (int i = 0; i < keys; i++)
            {
                client.put(LocalCluster.bytes("key-" + i), new byte[100]);
            }
            final KvServer primary = group.nodes[0];
            final long[] millis = new long[10];
            for (int run = 0; run < millis.length; run++)
            {
                final long before = primary.counters().get(ServerCounter.CHAIN_SWEEPS);
                final long closed = primary.counters().get(ServerCounter.SESSIONS_CLOSED);
                try (KvClient once = group.client())
                {
                    once.put(LocalCluster.bytes("once-" + run), new byte[100]);
                }
                final long nanos = Await.until("the sweep and reclaim", Duration.ofSeconds(60),
                    () -> (replicas == 1 || primary.counters().get(ServerCounter.CHAIN_SWEEPS) > before) &&
                        primary.counters().get(ServerCounter.SESSIONS_CLOSED) > closed);
                millis[run] = nanos / 1_000_000;
            }
            Arrays.sort(millis);
            System.out.printf("SweepMeasure %s: %d nodes of %d MiB (index %d KiB each), %d keys: close to reclaim " +
                "median %d ms, min %d, max %d (%d sweeps, %d rolled back)%n", LocalCluster.TRANSPORT, replicas,
                memory >> 20, primary.geometry().indexLength() >> 10, keys, millis[millis.length / 2], millis[0],
                millis[millis.length - 1], primary.counters().get(ServerCounter.CHAIN_SWEEPS),
                primary.counters().get(ServerCounter.CHAIN_SWEEP_ROLLBACKS));
        }
    }
}
