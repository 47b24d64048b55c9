package io.rdmakv.server.replication;

import io.rdmakv.peer.WaitStrategy;
import io.rdmakv.peer.NodeSession;
import io.rdmakv.peer.SessionFailedException;
import io.rdmakv.peer.SessionRefusedException;
import io.rdmakv.common.layout.RegionGeometry;
import io.rdmakv.common.protocol.HelloMessage;
import io.rdmakv.common.protocol.HelloOkMessage;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.verbs.Context;
import io.rdmakv.verbs.ProtectionDomain;

import javax.net.ssl.SSLContext;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * How a node opens a session of its own with another node of its replica group, as a client does: through this
 * node's device and protection domain, with the cluster's auth token and TLS ({@link PeerTls}), and a check that
 * the peer's region is laid out as this node's (same geometry, so a slot word and an offset mean the same on
 * both). A copying node reads its primary over one ({@link RegionCopier}); a primary sweeps its backups over one
 * ({@link BackupSweep}). Such a session is fenced with every other session of an older epoch, so it always talks
 * to the node as of the epoch it was opened under. Thread-safe (each call opens its own session).
 */
final class PeerSessions
{
    private static final long CONNECT_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(10);
    private static final long OP_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(5);

    private final Context context;
    private final ProtectionDomain pd;
    private final RegionGeometry geometry;
    private final byte[] authToken;
    private final SSLContext tls;
    /** This node's writer id in its peers' eyes, one for all its sessions (a writer of its own, like a client's). */
    private final long writerId;

    /** Sessions under a writer id of their own (a new random one). */
    PeerSessions(final Context context, final ProtectionDomain pd, final RegionGeometry geometry,
        final ServerConfig config)
    {
        this(context, pd, geometry, config, HelloMessage.newWriterId());
    }

    /**
     * Sessions under {@code writerId}: the node grant's ({@link NodeGrant}), for sessions that bind windows on
     * backups under it (the scrub's, the partition copier's).
     */
    PeerSessions(final Context context, final ProtectionDomain pd, final RegionGeometry geometry,
        final ServerConfig config, final long writerId)
    {
        this.writerId = writerId;
        this.context = context;
        this.pd = pd;
        this.geometry = geometry;
        this.authToken = config.authToken().getBytes(StandardCharsets.UTF_8);
        this.tls = PeerTls.of(config.tls());
    }

    /** The writer id every session this object opens names in its HELLO. */
    long writerId()
    {
        return writerId;
    }

    /**
     * A session with {@code peer}.
     *
     * @throws SessionRefusedException when the peer refuses it (token, TLS, not in its cluster, shutting down)
     * @throws SessionFailedException  when the peer cannot be reached or the set-up breaks
     */
    NodeSession open(final InetSocketAddress peer)
    {
        return open(peer, NodeSession.SEND_QUEUE_DEPTH);
    }

    /** As {@link #open(InetSocketAddress)}, with a send queue of {@code sendQueueDepth} work requests. */
    NodeSession open(final InetSocketAddress peer, final int sendQueueDepth)
    {
        return NodeSession.open(context, pd, peer, writerId, authToken, tls, CONNECT_TIMEOUT_NANOS, OP_TIMEOUT_NANOS,
            WaitStrategy.ADAPTIVE, NodeSession.Shape.PEER.withSendQueueDepth(sendQueueDepth));
    }

    /**
     * Fails (IllegalStateException naming both) unless the peer's region, as its HELLO_OK describes it, is laid
     * out as this node's; {@code what} names the operation for the message, e.g. "copy from primary".
     */
    void checkGeometry(final InetSocketAddress peer, final HelloOkMessage hello, final String what)
    {
        if (!geometry.equals(hello.geometry()) || hello.dataRegion().length() != geometry.dataLength() ||
            hello.indexRegion().length() < geometry.headerAndIndexLength())
        {
            throw new IllegalStateException("cannot " + what + " " + peer + ": its region geometry " +
                hello.geometry() + " (index region of " + hello.indexRegion().length() + " bytes, data region of " +
                hello.dataRegion().length() + ") differs from this node's " + geometry + ": the replicas of a group " +
                "need the same memory and chunk size");
        }
    }

    /** The map epoch {@code hello} says its node serves, or -1 when it serves none. */
    static long servedEpoch(final HelloOkMessage hello)
    {
        return hello.clusterMap() == null ? -1 : hello.clusterMap().epoch();
    }
}
