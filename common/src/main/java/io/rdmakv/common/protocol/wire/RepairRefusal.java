package io.rdmakv.common.protocol.wire;

/**
 * Why a node refused a REPAIR (REPAIR_REPLY's code when the outcome is {@code REFUSED}). A code space of
 * its own, so that {@link ReasonCode} can grow without touching it. A message holds the code as a plain
 * {@code int}; {@link #of(int)} names the ones this build knows.
 */
public enum RepairRefusal
{
    /** The group is not in the index. */
    NO_SUCH_GROUP(1),
    /** The slot is in neither of the key's two candidate groups. */
    NOT_THE_KEYS_GROUP(2),
    /** The slot no longer holds the word the client saw (someone changed it: read it again). */
    SLOT_CHANGED(3),
    /** The word's fingerprint is not the key's. */
    NOT_THE_KEYS_FINGERPRINT(4),
    /** The block is whole: nothing to repair (the client saw it while it changed). */
    NOT_DAMAGED(5),
    /** The damaged block's key is readable, is another key, and that key could live in this slot. */
    ANOTHER_KEYS_BLOCK(6);

    private final int code;

    RepairRefusal(final int code)
    {
        this.code = code;
    }

    public int code()
    {
        return code;
    }

    /** The refusal with wire code {@code code}, or null when this build does not know it. */
    public static RepairRefusal of(final int code)
    {
        for (final RepairRefusal refusal : values())
        {
            if (refusal.code == code)
            {
                return refusal;
            }
        }
        return null;
    }

    /** The refusal's name, or {@code "code N"} for codes this build does not know. */
    public static String describe(final int code)
    {
        final RepairRefusal refusal = of(code);
        return refusal == null ? "code " + code : refusal.name();
    }
}
