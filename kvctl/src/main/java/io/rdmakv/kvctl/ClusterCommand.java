package io.rdmakv.kvctl;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.ClusterNode;
import io.rdmakv.common.cluster.ReplicaGroup;
import picocli.CommandLine;
import picocli.CommandLine.Command;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.Callable;

/** {@code kvctl cluster}: the cluster map a node hands out (epoch, partitions, nodes). */
@Command(name = "cluster", description = "Prints the cluster map: epoch, partitions, nodes and, when replicated, each replica group's state.")
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
