package io.rdmakv.verbs.ibverbs;

import io.rdmakv.verbs.ibverbs.bindings.RdmaCmConstants;
import io.rdmakv.verbs.resource.Errno;
import io.rdmakv.verbs.resource.VerbsException;

/**
 * An rdma_cm connection that did not come about: the event that ended it (REJECTED, UNREACHABLE,
 * ADDR_ERROR, ROUTE_ERROR, CONNECT_ERROR, ...) or, for a timeout, none ({@link #event()} null, errno
 * {@link Errno#ETIMEDOUT}).
 */
public final class RdmaCmException extends VerbsException
{
    private final transient CmEvent event;

    RdmaCmException(final String call, final String what, final CmEvent event)
    {
        super(call, errnoOf(event), what + ": " + event.describe());
        this.event = event;
    }

    private RdmaCmException(final String call, final String message)
    {
        super(call, Errno.ETIMEDOUT, message);
        this.event = null;
    }

    static RdmaCmException timeout(final String call, final String what, final String awaited)
    {
        return new RdmaCmException(call, what + ": no " + awaited + " in time");
    }

    /** The event that ended the attempt, or null for a timeout. */
    public CmEvent event()
    {
        return event;
    }

    /** True when the peer (or its connection manager) said no: REJECTED. */
    public boolean rejected()
    {
        return event != null && event.type() == RdmaCmConstants.RDMA_CM_EVENT_REJECTED;
    }

    private static int errnoOf(final CmEvent event)
    {
        if (event.status() < 0)
        {
            return -event.status();
        }
        return event.type() == RdmaCmConstants.RDMA_CM_EVENT_REJECTED ? Errno.ECONNREFUSED : 0;
    }
}
