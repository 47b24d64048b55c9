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
    /** Not the cluster's partitions, factor or groups. */
    GEOMETRY("geometry"),
    /** A node becomes a group's member without having been its member or copying node. */
    PROMOTION("promotion"),
    /** Its fence epoch would leave sessions of an older placement unfenced (or fences without a change). */
    FENCE("fence"),
    /**
     * Its index segments: one of fewer than 2 groups, two of one group overlapping, or a partition's segment (or the
     * table itself) changed from the map it replaced (segments never change until partitions can move).
     */
    SEGMENTS("segments");

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
