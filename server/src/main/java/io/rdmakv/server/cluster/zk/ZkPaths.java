package io.rdmakv.server.cluster.zk;

/** The znodes of a cluster, relative to its namespace {@code /rdmakv/<cluster-name>}. */
public final class ZkPaths
{
    public static final String CONFIG = "/config";
    public static final String MEMBERS = "/members";
    public static final String LEADER = "/leader";
    public static final String MAP = "/map";
    public static final String SYNC = "/sync";
    /** Each node's move report ({@code moves/<id>}, {@code MoveReport}). */
    public static final String MOVES = "/moves";
    /**
     * Each node's index segments at or above the growth threshold ({@code load/<id>}, {@code LoadReport}), an
     * ephemeral of its session; absent when none is.
     */
    public static final String LOAD = "/load";
    /** The operator's move request ({@code MoveRequest}): partitions to move, batches to cancel. */
    public static final String REBALANCE_REQUEST = "/rebalance/request";
    /**
     * The cluster-wide switch for growth planning ({@code RebalanceSwitch}): {@code on} or {@code off}; absent: off.
     */
    public static final String REBALANCE_AUTO = "/rebalance/auto";
    /**
     * The drains ({@code kvctl drain}): a child {@code drain/<id>} present means node {@code <id>} is being drained
     * (its group gives its partitions away and is dissolved; as a spare it joins no group). Its data is not read.
     */
    public static final String DRAIN = "/drain";

    private ZkPaths()
    {
    }

    public static String member(final int id)
    {
        return MEMBERS + "/" + id;
    }

    public static String sync(final int id)
    {
        return SYNC + "/" + id;
    }

    public static String load(final int id)
    {
        return LOAD + "/" + id;
    }

    public static String moves(final int id)
    {
        return MOVES + "/" + id;
    }

    public static String drain(final int id)
    {
        return DRAIN + "/" + id;
    }
}
