package io.rdmakv.server.cluster;

import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.protocol.CodedRefusalMessage;
import io.rdmakv.common.protocol.ControlMessage;
import io.rdmakv.common.protocol.RebalanceMessage;
import io.rdmakv.common.protocol.RebalanceOkMessage;
import io.rdmakv.common.protocol.wire.ReasonCode;
import io.rdmakv.server.cluster.map.MapPlanner;
import io.rdmakv.server.cluster.map.MemberInfo;
import io.rdmakv.server.cluster.map.MoveRequest;
import io.rdmakv.server.cluster.zk.ZkPaths;
import io.rdmakv.server.control.RebalanceDesk;
import org.apache.curator.framework.CuratorFramework;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Supplier;

/**
 * A node's {@link RebalanceDesk} in a ZooKeeper cluster ({@code kvctl rebalance}, REBALANCE): parses the request as
 * the coordinator will ({@link MoveRequest#fromJson}) and then either writes it to {@code rebalance/request} (created,
 * or written over; the coordinator deletes it when it acts on it) or, for a dry run, writes nothing and says whether
 * the coordinator could act on it now ({@link MapPlanner#requestRefusal} over the map this node applied and the live
 * members it sees). Each request on a thread of its own ({@code rdmakv-rebalance-<id>}), never the control agent's.
 * The znode gets the node's ACL ({@code ZkAcls}) like every znode it creates.
 */
public final class ZkRebalanceDesk implements RebalanceDesk, AutoCloseable
{
    private static final System.Logger LOG = System.getLogger(ZkRebalanceDesk.class.getName());

    private final CuratorFramework client;
    private final Supplier<ClusterMap> map;
    private final Supplier<List<MemberInfo>> live;
    private final int nodeId;
    private final ExecutorService thread;

    /**
     * @param map  the map this node applied (null: none yet)
     * @param live the live members as this node sees them ({@code members/})
     */
    ZkRebalanceDesk(final CuratorFramework client, final Supplier<ClusterMap> map,
        final Supplier<List<MemberInfo>> live, final int nodeId)
    {
        this.client = client;
        this.map = map;
        this.live = live;
        this.nodeId = nodeId;
        this.thread = Executors.newSingleThreadExecutor(r ->
        {
            final Thread t = new Thread(r, "rdmakv-rebalance-" + nodeId);
            t.setDaemon(true);
            return t;
        });
    }

    @Override
    public CompletableFuture<ControlMessage> ask(final RebalanceMessage request)
    {
        try
        {
            return CompletableFuture.supplyAsync(() -> answer(request), thread);
        }
        catch (final RejectedExecutionException e)
        {
            return CompletableFuture.completedFuture(CodedRefusalMessage.error(request.requestId(),
                ReasonCode.SHUTTING_DOWN.code(), "node " + nodeId + " is leaving its cluster: ask another node"));
        }
    }

    /** The answer to {@code message}, blocking (ZooKeeper's write). */
    ControlMessage answer(final RebalanceMessage message)
    {
        final MoveRequest request;
        try
        {
            request = MoveRequest.fromJson(0, message.json().getBytes(StandardCharsets.UTF_8));
        }
        catch (final IllegalArgumentException e)
        {
            return CodedRefusalMessage.error(message.requestId(), ReasonCode.MALFORMED_MESSAGE.code(),
                "malformed move request, nothing written: " + e.getMessage());
        }
        if (request.moves().isEmpty() && request.cancel().isEmpty())
        {
            return CodedRefusalMessage.error(message.requestId(), ReasonCode.MALFORMED_MESSAGE.code(),
                "the move request asks for nothing (no move, no batch to cancel): nothing written");
        }
        final ClusterMap current = map.get();
        final List<MemberInfo> members = live.get();
        final String refusal = current == null ? "node " + nodeId + " has applied no cluster map yet" :
            MapPlanner.requestRefusal(current, members, request);
        final String seen = current == null ? "" : " (as node " + nodeId + " sees it: the map of epoch " +
            current.epoch() + ", " + members.size() + " live member(s))";
        if (message.dryRun())
        {
            return refusal == null ?
                new RebalanceOkMessage(message.requestId(), RebalanceOkMessage.Outcome.WOULD_ACT,
                    "the coordinator could act on it in its next map" + seen + "; nothing written") :
                new RebalanceOkMessage(message.requestId(), RebalanceOkMessage.Outcome.WOULD_WAIT,
                    refusal + seen + "; nothing written");
        }
        try
        {
            client.create().orSetData().creatingParentsIfNeeded().forPath(ZkPaths.REBALANCE_REQUEST,
                request.toJson());
        }
        catch (final Exception e)
        {
            LOG.log(System.Logger.Level.WARNING, "node " + nodeId + ": cannot write the move request " + request +
                ": " + e);
            return CodedRefusalMessage.error(message.requestId(), ReasonCode.INTERNAL.code(),
                "cannot write " + ZkPaths.REBALANCE_REQUEST + " in ZooKeeper: " + e);
        }
        LOG.log(System.Logger.Level.INFO, "node " + nodeId + ": wrote the operator's move request " + request.moves() +
            " cancel " + request.cancel() + " to " + ZkPaths.REBALANCE_REQUEST);
        return new RebalanceOkMessage(message.requestId(), RebalanceOkMessage.Outcome.REQUESTED, refusal == null ?
            "requested: the coordinator acts on it in its next map and then deletes " + ZkPaths.REBALANCE_REQUEST :
            "requested, but the coordinator cannot act on it now: " + refusal + seen + "; it waits in " +
            ZkPaths.REBALANCE_REQUEST + " (the coordinator logs why) until it can, or is replaced");
    }

    /** Stops taking requests; one under way finishes. */
    @Override
    public void close()
    {
        thread.shutdown();
    }
}
