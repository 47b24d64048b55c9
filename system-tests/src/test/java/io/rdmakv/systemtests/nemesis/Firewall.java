package io.rdmakv.systemtests.nemesis;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * nftables drop rules inside a member's namespace (table {@code inet rkvn}): packets from and/or to a set of
 * addresses are dropped, silently, so that TCP connections hang as on a real partition rather than fail fast.
 */
final class Firewall
{
    private static final String TABLE = "rkvn";

    enum Direction
    {
        /** Drop what comes from the addresses and what goes to them. */
        BOTH,
        /** Drop only what comes from the addresses (the member still sends). */
        IN,
        /** Drop only what goes to the addresses (the member still receives). */
        OUT
    }

    private Firewall()
    {
    }

    /** Replaces member {@code name}'s rules with drops of traffic with {@code addresses} in {@code direction}. */
    static void cut(final String name, final Direction direction, final Collection<String> addresses)
    {
        if (addresses.isEmpty())
        {
            throw new IllegalArgumentException("a cut needs at least one address");
        }
        heal(name);
        final String set = "{ " + String.join(", ", addresses) + " }";
        final String rules = "table inet " + TABLE + " {\n" +
            "  chain in { type filter hook input priority 0; policy accept;" +
            (direction != Direction.OUT ? " ip saddr " + set + " drop;" : "") + " }\n" +
            "  chain out { type filter hook output priority 0; policy accept;" +
            (direction != Direction.IN ? " ip daddr " + set + " drop;" : "") + " }\n" +
            "}\n";
        final List<String> command = new ArrayList<>(NetNamespaces.exec(name));
        command.addAll(List.of("nft", "-f", "-"));
        Sh.run(rules, command);
    }

    /** Removes member {@code name}'s rules (nothing to do when it has none). */
    static void heal(final String name)
    {
        final List<String> command = new ArrayList<>(NetNamespaces.exec(name));
        command.addAll(List.of("nft", "delete", "table", "inet", TABLE));
        final Sh.Result r = Sh.tryRun(null, command);
        if (r.rc() != 0 && !r.output().contains("No such file or directory"))
        {
            throw new IllegalStateException("cannot remove the rules of " + name + ": " + r.output());
        }
    }
}
