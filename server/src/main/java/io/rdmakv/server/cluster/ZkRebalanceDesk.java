package io.rdmakv.server.cluster;

import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.protocol.CodedRefusalMessage;
import io.rdmakv.common.protocol.ControlMessage;
import io.rdmakv.common.protocol.RebalanceMessage;
import io.rdmakv.common.protocol.RebalanceOkMessage;
import io.rdmakv.common.protocol.wire.ReasonCode;
import io.rdmakv.server.cluster.map.AutoRequest;
import io.rdmakv.server.cluster.map.DrainRequest;
import io.rdmakv.server.cluster.map.MapPlanner;
import io.rdmakv.server.cluster.map.MemberInfo;
import io.rdmakv.server.cluster.map.MoveRequest;
import io.rdmakv.server.cluster.map.RebalanceSwitch;
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
 * members it sees). A drain ({@link DrainRequest}) creates or deletes {@code drain/<id>}; the growth switch
 * ({@link AutoRequest}) is read and written at {@code rebalance/auto}. Each request on a thread of its own ({@code rdmakv-rebalance-<id>}), never the control agent's.
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
        final byte[] json = message.json().getBytes(StandardCharsets.UTF_8);
        if (DrainRequest.isDrain(json))
        {
            return drain(message, json);
        }
        if (AutoRequest.isAuto(json))
        {
            return auto(message, json);
        }
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

    /**
     * The growth switch ({@code kvctl rebalance --auto}): says what {@code rebalance/auto} holds, and for {@code on}
     * or {@code off} (not a dry run) writes it. The coordinator watches the znode: on, R spares of one geometry form a
     * new group and partitions move by shares (rules 4 and 5); off, no new group forms and no move starts by itself
     * (batches already in the map finish, drains and the operator's requests still move partitions).
     */
    private ControlMessage auto(final RebalanceMessage message, final byte[] json)
    {
        final AutoRequest request;
        try
        {
            request = AutoRequest.fromJson(json);
        }
        catch (final IllegalArgumentException e)
        {
            return CodedRefusalMessage.error(message.requestId(), ReasonCode.MALFORMED_MESSAGE.code(),
                e.getMessage() + "; nothing written");
        }
        final String now;
        try
        {
            now = switchState(client.checkExists().forPath(ZkPaths.REBALANCE_AUTO) == null ? null :
                client.getData().forPath(ZkPaths.REBALANCE_AUTO));
        }
        catch (final Exception e)
        {
            return CodedRefusalMessage.error(message.requestId(), ReasonCode.INTERNAL.code(),
                "cannot read " + ZkPaths.REBALANCE_AUTO + " in ZooKeeper: " + e);
        }
        if (request.setting() == AutoRequest.Setting.STATUS || message.dryRun())
        {
            return new RebalanceOkMessage(message.requestId(), RebalanceOkMessage.Outcome.WOULD_ACT,
                ZkPaths.REBALANCE_AUTO + " is " + now + (request.setting() == AutoRequest.Setting.STATUS ? "" :
                "; would set it " + request.setting().word()) + "; nothing written");
        }
        final String word = request.setting().word();
        try
        {
            client.create().orSetData().creatingParentsIfNeeded().forPath(ZkPaths.REBALANCE_AUTO,
                word.getBytes(StandardCharsets.UTF_8));
        }
        catch (final Exception e)
        {
            LOG.log(System.Logger.Level.WARNING, "node " + nodeId + ": cannot write " + ZkPaths.REBALANCE_AUTO + ": " +
                e);
            return CodedRefusalMessage.error(message.requestId(), ReasonCode.INTERNAL.code(),
                "cannot write " + ZkPaths.REBALANCE_AUTO + " in ZooKeeper: " + e);
        }
        LOG.log(System.Logger.Level.INFO, "node " + nodeId + ": set " + ZkPaths.REBALANCE_AUTO + " " + word +
            " (the operator's; it was " + now + ")");
        return new RebalanceOkMessage(message.requestId(), RebalanceOkMessage.Outcome.REQUESTED,
            ZkPaths.REBALANCE_AUTO + " was " + now + ", now " + word + (request.setting() == AutoRequest.Setting.ON ?
            ": R spares of one geometry form a new group, and partitions move by the groups' shares" :
            ": no group forms and no partition moves by itself (batches under way finish; drains and move " +
            "requests still move partitions)"));
    }

    /** What {@code data} (null: no znode) means for the switch, in words. */
    private static String switchState(final byte[] data)
    {
        if (data == null)
        {
            return "off (absent)";
        }
        try
        {
            return RebalanceSwitch.isOn(data) ? "on" : "off";
        }
        catch (final IllegalArgumentException e)
        {
            return "unreadable, taken as off (" + e.getMessage() + ")";
        }
    }

    /**
     * A drain ({@code kvctl drain}): checks the node is in the map this node applied (a cancel also when only its
     * {@code drain/<id>} is left, the node gone), then creates or deletes {@code drain/<id>} (nothing, for a dry
     * run) and says what the node is now, as this node's map shows it.
     */
    private ControlMessage drain(final RebalanceMessage message, final byte[] json)
    {
        final DrainRequest request;
        try
        {
            request = DrainRequest.fromJson(json);
        }
        catch (final IllegalArgumentException e)
        {
            return CodedRefusalMessage.error(message.requestId(), ReasonCode.MALFORMED_MESSAGE.code(),
                "malformed drain request, nothing written: " + e.getMessage());
        }
        final ClusterMap current = map.get();
        if (current == null)
        {
            return CodedRefusalMessage.error(message.requestId(), ReasonCode.INTERNAL.code(),
                "node " + nodeId + " has applied no cluster map yet: ask again, or ask another node; nothing written");
        }
        final int id = request.node();
        final String path = ZkPaths.drain(id);
        final boolean draining;
        try
        {
            draining = client.checkExists().forPath(path) != null;
        }
        catch (final Exception e)
        {
            return CodedRefusalMessage.error(message.requestId(), ReasonCode.INTERNAL.code(),
                "cannot read " + path + " in ZooKeeper: " + e);
        }
        if (current.node(id) == null && !(request.cancel() && draining))
        {
            return CodedRefusalMessage.error(message.requestId(), ReasonCode.MALFORMED_MESSAGE.code(),
                "node " + id + " is not in the cluster map (epoch " + current.epoch() + ", nodes " +
                current.nodes().stream().map(io.rdmakv.common.cluster.ClusterNode::id).toList() +
                (request.cancel() ? ") and is not being drained" : ")") + ": nothing written");
        }
        final String state = drainState(current, id, !request.cancel());
        if (message.dryRun())
        {
            return new RebalanceOkMessage(message.requestId(), RebalanceOkMessage.Outcome.WOULD_ACT,
                "would " + (request.cancel() ? "delete " : "create ") + path + " (" + (draining ? "present" :
                "absent") + " now); " + state + "; nothing written");
        }
        try
        {
            if (request.cancel() && draining)
            {
                client.delete().quietly().forPath(path);
            }
            else if (!request.cancel() && !draining)
            {
                client.create().orSetData().creatingParentsIfNeeded().forPath(path, new byte[0]);
            }
        }
        catch (final Exception e)
        {
            LOG.log(System.Logger.Level.WARNING, "node " + nodeId + ": cannot write " + path + ": " + e);
            return CodedRefusalMessage.error(message.requestId(), ReasonCode.INTERNAL.code(),
                "cannot " + (request.cancel() ? "delete " : "create ") + path + " in ZooKeeper: " + e);
        }
        LOG.log(System.Logger.Level.INFO, "node " + nodeId + ": " + (request.cancel() ? "deleted " : "created ") +
            path + " (the operator's drain" + (request.cancel() ? " cancelled)" : ")"));
        final String did = request.cancel() ?
            (draining ? "drain of node " + id + " cancelled (" + path + " deleted): batches under way finish, no " +
                "new one starts for it" : "node " + id + " was not being drained: nothing to cancel") :
            (draining ? "node " + id + " is already being drained" : "node " + id + " is being drained (" + path +
                " created)");
        return new RebalanceOkMessage(message.requestId(), RebalanceOkMessage.Outcome.REQUESTED, did + "; " + state);
    }

    /** Node {@code id} in {@code map}, as a drain sees it ({@code draining}: after the request). */
    static String drainState(final ClusterMap map, final int id, final boolean draining)
    {
        final String seen = " (as the map of epoch " + map.epoch() + " shows it)";
        if (map.node(id) == null)
        {
            return "node " + id + " is not in the map" + seen;
        }
        final io.rdmakv.common.cluster.ReplicaGroup group = map.groupOfNode(id);
        if (group == null)
        {
            return "node " + id + " is a spare" + seen + (draining ? ": drained, safe to stop (it joins no group)" :
                "");
        }
        if (group.isCopying(id))
        {
            return "node " + id + " is copying into group " + group.id() + seen +
                (draining ? ": it leaves the group in the next map" : "");
        }
        int owned = 0;
        for (final int g : map.partitionGroups())
        {
            owned += g == group.id() ? 1 : 0;
        }
        final int moving = map.moves().batches().stream().filter(b -> b.source() == group.id())
            .mapToInt(io.rdmakv.common.cluster.MoveBatch::size).sum();
        return "node " + id + " is in group " + group.id() + seen + ", which owns " + owned + " partition(s), " +
            moving + " moving away" + (draining ? ": draining, not safe to stop until the group is dissolved and " +
            "the node shows as a spare (ask again: kvctl drain " + id + ")" : "");
    }

    /** Stops taking requests; one under way finishes. */
    @Override
    public void close()
    {
        thread.shutdown();
    }
}
