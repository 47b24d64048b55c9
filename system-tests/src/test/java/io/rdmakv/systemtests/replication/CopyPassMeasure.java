package io.rdmakv.systemtests.replication;

import io.rdmakv.client.KvClient;
import io.rdmakv.common.layout.RegionGeometry;
import io.rdmakv.server.KvServer;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.server.replication.CopyReport;
import io.rdmakv.systemtests.LocalCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Measures {@link io.rdmakv.server.replication.RegionCopier} passes (prints, asserts no timing): node A filled
 * with {@code rdmakv.measure.copy.keys} keys of {@code rdmakv.measure.copy.value} bytes by 4 threads, then node B
 * copies it: a first pass (everything) and two passes over an unchanged index. Off unless
 * {@code -Drdmakv.measure.copy=true}:
 *
 * <pre>
 * scripts/mvn -o -B test -pl system-tests -am -Dtest=CopyPassMeasure -Dsurefire.failIfNoSpecifiedTests=false \
 *     -Drdmakv.measure.copy=true [-Drdmakv.measure.copy.keys=40000 -Drdmakv.measure.copy.value=4000 \
 *     -Drdmakv.measure.copy.memory=268435456]
 * </pre>
 */
@EnabledIfSystemProperty(named = "rdmakv.measure.copy", matches = "true")
class CopyPassMeasure
{
    @Test
    void measure() throws InterruptedException
    {
        final long memory = Long.getLong("rdmakv.measure.copy.memory", 256L << 20);
        final int keys = Integer.getInteger("rdmakv.measure.copy.keys", 40_000);
        final int valueSize = Integer.getInteger("rdmakv.measure.copy.value", 4_000);
        final ServerConfig config = ServerConfig.local(memory).toBuilder()
            .sessionQuotaBytes(RegionGeometry.forMemory(memory).dataLength()).build();
        try (KvServer a = LocalCluster.startNode(config); KvServer b = LocalCluster.startNode(config);
            KvClient client = LocalCluster.client(a))
        {
            final List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 4; t++)
            {
                final int first = t;
                threads.add(Thread.ofPlatform().start(() ->
                {
                    final byte[] value = new byte[valueSize];
                    for (int i = first; i < keys; i += 4)
                    {
                        value[0] = (byte)i;
                        client.put(LocalCluster.bytes("key-" + i), value);
                    }
                }));
            }
            for (final Thread t : threads)
            {
                t.join();
            }
            for (int pass = 0; pass < 3; pass++)
            {
                final CopyReport r = b.regionCopier().pass(new InetSocketAddress("127.0.0.1", a.port()));
                assertEquals(pass == 0 ? keys : 0, r.slotsChanged(), r.toString());
                System.out.printf("CopyPassMeasure %s: %d MiB nodes (index %d MiB), %d keys of %d B, pass %d: %.1f ms, " +
                    "%d blocks, %.1f MiB of blocks, %.1f MiB/s; %s%n", LocalCluster.TRANSPORT, memory >> 20,
                    a.geometry().indexLength() >> 20, keys, valueSize, pass, r.elapsedNanos() / 1e6, r.blocksCopied(),
                    r.bytesCopied() / 1048576.0, r.mibPerSecond(), r);
            }
        }
    }
}
