package io.rdmakv.kvctl;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.ClusterNode;
import picocli.CommandLine;
import picocli.CommandLine.Command;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.Callable;

/** {@code kvctl cluster}: the cluster map a node hands out (epoch, partitions, nodes). */
@Command(name = "cluster", description = "Prints the cluster map: epoch, partitions and nodes.")
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
            final StringBuilder text = new StringBuilder(String.format("epoch %d, %d partitions, %d node(s)%n",
                map.epoch(), map.partitionCount(), map.nodes().size()));
            for (final ClusterNode node : map.nodes())
            {
                text.append(String.format("node %d  %s  %d partitions%n", node.id(), node.address(),
                    map.partitionsOf(node.id()).length));
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
}
