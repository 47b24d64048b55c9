package io.rdmakv.server.cluster.map;

import java.util.Locale;
import java.util.Set;

/**
 * The operator's growth switch ({@code kvctl rebalance --auto on|off|status}, docs/growth.md §12), as REBALANCE
 * carries it: {@code {"auto": "on"}}, {@code "off"} or {@code "status"}. The node asked writes {@code on} or
 * {@code off} to {@code rebalance/auto} ({@link RebalanceSwitch}), or for {@code status} (and for a dry run) writes
 * nothing and says what the switch holds. A REBALANCE whose JSON has an {@code auto} field is this request.
 *
 * @param setting what the operator asked
 */
public record AutoRequest(Setting setting)
{
    private static final String WHAT = "rebalance switch request";

    /** What the operator asked of the switch. */
    public enum Setting
    {
        ON, OFF, STATUS;

        /** The word kvctl and the JSON use. */
        public String word()
        {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    public AutoRequest
    {
        if (setting == null)
        {
            throw new IllegalArgumentException(WHAT + ": no setting");
        }
    }

    /** Whether {@code json} is this request (an object with an {@code auto} field) rather than a move or a drain. */
    public static boolean isAuto(final byte[] json)
    {
        return ZkJson.hasField(json, "auto");
    }

    /** Parses the request; IllegalArgumentException saying what is wrong. */
    public static AutoRequest fromJson(final byte[] json)
    {
        final String word = ZkJson.textField(ZkJson.object(json, WHAT, Set.of("auto"), Set.of()), "auto", WHAT);
        for (final Setting s : Setting.values())
        {
            if (s.word().equals(word))
            {
                return new AutoRequest(s);
            }
        }
        throw new IllegalArgumentException(WHAT + ": \"auto\" is \"" + (word.length() > 20 ? word.substring(0, 20) +
            "..." : word) + "\", not on, off or status");
    }

    public byte[] toJson()
    {
        return ZkJson.bytes(ZkJson.object().put("auto", setting.word()));
    }
}
