package io.rdmakv.server.cluster.zk;

import io.rdmakv.common.cluster.ClusterMap;
import io.rdmakv.common.cluster.ReplicaGroup;

/**
 * How a node joins a cluster in ZooKeeper.
 *
 * @param connectString ZooKeeper servers, {@code HOST:PORT[,HOST:PORT...]}.
 * @param clusterName the cluster's name: its znodes live under {@code /rdmakv/<clusterName>}; letters, digits,
 *     {@code . _ -}.
 * @param replicas the replication factor to create the cluster with (1..{@value ReplicaGroup#MAX_REPLICAS}); a
 *     cluster that exists keeps the factor it was created with.
 * @param partitions the partition count to create the cluster with.
 * @param sessionTimeoutMs the ZooKeeper session timeout: how long a node may be silent before it counts as
 *     gone (and its groups fail over).
 * @param settleMs how long a new coordinator waits before it creates the first map, so that nodes starting
 *     together land in one map.
 * @param credentials the digest credential the session authenticates with (and every znode created is locked
 *     to), or null: none, the znodes are open to anyone (logged as a warning).
 * @param tls TLS to ZooKeeper, or null: plaintext.
 * @param moveStuckMs how long a move batch may stay in one phase before SWITCH before this node, as the
 *     coordinator, aborts it ({@code --move-stuck-ms}); 0: never.
 */
public record ZkOptions(String connectString, String clusterName, int replicas, int partitions, int sessionTimeoutMs,
    int settleMs, ZkCredentials credentials, ZkTls tls, long moveStuckMs)
{
    public static final int DEFAULT_SESSION_TIMEOUT_MS = 4000;
    public static final int DEFAULT_SETTLE_MS = 2000;
    /** {@code --move-stuck-ms}'s default: 5 minutes (docs/growth.md §9). */
    public static final long DEFAULT_MOVE_STUCK_MS = 300_000;

    public ZkOptions
    {
        if (connectString == null || connectString.isBlank())
        {
            throw new IllegalArgumentException("--zookeeper needs HOST:PORT[,HOST:PORT...]");
        }
        if (clusterName == null || !clusterName.matches("[A-Za-z0-9_][A-Za-z0-9._-]{0,99}"))
        {
            throw new IllegalArgumentException("--cluster-name \"" + clusterName +
                "\" must be 1..100 letters, digits, '.', '_' or '-' (not starting with '.' or '-')");
        }
        if (replicas < 1 || replicas > ReplicaGroup.MAX_REPLICAS)
        {
            throw new IllegalArgumentException("--replicas " + replicas + " outside 1.." + ReplicaGroup.MAX_REPLICAS);
        }
        if (partitions < 1 || partitions > ClusterMap.MAX_PARTITIONS)
        {
            throw new IllegalArgumentException("partitions " + partitions + " outside 1.." + ClusterMap.MAX_PARTITIONS);
        }
        if (sessionTimeoutMs < 100)
        {
            throw new IllegalArgumentException("--zk-session-timeout-ms " + sessionTimeoutMs + " is below 100");
        }
        if (settleMs < 0)
        {
            throw new IllegalArgumentException("settle time " + settleMs + " ms is negative");
        }
        if (moveStuckMs < 0)
        {
            throw new IllegalArgumentException("--move-stuck-ms " + moveStuckMs + " is negative");
        }
    }

    /** Options with the default move-stuck time. */
    public ZkOptions(final String connectString, final String clusterName, final int replicas, final int partitions,
        final int sessionTimeoutMs, final int settleMs, final ZkCredentials credentials, final ZkTls tls)
    {
        this(connectString, clusterName, replicas, partitions, sessionTimeoutMs, settleMs, credentials, tls,
            DEFAULT_MOVE_STUCK_MS);
    }

    /** Options without credentials and TLS. */
    public ZkOptions(final String connectString, final String clusterName, final int replicas, final int partitions,
        final int sessionTimeoutMs, final int settleMs)
    {
        this(connectString, clusterName, replicas, partitions, sessionTimeoutMs, settleMs, null, null);
    }

    /** Options with the default partition count, session timeout and settle time. */
    public static ZkOptions of(final String connectString, final String clusterName, final int replicas)
    {
        return new ZkOptions(connectString, clusterName, replicas, ClusterMap.DEFAULT_PARTITIONS,
            DEFAULT_SESSION_TIMEOUT_MS, DEFAULT_SETTLE_MS);
    }

    /** A copy with another partition count (for a cluster this node creates). */
    public ZkOptions withPartitions(final int count)
    {
        return new ZkOptions(connectString, clusterName, replicas, count, sessionTimeoutMs, settleMs, credentials, tls,
            moveStuckMs);
    }

    /** A copy with another session timeout. */
    public ZkOptions withSessionTimeoutMs(final int ms)
    {
        return new ZkOptions(connectString, clusterName, replicas, partitions, ms, settleMs, credentials, tls,
            moveStuckMs);
    }

    /** A copy with another settle time. */
    public ZkOptions withSettleMs(final int ms)
    {
        return new ZkOptions(connectString, clusterName, replicas, partitions, sessionTimeoutMs, ms, credentials, tls,
            moveStuckMs);
    }

    /** A copy with these credentials (null: none). */
    public ZkOptions withCredentials(final ZkCredentials c)
    {
        return new ZkOptions(connectString, clusterName, replicas, partitions, sessionTimeoutMs, settleMs, c, tls,
            moveStuckMs);
    }

    /** A copy with this TLS (null: plaintext). */
    public ZkOptions withTls(final ZkTls t)
    {
        return new ZkOptions(connectString, clusterName, replicas, partitions, sessionTimeoutMs, settleMs, credentials,
            t, moveStuckMs);
    }

    /** A copy with another move-stuck time (0: never abort a stuck batch). */
    public ZkOptions withMoveStuckMs(final long ms)
    {
        return new ZkOptions(connectString, clusterName, replicas, partitions, sessionTimeoutMs, settleMs, credentials,
            tls, ms);
    }

    /** The Curator namespace: {@code rdmakv/<clusterName>}. */
    public String namespace()
    {
        return "rdmakv/" + clusterName;
    }
}
