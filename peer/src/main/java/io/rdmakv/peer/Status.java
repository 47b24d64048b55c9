package io.rdmakv.peer;

/** Result codes of the data path: non-negative outcomes, negative failures. No exceptions on the data path. */
public final class Status
{
    public static final int OK = 0;
    public static final int NOT_FOUND = 1;
    /** A compare-and-set found another version. */
    public static final int CONFLICT = 2;

    public static final int TABLE_FULL = -1;
    public static final int OUT_OF_SPACE = -2;
    public static final int TIMEOUT = -3;
    public static final int CONNECTION_LOST = -4;
    public static final int RETRIES_EXHAUSTED = -5;
    public static final int REMOTE_ERROR = -6;
    public static final int NODE_SHUTTING_DOWN = -7;
    /** A block failed its checksum again and again while its slot did not change: it is damaged. */
    public static final int CORRUPTED = -8;
    /**
     * The READs completed after the session's read lease ended ({@link ReadLease}): the node may have been
     * replaced, so what they returned is not trusted. The operation gets a current map and runs again.
     */
    public static final int LEASE_EXPIRED = -9;
    /**
     * A write met the key's partition frozen for a move ({@code SlotWord.MOVING}): nothing was changed, and it runs
     * again once the partition opens, within the operation timeout.
     */
    public static final int FROZEN = -10;
    /**
     * The key's candidate groups carry the MOVED mark ({@code MovedHeader}): the partition has left this node's
     * replica group. Nothing was read or changed; the operation follows the map and runs again.
     */
    public static final int MOVED = -11;

    private Status()
    {
    }

    public static String name(final int status)
    {
        return switch (status)
        {
            case OK -> "OK";
            case NOT_FOUND -> "NOT_FOUND";
            case CONFLICT -> "CONFLICT";
            case TABLE_FULL -> "TABLE_FULL";
            case OUT_OF_SPACE -> "OUT_OF_SPACE";
            case TIMEOUT -> "TIMEOUT";
            case CONNECTION_LOST -> "CONNECTION_LOST";
            case RETRIES_EXHAUSTED -> "RETRIES_EXHAUSTED";
            case REMOTE_ERROR -> "REMOTE_ERROR";
            case NODE_SHUTTING_DOWN -> "NODE_SHUTTING_DOWN";
            case CORRUPTED -> "CORRUPTED";
            case LEASE_EXPIRED -> "LEASE_EXPIRED";
            case FROZEN -> "FROZEN";
            case MOVED -> "MOVED";
            default -> "STATUS(" + status + ")";
        };
    }
}
