package io.rdmakv.verbs.ibverbs;

import io.rdmakv.verbs.ibverbs.bindings.RdmaCmConstants;
import io.rdmakv.verbs.resource.Errno;

/**
 * An rdma_cm event ({@code struct rdma_cm_event}), copied out before it was acknowledged.
 *
 * @param type               {@code enum rdma_cm_event_type} ({@link RdmaCmConstants})
 * @param name               {@code rdma_event_str(type)}
 * @param status             0, a negative errno, or for REJECTED the reject reason (28: the peer's
 *                           application rejected; 8: nobody listens there, on InfiniBand and RoCE)
 * @param id                 address of the {@code rdma_cm_id} it is for (for a connect request, a new id)
 * @param privateData        {@code param.conn}'s private data. Over InfiniBand and RoCE its length is that
 *                           of the CM message's field (56 bytes for a connect request), what the peer sent
 *                           padded with zeros; over iWARP what the peer sent
 * @param responderResources {@code param.conn.responder_resources}: READs/atomics the sender serves at once
 * @param initiatorDepth     {@code param.conn.initiator_depth}: READs/atomics the sender issues at once
 */
public record CmEvent(int type, String name, int status, long id, byte[] privateData, int responderResources,
    int initiatorDepth)
{
    /** The event's name and, when not 0, its status, for messages. */
    public String describe()
    {
        if (status == 0)
        {
            return name;
        }
        return name + " (status " + status + (status < 0 ? " " + Errno.name(-status) : "") +
            (type == RdmaCmConstants.RDMA_CM_EVENT_REJECTED ? rejectReason(status) : "") + ")";
    }

    private static String rejectReason(final int reason)
    {
        return switch (reason)
        {
            case 8 -> ": invalid service id, nobody listens there";
            case 28 -> ": rejected by the peer";
            default -> "";
        };
    }
}
