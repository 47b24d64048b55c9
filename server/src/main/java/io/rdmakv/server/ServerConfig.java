package io.rdmakv.server;

import java.nio.file.Path;

/**
 * Everything a {@link KvServer} needs, built once by the command line (or a test) and immutable.
 *
 * @param listenHost  address of the bootstrap listener
 * @param listenPort  port of the bootstrap listener (0 picks a free one: tests)
 * @param memoryBytes size of the region (index plus data area)
 * @param transport   {@code auto}, {@code tcp} or {@code ibverbs}
 * @param nodeId      this node's id in the cluster map
 * @param clusterFile the cluster map (JSON), or null for a single-node cluster of this node alone
 * @param authToken   the token clients must present; empty accepts any client
 * @param graceNanos  how long freed space waits before reuse
 * @param chunkSize   bytes granted to a client per ALLOC
 */
public record ServerConfig(
    String listenHost,
    int listenPort,
    long memoryBytes,
    String transport,
    int nodeId,
    Path clusterFile,
    String authToken,
    long graceNanos,
    int chunkSize)
{
    public static final int DEFAULT_PORT = 7400;

    public ServerConfig
    {
        authToken = authToken == null ? "" : authToken;
    }

    /** A local test node: 127.0.0.1, a free port, the tcp transport, node 0, no token, 100 ms grace, 1 MiB chunks. */
    public static ServerConfig local(final long memoryBytes)
    {
        return new ServerConfig("127.0.0.1", 0, memoryBytes, "tcp", 0, null, "",
            io.rdmakv.common.SpaceTiming.DEFAULT_GRACE_NANOS, io.rdmakv.common.layout.RegionGeometry.DEFAULT_CHUNK_SIZE);
    }

    public ServerConfig withAuthToken(final String token)
    {
        return new ServerConfig(listenHost, listenPort, memoryBytes, transport, nodeId, clusterFile, token, graceNanos,
            chunkSize);
    }

    public ServerConfig withListen(final String host, final int port)
    {
        return new ServerConfig(host, port, memoryBytes, transport, nodeId, clusterFile, authToken, graceNanos,
            chunkSize);
    }

    public ServerConfig withCluster(final int id, final Path file)
    {
        return new ServerConfig(listenHost, listenPort, memoryBytes, transport, id, file, authToken, graceNanos,
            chunkSize);
    }

    public ServerConfig withGraceNanos(final long grace)
    {
        return new ServerConfig(listenHost, listenPort, memoryBytes, transport, nodeId, clusterFile, authToken, grace,
            chunkSize);
    }

    public ServerConfig withChunkSize(final int size)
    {
        return new ServerConfig(listenHost, listenPort, memoryBytes, transport, nodeId, clusterFile, authToken,
            graceNanos, size);
    }
}
