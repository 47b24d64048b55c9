package io.rdmakv.client;

import io.rdmakv.client.internal.session.Router;
import io.rdmakv.client.internal.session.Session;
import io.rdmakv.common.cluster.ClusterNode;
import io.rdmakv.common.protocol.CodedRefusalMessage;
import io.rdmakv.common.protocol.ControlMessage;
import io.rdmakv.common.protocol.RebalanceOkMessage;
import io.rdmakv.common.protocol.ScrubOkMessage;
import io.rdmakv.common.protocol.StatsOkMessage;
import io.rdmakv.common.protocol.wire.MessageType;
import io.rdmakv.peer.Status;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;
import java.util.function.Predicate;

/**
 * The client's questions to nodes over the control plane (STATS, DAMAGE_SCAN), each on this thread's
 * session with the node, held for the call like any operation. Control path: allocates.
 */
final class NodeQueries
{
    /** Turns a failed session into the exception to throw. */
    @FunctionalInterface
    interface Failure
    {
        KvException of(Session session, int status, String operation);
    }

    private final java.util.function.Supplier<Router> routers;
    /** This thread's session with a node, by node id (opened if needed). */
    private final IntFunction<Session> sessions;
    private final Failure failure;

    NodeQueries(final java.util.function.Supplier<Router> routers, final IntFunction<Session> sessions,
        final Failure failure)
    {
        this.routers = routers;
        this.sessions = sessions;
        this.failure = failure;
    }

    Map<Integer, StatsOkMessage> nodeStats()
    {
        final Map<Integer, StatsOkMessage> result = new LinkedHashMap<>();
        for (final ClusterNode node : routers.get().map().nodes())
        {
            result.put(node.id(), nodeStats(node.id()));
        }
        return result;
    }

    StatsOkMessage nodeStats(final int nodeId)
    {
        listed(nodeId);
        final StatsOkMessage[] stats = new StatsOkMessage[1];
        ask(nodeId, "stats", session -> (stats[0] = session.stats()) != null);
        return stats[0];
    }

    /** Throws {@link IllegalArgumentException} when the client's cluster map has no node {@code nodeId}. */
    private void listed(final int nodeId)
    {
        if (routers.get().nodeIndex(nodeId) < 0)
        {
            throw new IllegalArgumentException("the cluster map has no node " + nodeId);
        }
    }

    /** How this client writes to node {@code nodeId}: {@link KvClient#ONE_SIDED} or {@link KvClient#NODE_ASSISTED}. */
    String writePath(final int nodeId)
    {
        listed(nodeId);
        final String[] path = new String[1];
        ask(nodeId, "writePath", session ->
        {
            path[0] = session.hello().nodeAssistedWrites() ? KvClient.NODE_ASSISTED : KvClient.ONE_SIDED;
            return true;
        });
        return path[0];
    }

    /**
     * SCRUB on node {@code nodeId} (a group's primary): what its pass over its backups did; waits up to {@code
     * timeout} for it.
     *
     * @throws KvException with the node's reason when it refused or the pass failed, or when it did not answer
     */
    ScrubOkMessage scrub(final int nodeId, final java.time.Duration timeout)
    {
        listed(nodeId);
        final ControlMessage[] reply = new ControlMessage[1];
        ask(nodeId, "scrub", session -> (reply[0] = session.scrub(timeout.toNanos())) != null);
        if (reply[0] instanceof ScrubOkMessage ok)
        {
            return ok;
        }
        throw new KvException("node " + nodeId + " did not scrub: " +
            (CodedRefusalMessage.as(MessageType.ERROR, reply[0]) instanceof CodedRefusalMessage error ? error.text() : "it answered " + reply[0].type()));
    }

    /**
     * REBALANCE on the first node of the map that answers (any node of a ZooKeeper cluster writes the request): its
     * REBALANCE_OK. A node that cannot be reached is passed over for the next.
     *
     * @throws KvException with the node's reason when it refused (a malformed request, a static cluster, a write
     *     ZooKeeper refused); {@link KvConnectionException} when no node answered
     */
    RebalanceOkMessage rebalance(final boolean dryRun, final String json, final java.time.Duration timeout)
    {
        final List<ClusterNode> nodes = routers.get().map().nodes();
        KvConnectionException unreachable = null;
        for (int i = 0; i < nodes.size(); i++)
        {
            final ControlMessage[] reply = new ControlMessage[1];
            try
            {
                ask(nodes.get(i).id(), "rebalance",
                    session -> (reply[0] = session.rebalance(dryRun, json, timeout.toNanos())) != null);
            }
            catch (final KvConnectionException e)
            {
                unreachable = e;
                continue;
            }
            if (reply[0] instanceof RebalanceOkMessage ok)
            {
                return ok;
            }
            throw new KvException("node " + nodes.get(i).id() + " refused the rebalance request: " +
                (CodedRefusalMessage.as(MessageType.ERROR, reply[0]) instanceof CodedRefusalMessage error ?
                    error.text() : "it answered " + reply[0].type()));
        }
        throw unreachable != null ? unreachable : new KvConnectionException("the cluster map lists no node");
    }

    DamageReport damagedSlots(final int limit)
    {
        final DamageListing listing = new DamageListing(limit);
        for (final ClusterNode node : routers.get().map().nodes())
        {
            final int id = node.id();
            ask(id, "damagedSlots", session -> listing.collect(session, id));
        }
        return listing.report();
    }

    /**
     * Runs {@code call} on this thread's session with node {@code nodeId} (found in the current map when the session
     * is opened), held meanwhile; throws when it reports failure.
     */
    private void ask(final int nodeId, final String operation, final Predicate<Session> call)
    {
        final Session session = sessions.apply(nodeId);
        final boolean answered;
        session.enter();
        try
        {
            answered = call.test(session);
        }
        finally
        {
            session.exit();
        }
        if (!answered)
        {
            throw failure.of(session, Status.CONNECTION_LOST, operation);
        }
    }
}
