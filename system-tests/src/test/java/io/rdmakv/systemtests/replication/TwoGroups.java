package io.rdmakv.systemtests.replication;

import io.rdmakv.client.KvClient;
import io.rdmakv.server.KvServer;
import io.rdmakv.server.config.MemoryWindowMode;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.systemtests.ClusterFiles;
import io.rdmakv.systemtests.LocalCluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Two replica groups of two nodes under one static replicated map with a segment table (no ZooKeeper): group A is
 * nodes 0 (primary) and 1, group B nodes 2 (primary) and 3. Partitions {@code 0..P/2-1} are A's, the rest B's; each
 * has a segment of {@link #SEGMENT_GROUPS} groups, laid out from group 0 of its group's index in partition order, so
 * that everything from group {@code P/2 * SEGMENT_GROUPS} up is free for a move's target segments. Memory windows
 * are off unless asked for ({@link #start(Path, MemoryWindowMode)}: the partition copier WRITEs B's backups through
 * windows it binds there over its mover grants, or through their data area's rkey where windows are off). A sibling
 * of {@link ReplicatedPair}.
 */
final class TwoGroups implements AutoCloseable
{
    static final int PARTITIONS = 16;
    static final int SEGMENT_GROUPS = 256;

    final KvServer[] nodes;
    final int[] ports;

    private TwoGroups(final KvServer[] nodes, final int[] ports)
    {
        this.nodes = nodes;
        this.ports = ports;
    }

    static TwoGroups start(final Path dir)
    {
        return start(dir, MemoryWindowMode.OFF);
    }

    /** The two groups with memory windows {@code windows} on every node. */
    static TwoGroups start(final Path dir, final MemoryWindowMode windows)
    {
        final ServerConfig base = ServerConfig.local(LocalCluster.MEMORY).withScrubInterval(0)
            .withMemoryWindows(windows);
        for (int attempt = 1; ; attempt++)
        {
            final int[] ports = ClusterFiles.freePorts(4);
            final Path map = write(dir, ports);
            final KvServer[] nodes = new KvServer[4];
            try
            {
                for (int id = 0; id < 4; id++)
                {
                    nodes[id] = LocalCluster.startNode(base.withCluster(id, map).withListen("127.0.0.1", ports[id]));
                }
                return new TwoGroups(nodes, ports);
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

    private static Path write(final Path dir, final int[] ports)
    {
        final StringBuilder json = new StringBuilder("{\"epoch\": 1, \"nodes\": [");
        for (int i = 0; i < ports.length; i++)
        {
            json.append(i == 0 ? "" : ", ").append("{\"id\": ").append(i).append(", \"host\": \"")
                .append(LocalCluster.nodeHost(i)).append("\", \"port\": ").append(ports[i]).append('}');
        }
        json.append("], \"partitions\": " + PARTITIONS + ", \"replicas\": 2, \"groups\": [{\"id\": 0, \"members\": [0, 1]}, {\"id\": 1, \"members\": [2, 3]}]");
        final StringBuilder groups = new StringBuilder();
        final StringBuilder segments = new StringBuilder();
        for (int p = 0; p < PARTITIONS; p++)
        {
            groups.append(p == 0 ? "" : ", ").append(p < PARTITIONS / 2 ? 0 : 1);
            segments.append(p == 0 ? "" : ", ").append(p % (PARTITIONS / 2) * SEGMENT_GROUPS).append(", ")
                .append(SEGMENT_GROUPS);
        }
        json.append(", \"partition_groups\": [").append(groups).append("], \"segments\": [").append(segments)
            .append("]}");
        try
        {
            return Files.writeString(dir.resolve("two-groups.json"), json);
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException(e);
        }
    }

    KvClient client()
    {
        return KvClient.connect(LocalCluster.clientConfig(LocalCluster.address(nodes[0])));
    }

    InetSocketAddress endpoint(final int id)
    {
        return new InetSocketAddress("127.0.0.1", ports[id]);
    }

    @Override
    public void close()
    {
        LocalCluster.closeAll(nodes);
    }
}
