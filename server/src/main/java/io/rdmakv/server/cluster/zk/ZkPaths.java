package io.rdmakv.server.cluster.zk;

/** The znodes of a cluster, relative to its namespace {@code /rdmakv/<cluster-name>}. */
public final class ZkPaths
{
    public static final String CONFIG = "/config";
    public static final String MEMBERS = "/members";
    public static final String LEADER = "/leader";
    public static final String MAP = "/map";
    public static final String SYNC = "/sync";

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
}
