package io.rdmakv.kvctl;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.ClusterNode;
import io.rdmakv.common.cluster.MoveBatch;
import io.rdmakv.common.cluster.ReplicaGroup;
import io.rdmakv.common.cluster.RetiredSegment;
import io.rdmakv.common.hash.KeyHash;
import io.rdmakv.common.protocol.StatsOkMessage;
import picocli.CommandLine;
import picocli.CommandLine.Command;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.Callable;

/** {@code kvctl cluster}: the cluster map a node hands out (epoch, partitions, nodes, groups, moves). */
@Command(name = "cluster", description = "Prints the cluster map: epoch, partitions, nodes and, when replicated, " +
    "each replica group's state, the partition moves in progress and the segments they retired, not yet reclaimed.")
final class ClusterCommand implements Callable<Integer>
{
    @CommandLine.ParentCommand
    KvCtl parent;

    @Override
    public Integer call()
    {
        return parent.withClient((client, out) ->
        {
            final ClusterMap map = client.clusterMap();
            final Progress progress = askPrimaries(map, client)::get;
            final StringBuilder text = new StringBuilder(String.format("epoch %d%s, %d partitions, %d node(s)%s%n",
                map.epoch(), map.fenceEpoch() == map.epoch() ? "" : " (fence epoch " + map.fenceEpoch() + ")",
                map.partitionCount(), map.nodes().size(),
                map.isSimple() ? "" : ", " + map.replicationFactor() + " replicas per group"));
            for (final ClusterNode node : map.nodes())
            {
                final ReplicaGroup group = map.isSimple() ? null : map.groupOfNode(node.id());
                text.append(String.format("node %d  %s  %s%n", node.id(), node.address(), role(map, group, node.id())));
            }
            if (!map.isSimple())
            {
                for (final ReplicaGroup group : map.groups())
                {
                    text.append(String.format("group %d  %d partitions  %s%n", group.id(), partitions(map, group),
                        state(map, group)));
                }
                text.append(moves(map, progress));
            }
            try
            {
                final com.fasterxml.jackson.databind.JsonNode json = new ObjectMapper().readTree(map.toJson());
                if (!map.isSimple() && !map.moves().batches().isEmpty() &&
                    json instanceof com.fasterxml.jackson.databind.node.ObjectNode o)
                {
                    progressJson(map, progress, o.putArray("moveProgress"));
                }
                out.print(text.toString(), json);
            }
            catch (final IOException e)
            {
                throw new UncheckedIOException(e);
            }
            return KvCtl.OK;
        });
    }

    /**
     * A node's move progress (its STATS): null, or a {@link io.rdmakv.client.KvException}, when it does not answer.
     */
    @FunctionalInterface
    interface Progress
    {
        StatsOkMessage.MoveProgress of(int node);
    }

    /**
     * The move progress of every primary of a batch's source or target group in {@code map}, each asked once (a STATS
     * may wait for the node's count of its index); a node that does not answer is left out.
     */
    private static java.util.Map<Integer, StatsOkMessage.MoveProgress> askPrimaries(final ClusterMap map,
        final io.rdmakv.client.KvClient client)
    {
        final java.util.Map<Integer, StatsOkMessage.MoveProgress> answers = new java.util.HashMap<>();
        final java.util.Set<Integer> asked = new java.util.HashSet<>();
        if (map.isSimple())
        {
            return answers;
        }
        for (final MoveBatch b : map.moves().batches())
        {
            for (final int groupId : new int[] {b.source(), b.target()})
            {
                final ReplicaGroup group = map.groupById(groupId);
                if (group == null || group.lost() || !asked.add(group.primary()))
                {
                    continue;
                }
                try
                {
                    answers.put(group.primary(), client.nodeStats(group.primary()).moves());
                }
                catch (final io.rdmakv.client.KvException | IllegalArgumentException e)
                {
                    // left out: its part shows as unknown
                }
            }
        }
        return answers;
    }

    /** The moves in progress as the map records them, without asking any node how far they have come. */
    static String moves(final ClusterMap map)
    {
        return moves(map, null);
    }

    /**
     * The moves in progress the map records: per batch its id, partitions, source and target group, phase and the
     * epoch it entered it, and, asked of the target's and the source's primaries through {@code progress} (null: not
     * asked), the keys and bytes copied so far and the keys the partitions hold on the source; then the segments given
     * up at a SWITCH and not yet reclaimed. Empty when there are none.
     */
    static String moves(final ClusterMap map, final Progress progress)
    {
        final StringBuilder text = new StringBuilder();
        for (final MoveBatch b : map.moves().batches())
        {
            text.append(String.format("batch %d  partitions %s  group %d -> group %d  %s since epoch %d%s%n", b.id(),
                java.util.Arrays.toString(b.partitions()), b.source(), b.target(), b.phase(), b.phaseEpoch(),
                progress == null ? "" : "  " + progressText(map, b, progress)));
        }
        for (final RetiredSegment r : map.moves().retired())
        {
            text.append(String.format("group %d retired partition %d segment (%d,%d) at epoch %d%n", r.group(),
                r.partition(), KeyHash.segmentBase(r.segment()), KeyHash.segmentCount(r.segment()), r.switchEpoch()));
        }
        return text.toString();
    }

    /**
     * "copied K keys (B bytes) of N on the source (P%)": the target primary's copy counters and the source primary's
     * count of the partitions' keys; a copy counts a key again when a later pass copies it again, so P is capped at
     * 100 and is "about". What a node could not say is said as such.
     */
    static String progressText(final ClusterMap map, final MoveBatch b, final Progress progress)
    {
        final long[] copied = copied(map, b, progress);
        final long sourceKeys = sourceKeys(map, b, progress);
        if (copied == null)
        {
            return sourceKeys < 0 ? "progress unknown" : "the source holds " + sourceKeys + " keys";
        }
        final String ofSource = sourceKeys < 0 ? "" : " of " + sourceKeys + " on the source" + (sourceKeys == 0 ? "" :
            String.format(" (about %d%%)", Math.min(100, copied[0] * 100 / sourceKeys)));
        return "copied " + copied[0] + " keys (" + copied[1] + " bytes)" + ofSource;
    }

    /** Adds one object per batch to {@code array}: id, keysCopied, bytesCopied, sourceKeys (-1 where unknown). */
    static void progressJson(final ClusterMap map, final Progress progress,
        final com.fasterxml.jackson.databind.node.ArrayNode array)
    {
        for (final MoveBatch b : map.moves().batches())
        {
            final long[] copied = copied(map, b, progress);
            array.addObject().put("batch", b.id()).put("keysCopied", copied == null ? -1 : copied[0])
                .put("bytesCopied", copied == null ? -1 : copied[1]).put("sourceKeys", sourceKeys(map, b, progress));
        }
    }

    /** {keys, bytes} the target primary says it copied for {@code b}, or null when it does not copy it or is silent. */
    private static long[] copied(final ClusterMap map, final MoveBatch b, final Progress progress)
    {
        final StatsOkMessage.MoveProgress p = ask(map, b.target(), progress);
        return p == null || p.copyBatch() != b.id() ? null : new long[] {p.copyKeys(), p.copyBytes()};
    }

    /** The keys the source primary counts in {@code b}'s partitions, or -1 when it cannot say. */
    private static long sourceKeys(final ClusterMap map, final MoveBatch b, final Progress progress)
    {
        final StatsOkMessage.MoveProgress p = ask(map, b.source(), progress);
        return p == null || p.sourceBatch() != b.id() ? -1 : p.sourceKeys();
    }

    private static StatsOkMessage.MoveProgress ask(final ClusterMap map, final int groupId, final Progress progress)
    {
        final ReplicaGroup group = map.groupById(groupId);
        if (group == null || group.lost())
        {
            return null;
        }
        try
        {
            return progress.of(group.primary());
        }
        catch (final io.rdmakv.client.KvException | IllegalArgumentException e)
        {
            return null;
        }
    }

    private static String role(final ClusterMap map, final ReplicaGroup group, final int node)
    {
        if (map.isSimple())
        {
            return map.partitionsOf(node).length + " partitions";
        }
        if (group == null)
        {
            return "spare";
        }
        if (group.primary() == node)
        {
            return "primary of group " + group.id();
        }
        return (group.isMember(node) ? "backup" : "copying") + " in group " + group.id();
    }

    private static int partitions(final ClusterMap map, final ReplicaGroup group)
    {
        int n = 0;
        for (int p = 0; p < map.partitionCount(); p++)
        {
            n += map.groupFor(p).id() == group.id() ? 1 : 0;
        }
        return n;
    }

    /** "in sync", "copying", "sealed" (a copy's last pass), "missing N" (below the factor) or "LOST". */
    private static String state(final ClusterMap map, final ReplicaGroup group)
    {
        if (group.lost())
        {
            return "LOST: no replica left";
        }
        final String members = "members " + java.util.Arrays.toString(group.members());
        final int missing = map.replicationFactor() - group.memberCount() - group.copyingCount();
        final String copying = group.copyingCount() == 0 ? "" :
            ", copying " + java.util.Arrays.toString(group.copying()) + (group.sealed() ? " (sealed: last pass)" : "");
        final String state = group.memberCount() == map.replicationFactor() ? "in sync" :
            group.copyingCount() > 0 ? "catching up" : "missing " + missing;
        return state + ": " + members + copying;
    }
}
