package io.rdmakv.client.internal.lane;

import io.rdmakv.common.protocol.ControlMessage;
import io.rdmakv.common.protocol.GrantMessage;
import io.rdmakv.common.protocol.GrantReplyMessage;
import io.rdmakv.common.protocol.wire.MessageType;
import io.rdmakv.peer.ControlChannel;
import io.rdmakv.peer.Status;

/**
 * This lane's write access to its node as a backup or copying node of a replica group: the memory window the node
 * bound on this lane's queue pair over the extent the group's primary granted this client's lane there
 * (BIND_WINDOW, answered WINDOW_BOUND with the window's rkey; docs/design.md, "Windows in a replicated group").
 * Bound once per grant, before the first block of that grant is written here; a grant without a secret (a node
 * whose grants no replica mirrors) is written with the data area's rkey. Used by the thread that owns the lane;
 * allocation-free except for the BIND reply record, once per grant.
 */
public final class ReplicaWindow
{
    private final ControlChannel control;
    private final LaneRequests requests;
    private long session;
    private long secret;

    public ReplicaWindow(final ControlChannel control, final LaneRequests requests)
    {
        this.control = control;
        this.requests = requests;
    }

    /**
     * Makes the primary's current grant {@code grant} writable on this lane's node, binding a window over it when
     * this lane has none for it yet. Returns {@link Status#OK}, the control channel's failure, or {@link
     * Status#REMOTE_ERROR} when the node refused.
     */
    public int cover(final SpaceLease grant)
    {
        if (grant.grantSecret() == 0)
        {
            requests.replicaWriteRkey(requests.remote().dataRkey());
            return Status.OK;
        }
        if (grant.grantSecret() == secret && grant.sessionId() == session)
        {
            return Status.OK;
        }
        final ControlMessage reply = control.call(GrantMessage.bind(control.nextRequestId(), grant.sessionId(),
            grant.extentOffset(), grant.extentLength(), grant.grantSecret()));
        final GrantReplyMessage bound = GrantReplyMessage.as(MessageType.WINDOW_BOUND, reply);
        if (bound == null)
        {
            return reply == null ? control.failure() : Status.REMOTE_ERROR;
        }
        requests.replicaWriteRkey(bound.value());
        session = grant.sessionId();
        secret = grant.grantSecret();
        return Status.OK;
    }
}
