package io.rdmakv.systemtests.replication;

import io.rdmakv.client.KvClient;
import io.rdmakv.common.hash.KeyHash;
import io.rdmakv.server.KvServer;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.systemtests.ClusterFiles;
import io.rdmakv.systemtests.LocalCluster;
import io.rdmakv.systemtests.peer.RegionView;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Nodes 0..n-1 forming one replica group under a static replicated map (no ZooKeeper: the map names node 0
 * primary and the others its backups in id order), so that the client's chain can be tested on its own. Node i
 * listens at {@link LocalCluster#nodeHost} of i.
 */
final class ReplicatedPair implements AutoCloseable
{
    /** The map's partition count. */
    static final int PARTITIONS = 64;

    final KvServer[] nodes;
    final int[] ports;

    private ReplicatedPair(final KvServer[] nodes, final int[] ports)
    {
        this.nodes = nodes;
        this.ports = ports;
    }

    /**
     * Nodes whose data areas a test may WRITE with {@link io.rdmakv.systemtests.peer.RegionView}, as a bug or bad
     * memory would (memory windows off: with them no session can, {@code ReplicaWindowsTest}), scrubbed only on
     * demand.
     */
    static ServerConfig strayWritesAllowed()
    {
        return ServerConfig.local(LocalCluster.MEMORY).withScrubInterval(0)
            .withMemoryWindows(io.rdmakv.server.config.MemoryWindowMode.OFF);
    }

    /** Starts {@code n} nodes of one group, primary node 0; retries a lost port race. */
    static ReplicatedPair start(final Path dir, final int n)
    {
        return start(dir, n, ServerConfig.local(LocalCluster.MEMORY));
    }

    /** {@link #start(Path, int)} with nodes configured as {@code base} (memory, chunk size, ...). */
    static ReplicatedPair start(final Path dir, final int n, final ServerConfig base)
    {
        return start(dir, n, base, null);
    }

    /**
     * {@link #start(Path, int, ServerConfig)} under a map whose segment table gives partition p the index segment
     * {@code segments[p]} ({@code KeyHash#segment}, one per each of the map's {@value #PARTITIONS} partitions); null:
     * no table (the whole index is every partition's).
     */
    static ReplicatedPair start(final Path dir, final int n, final ServerConfig base, final long[] segments)
    {
        for (int attempt = 1; ; attempt++)
        {
            final int[] ports = ClusterFiles.freePorts(n);
            final Path map = write(dir, ports, segments);
            final KvServer[] nodes = new KvServer[n];
            try
            {
                for (int id = 0; id < n; id++)
                {
                    nodes[id] = LocalCluster.startNode(base.withCluster(id, map)
                        .withListen("127.0.0.1", ports[id]));
                }
                return new ReplicatedPair(nodes, ports);
            }
            catch (final UncheckedIOException e)
            {
                LocalCluster.closeAll(nodes);
                if (attempt == 3)
                {
                    throw e;
                }
            }
        }
    }

    private static Path write(final Path dir, final int[] ports, final long[] segments)
    {
        final StringBuilder json = new StringBuilder("{\"epoch\": 1, \"nodes\": [");
        final int[] members = new int[ports.length];
        for (int i = 0; i < ports.length; i++)
        {
            json.append(i == 0 ? "" : ", ").append("{\"id\": ").append(i).append(", \"host\": \"")
                .append(LocalCluster.nodeHost(i)).append("\", ")
                .append("\"port\": ").append(ports[i]).append('}');
            members[i] = i;
        }
        final int[] partitions = new int[PARTITIONS];
        json.append("], \"replicas\": ").append(ports.length).append(", \"groups\": [{\"id\": 0, \"members\": ")
            .append(Arrays.toString(members)).append("}], \"partition_groups\": ").append(Arrays.toString(partitions));
        if (segments != null)
        {
            json.append(", \"segments\": [");
            for (int p = 0; p < segments.length; p++)
            {
                json.append(p == 0 ? "" : ", ").append(KeyHash.segmentBase(segments[p])).append(", ")
                    .append(KeyHash.segmentCount(segments[p]));
            }
            json.append(']');
        }
        json.append('}');
        try
        {
            return Files.writeString(dir.resolve("replicated.json"), json);
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException(e);
        }
    }

    KvClient client()
    {
        return KvClient.connect(LocalCluster.clientConfig(address(0)));
    }

    /** "host:port" of node {@code id} (as {@link LocalCluster#startNode} placed it). */
    String address(final int id)
    {
        return LocalCluster.address(nodes[id]);
    }

    /**
     * Asserts that every replica's index holds exactly the primary's used slots, and that each block they
     * name is byte for byte the primary's.
     */
    void assertReplicasEqual()
    {
        try (RegionView primary = new RegionView(ports[0]))
        {
            final TreeMap<Long, RegionView.Slot> expected = slots(primary);
            for (int i = 1; i < ports.length; i++)
            {
                try (RegionView backup = new RegionView(ports[i]))
                {
                    final TreeMap<Long, RegionView.Slot> seen = slots(backup);
                    assertEquals(expected.keySet(), seen.keySet(), "backup " + i + " has the primary's used slots");
                    final List<String> differ = new ArrayList<>();
                    for (final RegionView.Slot slot : expected.values())
                    {
                        if (seen.get(slot.slotOffset()).word() != slot.word())
                        {
                            differ.add(Long.toString(slot.slotOffset()));
                        }
                    }
                    assertEquals(List.of(), differ, "slots of backup " + i + " holding another word");
                    for (final RegionView.Slot slot : expected.values())
                    {
                        assertArrayEquals(primary.bytes(slot.blockOffset(), slot.blockLength()),
                            backup.bytes(slot.blockOffset(), slot.blockLength()),
                            "block of slot " + slot.slotOffset() + " on backup " + i);
                    }
                }
            }
        }
    }

    private static TreeMap<Long, RegionView.Slot> slots(final RegionView view)
    {
        final TreeMap<Long, RegionView.Slot> bySlot = new TreeMap<>();
        for (final RegionView.Slot slot : view.usedSlots())
        {
            bySlot.put(slot.slotOffset(), slot);
        }
        return bySlot;
    }

    @Override
    public void close()
    {
        LocalCluster.closeAll(nodes);
    }
}
