package io.rdmakv.server.replication;

import io.rdmakv.common.protocol.GrantMessage;
import io.rdmakv.common.protocol.HelloMessage;

/**
 * A primary's grant of its whole data area to its own peer traffic (docs/design.md, "Windows in a replicated
 * group"): the writer id its scrub's and partition copier's sessions name in their HELLO, and the secret their
 * BIND_WINDOW of {@link GrantMessage#NODE_SESSION_ID} carries; the node's control agent answers CHECK_GRANT for it.
 *
 * <p><b>One writer id for both.</b> The scrub ({@link BackupScrub}) and the copier ({@link PartitionCopier}) are
 * code of this node; both write its backups' data areas, and both are trusted with any extent of it. So they share
 * one grant rather than the node check learning a second writer: the power is the same (whoever holds the writer
 * id and the secret binds a window over any extent of this node's data area on a backup), and one pair is less to
 * check. Nothing else can bind under it: the secret is 64 random bits told to no client (it travels only in this
 * node's own BIND_WINDOW to its backups and their CHECK_GRANT back), and a client's BIND_WINDOW of its own session
 * id is checked against that session's latest ALLOC, never against a mover grant, which is held by an owner of the
 * node's own ({@link MoverGrants}), no session's. Sharing the writer id changes nothing else: the only other use of
 * a writer id is FENCE_WRITERS, which a primary sends its own backups for the writers of a batch of sessions that
 * departed it, some holding space. Of these sessions only the copier's with the source primary depart another
 * node, and that node's backups are in another group, where neither the scrub nor the copier has a session; a
 * session fenced anyway would only fail the scrub pass or the copy it serves, as an unreachable backup does.
 */
public record NodeGrant(long writerId, long secret)
{
    public NodeGrant
    {
        if (writerId == 0 || secret == 0)
        {
            throw new IllegalArgumentException("a node grant names a writer and a secret (neither 0)");
        }
    }

    /** A new grant: a fresh writer id and secret. */
    public static NodeGrant create()
    {
        return new NodeGrant(HelloMessage.newWriterId(), GrantMessage.newSecret());
    }
}
