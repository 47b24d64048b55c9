package io.rdmakv.kvctl;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rdmakv.client.DamageReport;
import io.rdmakv.client.DamagedSlot;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.util.HexFormat;
import java.util.concurrent.Callable;

/**
 * {@code kvctl damaged}: the damaged slots of every node (a slot pointing outside the data area, or at a
 * block whose header, length or checksum fails), found by each node walking its own index in bounded pages
 * (DAMAGE_SCAN). Each line gives the node, bucket group and slot, the slot word, what is wrong and the key
 * when its bytes can be read (printable ASCII as is, other bytes as {@code \xNN}; the JSON also has the hex).
 * A PUT or DELETE of a listed key repairs it. Exit code 0 whether or not anything is damaged.
 */
@Command(name = "damaged", description = "Lists the damaged slots of every node (a PUT or DELETE of the key " +
    "repairs one).")
final class DamagedCommand implements Callable<Integer>
{
    @CommandLine.ParentCommand
    KvCtl parent;

    @Option(names = "--limit", paramLabel = "N", defaultValue = "100",
        description = "List at most N slots (and say how many more). Default: ${DEFAULT-VALUE}.")
    int limit;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call()
    {
        if (limit < 0 || limit > 1_000_000)
        {
            throw new CommandLine.ParameterException(spec.commandLine(), "--limit must be 0..1000000, not " + limit);
        }
        return parent.withClient((client, out) ->
        {
            final DamageReport report = client.damagedSlots(limit);
            final StringBuilder text = new StringBuilder();
            final ObjectNode document = out.object().put("total", report.total()).put("more", report.more());
            final ArrayNode slots = document.putArray("slots");
            for (final DamagedSlot d : report.slots())
            {
                final String key = d.keyReadable() ? quoted(d.key()) + (d.keyTruncated() ?
                    "... (" + d.keyLength() + " bytes)" : "") : "(unreadable)";
                text.append(String.format("node %d group %d slot %d word 0x%016x %s key %s%n", d.node(), d.group(),
                    d.slot(), d.word(), d.damage(), key));
                final ObjectNode slot = slots.addObject().put("node", d.node()).put("group", d.group())
                    .put("slot", d.slot()).put("word", String.format("0x%016x", d.word())).put("damage", d.damage());
                if (d.keyReadable())
                {
                    slot.put("key", escaped(d.key())).put("keyHex", HexFormat.of().formatHex(d.key()))
                        .put("keyLength", d.keyLength());
                }
                else
                {
                    slot.putNull("key");
                }
            }
            if (report.total() == 0)
            {
                text.append("no damaged slots\n");
            }
            else
            {
                text.append(report.total()).append(" damaged slot(s)").append(report.more() > 0 ?
                    ", " + report.more() + " more not listed (--limit)" : "").append('\n');
            }
            out.print(text.toString(), document);
            return KvCtl.OK;
        });
    }

    private static String quoted(final byte[] key)
    {
        return "\"" + escaped(key) + "\"";
    }

    /** Printable ASCII as is ({@code "} and {@code \} escaped), every other byte as {@code \xNN}. */
    static String escaped(final byte[] bytes)
    {
        final StringBuilder s = new StringBuilder(bytes.length);
        for (final byte b : bytes)
        {
            final int c = b & 0xFF;
            if (c == '"' || c == '\\')
            {
                s.append('\\').append((char)c);
            }
            else if (c >= 0x20 && c < 0x7F)
            {
                s.append((char)c);
            }
            else
            {
                s.append(String.format("\\x%02x", c));
            }
        }
        return s.toString();
    }
}
