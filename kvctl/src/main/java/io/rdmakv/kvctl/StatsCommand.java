package io.rdmakv.kvctl;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rdmakv.common.protocol.StatsOkMessage;
import picocli.CommandLine;
import picocli.CommandLine.Command;

import java.util.Map;
import java.util.concurrent.Callable;

/** {@code kvctl stats}: each node's memory, index load and clients (STATS over the control plane). */
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
            for (final Map.Entry<Integer, StatsOkMessage> e : client.nodeStats().entrySet())
            {
                final StatsOkMessage s = e.getValue();
                final double load = s.indexSlotsTotal() == 0 ? 0.0 : (double)s.indexSlotsUsed() / s.indexSlotsTotal();
                text.append(String.format("node %d: memory %d/%d bytes used (%d free), index %d/%d slots (load " +
                        "%.4f), %d client session(s), %d grants%n", e.getKey(), s.memoryUsed(), s.memoryTotal(),
                    s.memoryFree(), s.indexSlotsUsed(), s.indexSlotsTotal(), load, s.clients(), s.grants()));
                nodes.addObject().put("node", e.getKey()).put("memoryTotal", s.memoryTotal())
                    .put("memoryUsed", s.memoryUsed()).put("memoryFree", s.memoryFree())
                    .put("indexSlotsUsed", s.indexSlotsUsed()).put("indexSlotsTotal", s.indexSlotsTotal())
                    .put("load", load).put("clients", s.clients()).put("grants", s.grants());
            }
            out.print(text.toString(), document);
            return KvCtl.OK;
        });
    }
}
