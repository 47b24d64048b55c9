package io.rdmakv.server.cluster.map;

import java.nio.charset.StandardCharsets;

/**
 * The cluster-wide switch {@code rebalance/auto}: {@code on} or {@code off} (surrounding white space ignored, so
 * {@code echo on} writes it too). On, the coordinator grows the cluster by itself ({@link MapPlanner}: R spares of
 * one geometry form a new group, and partitions move by shares of the groups' index arenas, docs/growth.md §12 rules
 * 4 and 5); off, or absent, spares wait to replace failed replicas and partitions move only when the operator asks.
 * Off by default for now: spares kept for re-replication would otherwise be used up by new groups.
 */
public final class RebalanceSwitch
{
    private RebalanceSwitch()
    {
    }

    /**
     * Whether the znode's {@code data} says on.
     *
     * @throws IllegalArgumentException when it says neither {@code on} nor {@code off}, saying what it holds
     */
    public static boolean isOn(final byte[] data)
    {
        final String text = data == null ? "" : new String(data, StandardCharsets.UTF_8).strip();
        return switch (text)
        {
            case "on" -> true;
            case "off" -> false;
            default -> throw new IllegalArgumentException("rebalance/auto holds \"" + shown(text) +
                "\", not on or off");
        };
    }

    /** At most 40 characters of {@code text}, control characters as '?', for a log line. */
    private static String shown(final String text)
    {
        final String cut = text.length() > 40 ? text.substring(0, 40) + "..." : text;
        final StringBuilder out = new StringBuilder(cut.length());
        for (int i = 0; i < cut.length(); i++)
        {
            final char c = cut.charAt(i);
            out.append(Character.isISOControl(c) ? '?' : c);
        }
        return out.toString();
    }
}
