package io.rdmakv.common.cluster;

/**
 * The phase of a move batch ({@link MoveBatch}), one map epoch each (docs/growth.md §7): the record vanishes at the
 * fourth, OPEN, or at an abort before SWITCH.
 */
public enum MovePhase
{
    /** The target group copies the partitions into its target segments; they stay on the source group. */
    COPY("copy"),
    /** The source primary freezes the partitions' slots along its chain; the target copies the delta. */
    FREEZE("freeze"),
    /** The partitions belong to the target group (frozen there); the source marks its segments MOVED. */
    SWITCH("switch");

    private static final MovePhase[] VALUES = values();

    private final String json;

    MovePhase(final String json)
    {
        this.json = json;
    }

    /** The name in JSON. */
    public String json()
    {
        return json;
    }

    /** The phase after this one, or null after SWITCH (the record vanishes: OPEN). */
    public MovePhase next()
    {
        return ordinal() + 1 < VALUES.length ? VALUES[ordinal() + 1] : null;
    }

    /** Whether the partitions still belong to the source group (an abort is still possible). */
    public boolean beforeSwitch()
    {
        return this != SWITCH;
    }

    /** The phase of code {@code code} ({@link #ordinal()}), or null. */
    public static MovePhase ofCode(final int code)
    {
        return code >= 0 && code < VALUES.length ? VALUES[code] : null;
    }

    /** The phase named {@code name} in JSON; InvalidClusterMapException when there is none. */
    public static MovePhase fromJson(final String name)
    {
        for (final MovePhase phase : VALUES)
        {
            if (phase.json.equals(name))
            {
                return phase;
            }
        }
        throw new InvalidClusterMapException("move phase \"" + name + "\" is not \"copy\", \"freeze\" or \"switch\"");
    }
}
