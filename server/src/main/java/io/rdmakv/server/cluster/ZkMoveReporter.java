package io.rdmakv.server.cluster;

import io.rdmakv.server.cluster.map.MoveReport;
import io.rdmakv.server.cluster.map.MoveState;
import io.rdmakv.server.cluster.zk.ZkPaths;
import org.apache.curator.framework.CuratorFramework;

import java.util.Map;

/** Writes a node's {@link MoveReport} to {@code moves/<id>}, an ephemeral of the node's session. */
public final class ZkMoveReporter implements MoveReporter
{
    private final CuratorFramework client;
    private final int nodeId;

    public ZkMoveReporter(final CuratorFramework client, final int nodeId)
    {
        this.client = client;
        this.nodeId = nodeId;
    }

    @Override
    public void report(final long epoch, final Map<Long, MoveState> batches) throws Exception
    {
        OwnZnode.write(client, ZkPaths.moves(nodeId), new MoveReport(nodeId, epoch, batches).toJson());
    }
}
