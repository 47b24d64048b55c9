package io.rdmakv.server.cluster.map;

/**
 * The rule a map read from ZooKeeper broke, as {@code rdmakv_cluster_maps_refused_total}'s {@code reason} label
 * ({@link MapCheck}).
 */
public enum MapRefusal
{
    /** The znode does not parse as a map. */
    UNREADABLE("unreadable"),
    /** Its epoch is not one step per write from the maps before it. */
    EPOCH("epoch"),
    /**
     * Not the cluster's partitions, factor or groups (groups out of order, a group vanishes that owns, moves or retires
     * something, or a new one has copying nodes or a seal).
     */
    GEOMETRY("geometry"),
    /**
     * A node becomes a group's member without having been its member or copying node (other than as a spare forming a
     * new group).
     */
    PROMOTION("promotion"),
    /** Its fence epoch would leave sessions of an older placement unfenced (or fences without a change). */
    FENCE("fence"),
    /**
     * Its index segments: one of fewer than 2 groups, two owned or retired ones of one group overlapping, or a
     * partition's segment (or the table itself) changed from the map it replaced other than at its move's SWITCH.
     */
    SEGMENTS("segments"),
    /**
     * A partition changes group other than from FREEZE to SWITCH of its move, onto the target at the move's segment
     * (a new group owning one, among them).
     */
    PLACEMENT("placement"),
    /**
     * A move batch appears other than in COPY, at its own epoch, between two groups of the map before, for partitions
     * not moving.
     */
    MOVE_START("move_start"),
    /** A move's target segment has fewer than 2 groups or overlaps an owned, incoming or retired one of its group. */
    MOVE_SEGMENT("move_segment"),
    /** A move batch changes its groups, partitions or segments, or does not advance one phase at a time. */
    MOVE_PHASE("move_phase"),
    /** A move batch vanishes leaving its partitions elsewhere than an abort (before SWITCH) or OPEN (after) would. */
    MOVE_END("move_end"),
    /** A retired segment appears other than at its partition's SWITCH, changes, or is dropped before OPEN. */
    RETIRED("retired");

    private final String label;

    MapRefusal(final String label)
    {
        this.label = label;
    }

    public String label()
    {
        return label;
    }
}
