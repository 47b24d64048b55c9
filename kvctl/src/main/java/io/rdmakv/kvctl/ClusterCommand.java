package io.rdmakv.kvctl;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.ClusterNode;
import io.rdmakv.common.cluster.MoveBatch;
import io.rdmakv.common.cluster.ReplicaGroup;
import io.rdmakv.common.cluster.RetiredSegment;
import io.rdmakv.common.hash.KeyHash;
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
                text.append(moves(map));
            }
            try
            {
                out.print(text.toString(), new ObjectMapper().readTree(map.toJson()));
            }
            catch (final IOException e)
            {
                throw new UncheckedIOException(e);
            }
            return KvCtl.OK;
        });
    }

    /**
     * The moves in progress the map records: per batch its id, partitions, source and target group, phase and the
     * epoch it entered it; then the segments given up at a SWITCH and not yet reclaimed. Empty when there are none.
     * How far a copy has come (keys, bytes) is not in the map, so not here.
     */
    static String moves(final ClusterMap map)
    {
        final StringBuilder text = new StringBuilder();
        for (final MoveBatch b : map.moves().batches())
        {
            text.append(String.format("batch %d  partitions %s  group %d -> group %d  %s since epoch %d%n", b.id(),
                java.util.Arrays.toString(b.partitions()), b.source(), b.target(), b.phase(), b.phaseEpoch()));
        }
        for (final RetiredSegment r : map.moves().retired())
        {
            text.append(String.format("group %d retired partition %d segment (%d,%d) at epoch %d%n", r.group(),
                r.partition(), KeyHash.segmentBase(r.segment()), KeyHash.segmentCount(r.segment()), r.switchEpoch()));
        }
        return text.toString();
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
