package io.rdmakv.systemtests;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;

/** Cluster map files of local nodes, and free ports to put in them. */
public final class ClusterFiles
{
    private ClusterFiles()
    {
    }

    /**
     * Writes a map of nodes 0..n-1 on 127.0.0.1 at {@code ports[i]} (64 partitions, round-robin) to
     * {@code dir/cluster.json}.
     */
    public static Path write(final Path dir, final int... ports)
    {
        final StringBuilder json = new StringBuilder("{\"epoch\": 1, \"nodes\": [");
        for (int i = 0; i < ports.length; i++)
        {
            json.append(i == 0 ? "" : ", ").append("{\"id\": ").append(i).append(", \"host\": \"127.0.0.1\", ")
                .append("\"port\": ").append(ports[i]).append('}');
        }
        json.append("]}");
        try
        {
            return Files.writeString(dir.resolve("cluster.json"), json);
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Ports that were free a moment ago (bound and released at once); a node started on one may still
     * lose it to another process, so callers retry.
     */
    public static int[] freePorts(final int n)
    {
        final ServerSocket[] held = new ServerSocket[n];
        try
        {
            final int[] ports = new int[n];
            for (int i = 0; i < n; i++)
            {
                held[i] = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                ports[i] = held[i].getLocalPort();
            }
            return ports;
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException(e);
        }
        finally
        {
            LocalCluster.closeAll(held);
        }
    }
}
