package io.rdmakv.server.cluster.map;

/** How far a node has come with one move batch, as it reports in {@code moves/<id>} (docs/growth.md §7, §10). */
public enum MoveState
{
    /** The target primary's bulk passes are done (COPY): the coordinator may freeze. */
    BULK("bulk"),
    /** The target primary copied the frozen delta (FREEZE): the coordinator may switch. */
    FINAL("final"),
    /** The source primary marked the batch's segments MOVED (SWITCH): the coordinator may open. */
    MARKED("marked"),
    /** A source replica reclaimed the batch's retired segments (after OPEN). */
    RECLAIMED("reclaimed"),
    /** The target cannot finish the copy (before SWITCH): the coordinator aborts the batch. */
    FAILED("failed");

    private final String json;

    MoveState(final String json)
    {
        this.json = json;
    }

    /** The name in JSON. */
    public String json()
    {
        return json;
    }

    /** The state named {@code name} in JSON; IllegalArgumentException when there is none. */
    public static MoveState fromJson(final String name)
    {
        for (final MoveState state : values())
        {
            if (state.json.equals(name))
            {
                return state;
            }
        }
        throw new IllegalArgumentException("move state \"" + name + "\" is not one of bulk, final, marked, " +
            "reclaimed, failed");
    }
}
