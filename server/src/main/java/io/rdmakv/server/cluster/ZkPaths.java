package io.rdmakv.server.cluster;

/** The znodes of a cluster, relative to its namespace {@code /rdmakv/<cluster-name>}. */
final class ZkPaths
{
    static final String CONFIG = "/config";
    static final String MEMBERS = "/members";
    static final String LEADER = "/leader";
    static final String MAP = "/map";
    static final String SYNC = "/sync";

    private ZkPaths()
    {
    }

    static String member(final int id)
    {
        return MEMBERS + "/" + id;
    }

    static String sync(final int id)
    {
        return SYNC + "/" + id;
    }
}
