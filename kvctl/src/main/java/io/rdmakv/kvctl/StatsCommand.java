package io.rdmakv.kvctl;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rdmakv.client.KvException;
import io.rdmakv.common.cluster.ClusterNode;
import io.rdmakv.common.protocol.StatsOkMessage;
import picocli.CommandLine;
import picocli.CommandLine.Command;

import java.util.concurrent.Callable;

/**
 * {@code kvctl stats}: each node's memory, index load and clients (STATS over the control plane). Nodes that do
 * not answer are named, the others still shown; the exit code is then {@link KvCtl#UNREACHABLE}.
 */
@Command(name = "stats", description = "Prints each node's memory, index load and clients.")
final class StatsCommand implements Callable<Integer>
{
    @CommandLine.ParentCommand
    KvCtl parent;

    @Override
    public Integer call()
    {
        return parent.withClient((client, out) ->
        {
            final StringBuilder text = new StringBuilder();
            final ObjectNode document = out.object();
            final ArrayNode nodes = document.putArray("nodes");
            final ArrayNode unreachable = document.putArray("unreachable");
            for (final ClusterNode node : client.clusterMap().nodes())
            {
                final StatsOkMessage s;
                try
                {
                    s = client.nodeStats(node.id());
                }
                catch (final KvException e)
                {
                    text.append(String.format("node %d %s: UNREACHABLE: %s%n", node.id(), node.address(),
                        e.getMessage()));
                    unreachable.addObject().put("node", node.id()).put("address", node.address())
                        .put("error", e.getMessage());
                    continue;
                }
                final String writePath = writePath(client, node.id());
                final double load = s.indexSlotsTotal() == 0 ? 0.0 : (double)s.indexSlotsUsed() / s.indexSlotsTotal();
                text.append(String.format("node %d %s: memory %d/%d bytes used (%d free), index %d/%d slots (load " +
                        "%.4f), %d client session(s), %d grants, memory windows %s, write path %s%n", node.id(),
                    node.address(), s.memoryUsed(), s.memoryTotal(), s.memoryFree(), s.indexSlotsUsed(),
                    s.indexSlotsTotal(), load, s.clients(), s.grants(),
                    s.memoryWindows() ? "on (" + s.writeWindows() + " bound)" : "off", writePath));
                nodes.addObject().put("node", node.id()).put("address", node.address())
                    .put("memoryTotal", s.memoryTotal()).put("memoryUsed", s.memoryUsed())
                    .put("memoryFree", s.memoryFree()).put("indexSlotsUsed", s.indexSlotsUsed())
                    .put("indexSlotsTotal", s.indexSlotsTotal()).put("load", load).put("clients", s.clients())
                    .put("grants", s.grants()).put("memoryWindows", s.memoryWindows())
                    .put("memoryWindowsBound", Math.max(0, s.writeWindows())).put("writePath", writePath);
            }
            if (!unreachable.isEmpty())
            {
                text.append(String.format("%d of %d node(s) did not answer%n", unreachable.size(),
                    client.clusterMap().nodes().size()));
            }
            out.print(text.toString(), document);
            return unreachable.isEmpty() ? KvCtl.OK : KvCtl.UNREACHABLE;
        });
    }

    /** one-sided or node-assisted (the node's HELLO_OK said), or "unknown" when the node stopped answering since. */
    private static String writePath(final io.rdmakv.client.KvClient client, final int nodeId)
    {
        try
        {
            return client.writePath(nodeId);
        }
        catch (final KvException e)
        {
            return "unknown";
        }
    }
}
