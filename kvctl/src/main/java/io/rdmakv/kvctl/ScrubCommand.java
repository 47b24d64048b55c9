package io.rdmakv.kvctl;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rdmakv.client.KvException;
import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.ReplicaGroup;
import io.rdmakv.common.protocol.ScrubOkMessage;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/**
 * {@code kvctl scrub}: has every replica group's primary scrub its backups now (SCRUB) and prints what each pass
 * found and mended. A primary that did not answer or whose pass failed is named; the exit code is then
 * {@link KvCtl#FAILED}.
 */
@Command(name = "scrub", description = "Has each replica group's primary compare its backups' index words and " +
    "blocks with its own now, mend what differs, and print what it found.")
final class ScrubCommand implements Callable<Integer>
{
    @CommandLine.ParentCommand
    KvCtl parent;

    @Option(names = "--wait-ms", paramLabel = "MS", defaultValue = "600000",
        description = "How long to wait for each primary's pass. Default: ${DEFAULT-VALUE}.")
    long waitMs;

    @Override
    public Integer call()
    {
        return parent.withClient((client, out) ->
        {
            final ClusterMap map = client.clusterMap();
            final StringBuilder text = new StringBuilder();
            final ObjectNode document = out.object();
            final ArrayNode groups = document.putArray("groups");
            int failed = 0;
            int scrubbed = 0;
            for (int g = 0; !map.isSimple() && g < map.groups().size(); g++)
            {
                final ReplicaGroup group = map.groups().get(g);
                if (group.lost() || group.memberCount() < 2)
                {
                    continue;
                }
                final ObjectNode entry = groups.addObject().put("group", g).put("primary", group.primary());
                try
                {
                    final ScrubOkMessage s = client.scrub(group.primary(), Duration.ofMillis(waitMs));
                    scrubbed++;
                    text.append(String.format("group %d, primary node %d: %d backup(s) scrubbed in %d ms: %d slots " +
                            "and %d blocks compared; mended %d slot(s) and %d block(s) on backups and %d damaged block(s) " +
                            "of the primary; left %d to live writers, %d where the primary's own block is damaged%n",
                        g, group.primary(), s.backups(), TimeUnit.NANOSECONDS.toMillis(s.nanos()), s.slots(),
                        s.blocks(), s.wordsRepaired(), s.blocksRepaired(), s.healedHere(), s.leftToWriters(),
                        s.damagedHere()));
                    entry.put("backups", s.backups()).put("slots", s.slots()).put("blocks", s.blocks())
                        .put("wordsRepaired", s.wordsRepaired()).put("blocksRepaired", s.blocksRepaired())
                        .put("healedHere", s.healedHere())
                        .put("leftToWriters", s.leftToWriters()).put("damagedHere", s.damagedHere())
                        .put("millis", TimeUnit.NANOSECONDS.toMillis(s.nanos()));
                }
                catch (final KvException e)
                {
                    failed++;
                    text.append(String.format("group %d, primary node %d: FAILED: %s%n", g, group.primary(),
                        e.getMessage()));
                    entry.put("error", e.getMessage());
                }
            }
            if (scrubbed + failed == 0)
            {
                text.append(String.format("no replica group with backups: nothing to scrub%n"));
            }
            out.print(text.toString(), document);
            return failed == 0 ? KvCtl.OK : KvCtl.FAILED;
        });
    }
}
