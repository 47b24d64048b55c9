package io.rdmakv.kvctl;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rdmakv.common.protocol.RebalanceOkMessage;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code kvctl drain NODE [--cancel]} (docs/growth.md §12 "Drain", issue 23): sent as REBALANCE with a drain
 * ({@code {"drain": NODE}}, {@code "cancel": true} with {@code --cancel}) to a node of the cluster, which creates (or
 * deletes) {@code drain/NODE}; the coordinator then moves the node's group's partitions to the other groups and
 * dissolves the group, its nodes spares. The answer says where the node stands as the node asked sees the map; ask
 * again until it says {@code drained, safe to stop}. A NODE that is not a non-negative integer is {@link KvCtl#USAGE}
 * before anything is sent; one not in the map is refused by the node ({@link KvCtl#FAILED}).
 */
@Command(name = "drain", description = "Drains a node (a ZooKeeper cluster): its replica group gives its partitions to " +
    "the other groups and is dissolved, its nodes become spares; a drained spare joins no group. Asked again, says " +
    "where the drain stands (\"drained, safe to stop\" once the node is a spare). With --cancel, stops draining.")
final class DrainCommand implements Callable<Integer>
{
    @CommandLine.ParentCommand
    KvCtl parent;

    @Parameters(index = "0", paramLabel = "NODE", description = "The id of the node to drain.")
    String node;

    @Option(names = "--cancel", description = "Stop draining NODE: batches under way finish, no new one starts for " +
        "it, and its group (if not yet dissolved) stays.")
    boolean cancel;

    @Option(names = "--dry-run", description = "Write nothing: say what the node would do, and where NODE stands.")
    boolean dryRun;

    @Option(names = "--wait-ms", paramLabel = "MS", defaultValue = "30000",
        description = "How long to wait for the node's answer. Default: ${DEFAULT-VALUE}.")
    long waitMs;

    @Override
    public Integer call()
    {
        final String json;
        try
        {
            json = requestJson(node, cancel);
        }
        catch (final IllegalArgumentException e)
        {
            return parent.output().failure(KvCtl.USAGE, e.getMessage());
        }
        return parent.withClient((client, out) ->
        {
            final RebalanceOkMessage ok = client.rebalance(json, dryRun, Duration.ofMillis(waitMs));
            final ObjectNode document = out.object();
            document.put("node", Integer.parseInt(node.trim())).put("cancel", cancel).put("dryRun", dryRun)
                .put("outcome", ok.outcome().name().toLowerCase(Locale.ROOT)).put("text", ok.text())
                .put("drained", ok.text().contains("drained, safe to stop"));
            out.print((dryRun ? "dry run: " : "") + ok.text() + System.lineSeparator(), document);
            return KvCtl.OK;
        });
    }

    /**
     * The drain's JSON as REBALANCE carries it: {@code {"drain": NODE}}, plus {@code "cancel": true}.
     *
     * @throws IllegalArgumentException for a NODE that is not a non-negative integer
     */
    static String requestJson(final String node, final boolean cancel)
    {
        final int id;
        try
        {
            id = Integer.parseInt(node.trim());
        }
        catch (final NumberFormatException e)
        {
            throw new IllegalArgumentException("drain: node '" + node + "' is not a non-negative integer (a node id, " +
                "as kvctl cluster lists it)");
        }
        if (id < 0)
        {
            throw new IllegalArgumentException("drain: node '" + node + "' is not a non-negative integer (a node id, " +
                "as kvctl cluster lists it)");
        }
        return "{\"drain\":" + id + (cancel ? ",\"cancel\":true" : "") + "}";
    }
}
