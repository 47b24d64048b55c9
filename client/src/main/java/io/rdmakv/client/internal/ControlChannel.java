package io.rdmakv.client.internal;

import io.rdmakv.common.protocol.ControlCodec;
import io.rdmakv.common.protocol.ControlMessage;
import io.rdmakv.common.protocol.ShutdownMessage;

import java.lang.foreign.MemorySegment;

/**
 * The control plane of one session: requests SENT from {@link LaneBuffers#CONTROL_SEND}, replies and
 * notices RECEIVED into the lane's receive buffers, matched by request id. A SHUTDOWN notice met on
 * the way is remembered. Control path: records are decoded into objects (allocates).
 */
final class ControlChannel
{
    private final LaneIo io;
    private final LaneRequests requests;
    private final MemorySegment mem;
    private final LaneCounters counters;
    private final long timeoutNanos;
    private long nextRequestId = 1;
    private boolean shutdownNoticed;

    ControlChannel(final LaneIo io, final LaneRequests requests, final MemorySegment mem, final LaneCounters counters,
        final long timeoutNanos)
    {
        this.io = io;
        this.requests = requests;
        this.mem = mem;
        this.counters = counters;
        this.timeoutNanos = timeoutNanos;
    }

    /** How long a {@link #call} waits for its reply. */
    long timeoutNanos()
    {
        return timeoutNanos;
    }

    long nextRequestId()
    {
        return nextRequestId++;
    }

    /** The lane's memory: a message to {@link #send} is written at {@link LaneBuffers#CONTROL_SEND}. */
    MemorySegment memory()
    {
        return mem;
    }

    /** SENDs the {@code length} bytes already in the send buffer; returns a {@link Status}. */
    int send(final int length)
    {
        counters.increment(ClientCounter.CONTROL_MESSAGES);
        return requests.send(length);
    }

    /** Encodes and SENDs {@code message} without waiting for a reply. */
    int post(final ControlMessage message)
    {
        return send(ControlCodec.encode(message, mem, LaneBuffers.CONTROL_SEND));
    }

    /** Sends a request and waits for its reply; null when the lane broke or timed out. */
    ControlMessage call(final ControlMessage request)
    {
        return call(request, timeoutNanos);
    }

    /** {@link #call(ControlMessage)}, waiting up to {@code waitNanos} for the reply. */
    ControlMessage call(final ControlMessage request, final long waitNanos)
    {
        if (post(request) != Status.OK)
        {
            return null;
        }
        while (true)
        {
            final ControlMessage reply = receive(waitNanos);
            if (reply == null)
            {
                return null;
            }
            if (reply instanceof ShutdownMessage)
            {
                shutdownNoticed = true;
            }
            else if (reply.requestId() == request.requestId())
            {
                return reply;
            }
        }
    }

    /** Looks for notices the node sent (SHUTDOWN) without waiting. */
    void pollNotices()
    {
        while (io.receivePending())
        {
            try
            {
                if (receive(0) instanceof ShutdownMessage)
                {
                    shutdownNoticed = true;
                }
            }
            catch (final RuntimeException e)
            {
                // a malformed notice is ignored: it asks nothing of us
            }
        }
    }

    /** Why the last call got no reply: the lane's failure ({@link Status#CONNECTION_LOST} if none is recorded). */
    int failure()
    {
        return io.failure() != 0 ? io.failure() : Status.CONNECTION_LOST;
    }

    /** True when the node announced it is shutting down. */
    boolean shutdownNoticed()
    {
        return shutdownNoticed;
    }

    private ControlMessage receive(final long timeout)
    {
        final int buffer = io.awaitReceive(timeout);
        if (buffer < 0)
        {
            return null;
        }
        try
        {
            return ControlCodec.decode(mem, LaneBuffers.controlRecv(buffer), io.lastReceiveLength());
        }
        finally
        {
            io.repostReceive(buffer);
        }
    }
}
