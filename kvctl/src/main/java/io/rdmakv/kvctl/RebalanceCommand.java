package io.rdmakv.kvctl;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rdmakv.common.protocol.RebalanceMessage;
import io.rdmakv.common.protocol.RebalanceOkMessage;
import picocli.CommandLine;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code kvctl rebalance}: the operator's move request (docs/growth.md §13, §14), sent as REBALANCE to a node of the
 * cluster, which writes it to {@code rebalance/request} for the coordinator or, with {@code --dry-run}, writes nothing
 * and says whether the coordinator could act on it now. The flags are checked before anything is sent: a bad one is
 * {@link KvCtl#USAGE}. A dry run the coordinator could not act on is {@link KvCtl#FAILED}.
 */
@Command(name = "rebalance", description = "Asks the coordinator to move partitions to other replica groups, or to " +
    "cancel move batches not yet switched (a ZooKeeper cluster): a node writes the request to rebalance/request. " +
    "With --auto on|off|status, sets or shows the switch for growing by itself (rebalance/auto). " +
    "With --dry-run, only says whether the coordinator could act on it now, and why not.")
final class RebalanceCommand implements Callable<Integer>
{
    /** One {@code --move} with its own {@code --groups}. */
    static final class MoveOption
    {
        @Option(names = "--move", required = true, paramLabel = "P[,P...]:GROUP",
            description = "Move these partitions to replica group GROUP (repeatable).")
        String move;

        // no defaultValue: picocli then reads it from a group instance that a --cancel-only line never makes
        @Option(names = "--groups", paramLabel = "N",
            description = "Size of each target segment in bucket groups, for the --move before it (0: the size it " +
                "has now). Default: 0.")
        long groups;
    }

    @CommandLine.ParentCommand
    KvCtl parent;

    @ArgGroup(exclusive = false, multiplicity = "0..*")
    List<MoveOption> moves = new ArrayList<>();

    @Option(names = "--cancel", paramLabel = "BATCH_ID",
        description = "Abort this move batch, if it has not reached SWITCH (repeatable; ids as kvctl cluster lists).")
    List<Long> cancel = new ArrayList<>();

    @Option(names = "--auto", paramLabel = "on|off|status",
        description = "The growth switch rebalance/auto instead of a move: on, R spares of one geometry form a new " +
            "group and partitions move by the groups' shares by themselves; off (also when never set), they do not " +
            "(batches under way finish); status: say what it holds. Not with --move or --cancel.")
    String auto;

    @Option(names = "--dry-run", description = "Write nothing: say whether the coordinator could act on the request " +
        "now, as the node asked sees the map and the live members.")
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
            json = auto != null ? autoJson(auto, !moves.isEmpty() || !cancel.isEmpty()) : requestJson(specs(), cancel);
        }
        catch (final IllegalArgumentException e)
        {
            return parent.output().failure(KvCtl.USAGE, e.getMessage());
        }
        return parent.withClient((client, out) ->
        {
            final RebalanceOkMessage ok = client.rebalance(json, dryRun, Duration.ofMillis(waitMs));
            final ObjectNode document = out.object();
            document.put("dryRun", dryRun).put("outcome", ok.outcome().name().toLowerCase(Locale.ROOT))
                .put("text", ok.text());
            try
            {
                document.set("request", new ObjectMapper().readTree(json));
            }
            catch (final java.io.IOException e)
            {
                throw new IllegalStateException("kvctl's own request is not JSON: " + json, e);
            }
            final String text = switch (ok.outcome())
            {
                case REQUESTED -> ok.text();
                case WOULD_ACT -> (dryRun ? "dry run: " : "") + ok.text();
                case WOULD_WAIT -> "dry run: the coordinator could not act on it now: " + ok.text();
            };
            out.print(text + System.lineSeparator(), document);
            return ok.outcome() == RebalanceOkMessage.Outcome.WOULD_WAIT ? KvCtl.FAILED : KvCtl.OK;
        });
    }

    /** The {@code --move} options, parsed; IllegalArgumentException for a bad one. */
    private List<MoveSpec> specs()
    {
        final List<MoveSpec> specs = new ArrayList<>();
        for (final MoveOption m : moves)
        {
            specs.add(MoveSpec.parse(m.move, m.groups));
        }
        return specs;
    }

    /**
     * The growth switch's request as REBALANCE carries it: {@code {"auto": "on"|"off"|"status"}}.
     *
     * @param withMoves whether {@code --move} or {@code --cancel} came too
     * @throws IllegalArgumentException for another word, or with moves
     */
    static String autoJson(final String word, final boolean withMoves)
    {
        if (withMoves)
        {
            throw new IllegalArgumentException("--auto sets the growth switch and cannot come with --move or --cancel: " +
                "run kvctl rebalance once for each");
        }
        final String w = word.trim().toLowerCase(Locale.ROOT);
        if (!w.equals("on") && !w.equals("off") && !w.equals("status"))
        {
            throw new IllegalArgumentException("--auto '" + word + "': on, off or status");
        }
        return "{\"auto\":\"" + w + "\"}";
    }

    /**
     * The request's JSON, as {@code rebalance/request} holds it: {@code {"moves": [{"partitions": [..], "target": g,
     * "groups": n}], "cancel": [ids]}} ({@code groups} only when not 0).
     *
     * @throws IllegalArgumentException for a request that asks nothing, a negative batch id, or one too long for a
     *     message
     */
    static String requestJson(final List<MoveSpec> moves, final List<Long> cancel)
    {
        if (moves.isEmpty() && cancel.isEmpty())
        {
            throw new IllegalArgumentException("rebalance needs at least one --move P[,P...]:GROUP or --cancel BATCH_ID");
        }
        final ObjectMapper mapper = new ObjectMapper();
        final ObjectNode root = mapper.createObjectNode();
        final ArrayNode m = root.putArray("moves");
        for (final MoveSpec spec : moves)
        {
            final ObjectNode o = m.addObject();
            final ArrayNode p = o.putArray("partitions");
            for (final int partition : spec.partitions())
            {
                p.add(partition);
            }
            o.put("target", spec.target());
            if (spec.groups() != 0)
            {
                o.put("groups", spec.groups());
            }
        }
        final ArrayNode c = root.putArray("cancel");
        for (final long id : cancel)
        {
            if (id < 0)
            {
                throw new IllegalArgumentException("--cancel " + id + ": a batch id is not negative");
            }
            c.add(id);
        }
        final String json = root.toString();
        final int length = json.getBytes(StandardCharsets.UTF_8).length;
        if (length > RebalanceMessage.MAX_JSON_LENGTH)
        {
            throw new IllegalArgumentException("the request is " + length + " bytes of JSON, over the " +
                RebalanceMessage.MAX_JSON_LENGTH + " one message carries: ask for fewer partitions at a time (a request replaces one the coordinator has not yet " +
                "taken, so wait until kvctl cluster shows the batch)");
        }
        return json;
    }
}
