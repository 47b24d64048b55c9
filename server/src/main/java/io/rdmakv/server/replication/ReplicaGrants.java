package io.rdmakv.server.replication;

import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.ClusterNode;
import io.rdmakv.common.cluster.ReplicaGroup;
import io.rdmakv.common.layout.RegionGeometry;
import io.rdmakv.common.protocol.ControlMessage;
import io.rdmakv.common.protocol.GrantMessage;
import io.rdmakv.common.protocol.GrantReplyMessage;
import io.rdmakv.common.protocol.wire.MessageType;
import io.rdmakv.peer.NodeSession;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.server.control.GrantPeers;
import io.rdmakv.verbs.Context;
import io.rdmakv.verbs.ProtectionDomain;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The node-to-node half of memory windows in a replicated group (docs/design.md, "Windows in a replicated group"),
 * on a thread of its own so that the control agent never waits for a peer:
 * <ul>
 *   <li>a primary has every other replica of its group (backups and copying nodes) revoke a session's grant
 *       (REVOKE_GRANT) before it grants that session another extent ({@link #revoke});</li>
 *   <li>a backup or copying node asks its group's primary whether a session holds the grant a client names in
 *       BIND_WINDOW (CHECK_GRANT, {@link #check}) before it binds a window over it.</li>
 * </ul>
 * Each peer is reached over a session of this node's own ({@link PeerSessions}: auth token, TLS), kept open between
 * calls with its lease kept by heartbeats from this thread ({@link #KEEP_ALIVE_MILLIS}), closed after {@link
 * #IDLE_CLOSE_NANOS} unused, and opened again once when a call finds it broken (a map change fenced it). The
 * peers are those of the map of the moment. A call that gets no answer fails with a message naming the node.
 */
public final class ReplicaGrants implements GrantPeers, AutoCloseable
{
    /** How often the kept sessions are heartbeated (each when its node's interval has passed). */
    static final long KEEP_ALIVE_MILLIS = 100;
    /** A kept session unused this long is closed (a peer no longer of this node's group, or grants are rare). */
    static final long IDLE_CLOSE_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(60);

    private final PeerSessions peers;
    private final Supplier<ClusterMap> map;
    private final int nodeId;
    private static final System.Logger LOG = System.getLogger(ReplicaGrants.class.getName());

    private final ScheduledExecutorService worker = Executors.newSingleThreadScheduledExecutor(r ->
    {
        final Thread t = new Thread(r, "rdmakv-replica-grants");
        t.setDaemon(true);
        return t;
    });
    /** Worker thread only. */
    private final Map<InetSocketAddress, NodeSession> open = new HashMap<>();
    /** When each kept session was last used (worker thread only). */
    private final Map<InetSocketAddress, Long> lastUse = new HashMap<>();

    public ReplicaGrants(final Context context, final ProtectionDomain pd, final RegionGeometry geometry,
        final ServerConfig config, final Supplier<ClusterMap> map)
    {
        this.peers = new PeerSessions(context, pd, geometry, config);
        this.map = map;
        this.nodeId = config.nodeId();
        worker.scheduleWithFixedDelay(this::keepAlive, KEEP_ALIVE_MILLIS, KEEP_ALIVE_MILLIS, TimeUnit.MILLISECONDS);
    }

    /** Heartbeats the kept sessions that are due; closes the broken and the long unused ones. */
    private void keepAlive()
    {
        final long now = System.nanoTime();
        for (final InetSocketAddress address : List.copyOf(open.keySet()))
        {
            final NodeSession session = open.get(address);
            if (session.isBroken() || now - lastUse.getOrDefault(address, now) > IDLE_CLOSE_NANOS)
            {
                close(address);
            }
            else
            {
                session.heartbeatIfDue(now);
            }
        }
    }

    @Override
    public Role role()
    {
        return roleIn(map.get(), nodeId);
    }

    /** {@code node}'s role under {@code current}. */
    private static Role roleIn(final ClusterMap current, final int node)
    {
        if (current == null || current.isSimple())
        {
            return Role.ALONE;
        }
        final ReplicaGroup group = current.groupOfNode(node);
        if (group == null || group.lost())
        {
            return Role.ALONE;
        }
        if (group.primary() != node)
        {
            return Role.REPLICA;
        }
        return group.memberCount() > 1 || group.copyingCount() > 0 ? Role.PRIMARY : Role.ALONE;
    }

    /**
     * Has every backup and copying node of this node's group deallocate the windows bound for {@code session}'s
     * grant under {@code secret}. Completes once each answered GRANT_REVOKED, or exceptionally naming the first node
     * that did not (the grant then stays revoked on the primary, and is revoked again before the next grant).
     */
    @Override
    public CompletableFuture<Void> revoke(final long session, final long secret)
    {
        return CompletableFuture.runAsync(() ->
        {
            final ClusterMap current = map.get();
            final ReplicaGroup group = current == null ? null : current.groupOfNode(nodeId);
            if (group == null || group.primary() != nodeId)
            {
                return;
            }
            final List<ClusterNode> replicas = new ArrayList<>();
            for (int i = 1; i < group.memberCount(); i++)
            {
                replicas.add(current.node(group.member(i)));
            }
            for (int i = 0; i < group.copyingCount(); i++)
            {
                replicas.add(current.node(group.copying(i)));
            }
            for (final ClusterNode replica : replicas)
            {
                call(replica, "revoke a grant", MessageType.GRANT_REVOKED,
                    id -> GrantMessage.revoke(id, session, secret));
            }
        }, worker);
    }

    /**
     * Asks this node's group's primary whether a session of {@code writer} holds the grant {@code bind} names:
     * true or false from the primary, or exceptionally when it cannot be asked (no primary of this node's group,
     * this node is that primary, no answer).
     */
    @Override
    public CompletableFuture<Boolean> check(final long writer, final GrantMessage bind)
    {
        return CompletableFuture.supplyAsync(() ->
        {
            final ClusterMap current = map.get();
            if (roleIn(current, nodeId) != Role.REPLICA)
            {
                throw new IllegalStateException("this node is no backup or copying node of a replica group, so it " +
                    "has no primary to check a grant with");
            }
            final ClusterNode primary = current.node(current.groupOfNode(nodeId).primary());
            final GrantReplyMessage reply = call(primary, "check a grant", MessageType.GRANT_CHECKED,
                id -> GrantMessage.check(id, writer, bind));
            return reply.value() == 1;
        }, worker);
    }

    /** One request to {@code node} over the kept session, opened again once if it is broken or gets no answer. */
    private GrantReplyMessage call(final ClusterNode node, final String what, final MessageType expected,
        final java.util.function.LongFunction<GrantMessage> request)
    {
        final InetSocketAddress address = new InetSocketAddress(node.host(), node.port());
        String why = null;
        for (int attempt = 0; attempt < 2; attempt++)
        {
            final NodeSession session;
            try
            {
                session = session(address);
            }
            catch (final RuntimeException e)
            {
                why = e.getMessage();
                continue;
            }
            session.heartbeatIfDue(System.nanoTime());
            final ControlMessage reply = session.control().call(request.apply(session.control().nextRequestId()));
            final GrantReplyMessage answer = GrantReplyMessage.as(expected, reply);
            if (answer != null)
            {
                return answer;
            }
            why = reply == null ? (session.isBroken() ? "connection lost or timed out" : "no answer") :
                "answered " + reply;
            close(address);
        }
        throw new IllegalStateException("cannot " + what + " with node " + node.id() + " (" + address + "): " + why);
    }

    private NodeSession session(final InetSocketAddress address)
    {
        NodeSession session = open.get(address);
        if (session != null && (session.isBroken() || session.shutdownNoticed()))
        {
            close(address);
            session = null;
        }
        if (session == null)
        {
            session = peers.open(address);
            open.put(address, session);
        }
        lastUse.put(address, System.nanoTime());
        return session;
    }

    private void close(final InetSocketAddress address)
    {
        final NodeSession session = open.remove(address);
        lastUse.remove(address);
        if (session != null)
        {
            session.close();
        }
    }

    /** How long {@link #close} waits for the worker to close the sessions (a check under way finishes first). */
    static final long CLOSE_WAIT_SECONDS = 10;

    /**
     * Closes the kept sessions on the worker, and waits for it: the node closes its protection domain next, which
     * must not hold their queue pairs and memory (ibverbs refused it, EBUSY, in every replicated test's teardown in
     * the Soft-RoCE VM while this returned at once).
     */
    @Override
    public void close()
    {
        worker.submit(() ->
        {
            for (final NodeSession session : open.values())
            {
                session.close();
            }
            open.clear();
        });
        worker.shutdown();
        try
        {
            if (!worker.awaitTermination(CLOSE_WAIT_SECONDS, TimeUnit.SECONDS))
            {
                LOG.log(System.Logger.Level.WARNING, "grant checks with peers still under way after " +
                    CLOSE_WAIT_SECONDS + " s; closing without them");
            }
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
    }
}
