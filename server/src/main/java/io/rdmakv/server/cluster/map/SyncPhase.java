package io.rdmakv.server.cluster.map;

/** How far a copying node has come, as it reports in {@code sync/<id>}. */
public enum SyncPhase
{
    /** A bulk diff pass is done while writes went on: the group may be sealed for the last pass. */
    BULK("bulk"),
    /** The last pass is done while the group was sealed: the node is in sync and may become a member. */
    FINAL("final");

    private final String json;

    SyncPhase(final String json)
    {
        this.json = json;
    }

    /** The name in JSON. */
    public String json()
    {
        return json;
    }

    /** The phase named {@code name} in JSON; IllegalArgumentException when there is none. */
    public static SyncPhase fromJson(final String name)
    {
        for (final SyncPhase phase : values())
        {
            if (phase.json.equals(name))
            {
                return phase;
            }
        }
        throw new IllegalArgumentException("sync phase \"" + name + "\" is neither \"bulk\" nor \"final\"");
    }
}
