package io.rdmakv.server.control;

import io.rdmakv.common.protocol.GrantMessage;

import java.util.concurrent.CompletableFuture;

/**
 * What {@link ReplicaWindows} needs of the other replicas of this node's group (implemented over sessions of this
 * node's own by {@code replication/ReplicaGrants}): its role under the map of the moment, and the two node-to-node
 * calls, each completing on a thread of its own.
 */
public interface GrantPeers
{
    /** What this node is to the grants of its group under the map of the moment. */
    enum Role
    {
        /** No other replica mirrors its data area: a grant needs no secret and nothing to revoke. */
        ALONE,
        /** The primary of a group with backups or copying nodes: its grants carry secrets, revoked on every replica. */
        PRIMARY,
        /** A backup or copying node: it grants nothing; clients bind windows over their primary's grants. */
        REPLICA
    }

    /** This node's role now (any thread). */
    Role role();

    /**
     * Has every backup and copying node of this node's group deallocate the windows bound for {@code session}'s
     * grant under {@code secret} (REVOKE_GRANT); completes once each confirmed, or exceptionally naming the first
     * that did not.
     */
    CompletableFuture<Void> revoke(long session, long secret);

    /**
     * Asks this node's group's primary (CHECK_GRANT) whether a live session of {@code writer} holds the grant
     * {@code bind} names; exceptionally when it cannot be asked.
     */
    CompletableFuture<Boolean> check(long writer, GrantMessage bind);
}
