package io.rdmakv.kvctl;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.ClusterNode;
import io.rdmakv.common.hash.KeyHash;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;

/**
 * {@code kvctl ping}: the data-path round-trip time to each node, timed over GETs of a key that routes to
 * that node and is almost surely absent (one RDMA READ of both bucket groups). The first GET opens the
 * session and is not timed.
 */
@Command(name = "ping", description = "Times GETs of a missing key on each node and prints min/avg/max.")
final class PingCommand implements Callable<Integer>
{
    private static final int MAX_KEY_SEARCH = 1 << 20;

    @CommandLine.ParentCommand
    KvCtl parent;

    @Option(names = {"-c", "--count"}, paramLabel = "N", defaultValue = "5",
        description = "Timed GETs per node. Default: ${DEFAULT-VALUE}.")
    int count;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call()
    {
        if (count < 1 || count > 1_000_000)
        {
            throw new CommandLine.ParameterException(spec.commandLine(), "--count must be 1..1000000, not " + count);
        }
        return parent.withClient((client, out) ->
        {
            final ClusterMap map = client.clusterMap();
            final StringBuilder text = new StringBuilder();
            final ObjectNode document = out.object().put("count", count);
            final ArrayNode nodes = document.putArray("nodes");
            for (final ClusterNode node : map.nodes())
            {
                final byte[] key = keyFor(map, node.id());
                client.get(key);
                long min = Long.MAX_VALUE;
                long max = 0;
                long sum = 0;
                for (int i = 0; i < count; i++)
                {
                    final long t0 = System.nanoTime();
                    client.get(key);
                    final long t = System.nanoTime() - t0;
                    min = Math.min(min, t);
                    max = Math.max(max, t);
                    sum += t;
                }
                final double avg = (double)sum / count;
                text.append(String.format("node %d %s: %d GETs, rtt min %.1f us, avg %.1f us, max %.1f us%n",
                    node.id(), node.address(), count, min / 1e3, avg / 1e3, max / 1e3));
                nodes.addObject().put("node", node.id()).put("address", node.address())
                    .put("minMicros", min / 1e3).put("avgMicros", avg / 1e3).put("maxMicros", max / 1e3);
            }
            out.print(text.toString(), document);
            return KvCtl.OK;
        });
    }

    /** A key that routes to node {@code nodeId}: "kvctl:ping:" plus the first number that lands there. */
    static byte[] keyFor(final ClusterMap map, final int nodeId)
    {
        for (int n = 0; n < MAX_KEY_SEARCH; n++)
        {
            final byte[] key = ("kvctl:ping:" + n).getBytes(StandardCharsets.UTF_8);
            if (map.nodeForKeyHash(KeyHash.hash(key)).id() == nodeId)
            {
                return key;
            }
        }
        throw new IllegalStateException("no ping key routes to node " + nodeId);
    }
}
