package io.rdmakv.server.cluster;

import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.ClusterNode;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * This node's place in a static cluster map: the map must list the node's id, and that entry must be the
 * node's address: where it listens, or what it advertises (behind NAT or a proxy). A node that starts under
 * another node's address, or whose clients would be sent elsewhere, is a configuration error, refused
 * before anything starts.
 */
public final class ClusterMembership
{
    /** A cluster map this node cannot start with: a configuration error (kvserver exits 2, not restarted). */
    public static final class InvalidMembershipException extends IllegalArgumentException
    {
        private static final long serialVersionUID = 1L;

        InvalidMembershipException(final String message, final Throwable cause)
        {
            super(message, cause);
        }
    }

    private ClusterMembership()
    {
    }

    /**
     * Reads and checks the map in {@code file} for node {@code nodeId} listening on {@code host:port}.
     *
     * @throws InvalidMembershipException saying what is wrong (unreadable, malformed, node missing, address differs)
     */
    public static ClusterMap load(final Path file, final int nodeId, final String host, final int port)
    {
        final ClusterMap map;
        try
        {
            map = ClusterMap.fromJson(Files.readString(file));
        }
        catch (final IOException e)
        {
            throw new InvalidMembershipException("cannot read cluster map " + file + ": " + e.getMessage(), e);
        }
        catch (final IllegalArgumentException e)
        {
            throw new InvalidMembershipException("cluster map " + file + ": " + e.getMessage(), e);
        }
        final ClusterNode self = map.nodes().stream().filter(n -> n.id() == nodeId).findFirst().orElseThrow(() ->
            new InvalidMembershipException("cluster map " + file + " does not list node id " + nodeId, null));
        final boolean anyHost = "0.0.0.0".equals(host) || "::".equals(host);
        if (self.port() != port || !(anyHost || self.host().equals(host)))
        {
            throw new InvalidMembershipException("cluster map " + file + " lists node " + nodeId + " at " +
                self.host() + ":" + self.port() + ", but its address is " + host + ":" + port +
                " (--listen, or --advertise)", null);
        }
        return map;
    }
}
