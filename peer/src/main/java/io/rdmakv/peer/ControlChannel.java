package io.rdmakv.peer;

import io.rdmakv.common.protocol.ControlCodec;
import io.rdmakv.common.protocol.ControlMessage;
import io.rdmakv.common.protocol.ShutdownMessage;
import io.rdmakv.common.protocol.wire.MessageHeaderDescriptor;
import io.rdmakv.common.protocol.wire.MessageType;
import io.rdmakv.verbs.SendFlags;
import io.rdmakv.verbs.SendWorkRequest;
import io.rdmakv.verbs.SendWorkRequests;

import java.lang.foreign.MemorySegment;

/**
 * The control plane of one session: requests SENT from its {@link ControlArea}'s send buffer, replies and notices
 * RECEIVED into its receive buffers, matched by request id. A SHUTDOWN notice met on the way is remembered.
 * Control path: records are decoded into objects (allocates), except {@link #send} of a message written in place.
 */
public final class ControlChannel implements AutoCloseable
{
    private final SessionIo io;
    private final MemorySegment mem;
    private final IoCounters counters;
    private final long timeoutNanos;
    private final SendWorkRequests sendWr = SendWorkRequests.allocate(1, 1);
    private long nextRequestId = 1;
    private boolean shutdownNoticed;

    /**
     * @param mem the session's memory, registered as {@code io}'s, with the control area at {@link
     *            SessionIo#controlOffset()}
     */
    public ControlChannel(final SessionIo io, final MemorySegment mem, final IoCounters counters,
        final long timeoutNanos)
    {
        this.io = io;
        this.mem = mem;
        this.counters = counters;
        this.timeoutNanos = timeoutNanos;
        sendWr.at(0).send(io.localAddress(sendOffset()), 0, io.lkey()).sendFlags(SendFlags.SIGNALED).wrId(0).next(null);
    }

    /** How long a {@link #call} waits for its reply. */
    public long timeoutNanos()
    {
        return timeoutNanos;
    }

    public long nextRequestId()
    {
        return nextRequestId++;
    }

    /** The session's memory: a message to {@link #send} is written at {@link #sendOffset()}. */
    public MemorySegment memory()
    {
        return mem;
    }

    /** Where a message to {@link #send} is written in {@link #memory()}. */
    public int sendOffset()
    {
        return io.controlOffset() + ControlArea.SEND;
    }

    /** SENDs the {@code length} bytes already in the send buffer; returns a {@link Status}. */
    public int send(final int length)
    {
        counters.controlMessage();
        sendWr.at(0).sge(0, io.localAddress(sendOffset()), length, io.lkey());
        return io.ring(sendWr.at(0), sendWr.at(0));
    }

    /** Encodes and SENDs {@code message} without waiting for a reply. */
    public int post(final ControlMessage message)
    {
        return send(ControlCodec.encode(message, mem, sendOffset()));
    }

    /** Sends a request and waits for its reply; null when the session broke or timed out. */
    public ControlMessage call(final ControlMessage request)
    {
        return call(request, timeoutNanos);
    }

    /** {@link #call(ControlMessage)}, waiting up to {@code waitNanos} for the reply. */
    public ControlMessage call(final ControlMessage request, final long waitNanos)
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

    /**
     * Makes {@code wr} (of the caller's own work request array, so that the caller's requests can be linked on to
     * it) a signaled SEND of this channel's send buffer, for {@link #exchange}.
     */
    public void prepareSend(final SendWorkRequest wr)
    {
        wr.send(io.localAddress(sendOffset()), 0, io.lkey()).sendFlags(SendFlags.SIGNALED).wrId(0).next(null);
    }

    /**
     * The data path's call, allocation-free: SENDs the {@code length} bytes already in the send buffer (request id
     * {@code requestId}) and waits for the message that answers {@code requestId}. With {@code first} null the SEND
     * goes alone; else {@code first} starts a prebuilt chain of unsignaled requests linked on to {@code send} (one
     * {@link #prepareSend prepared} in the same array), all in one doorbell, so an RC responder has executed them
     * when the message arrives. Returns the receive buffer the answer is in (read it at {@link #received}, {@link
     * #lastReceiveLength()} bytes, then {@link #release} it), or a negative {@link Status}. Messages for other
     * requests met on the way are dropped; a SHUTDOWN notice among them is remembered.
     */
    public int exchange(final SendWorkRequest first, final SendWorkRequest send, final int length,
        final long requestId)
    {
        counters.controlMessage();
        final SendWorkRequest last = first == null ? sendWr.at(0) : send;
        last.sge(0, io.localAddress(sendOffset()), length, io.lkey());
        final int rc = io.ring(first == null ? last : first, last);
        if (rc != Status.OK)
        {
            return rc;
        }
        while (true)
        {
            final int buffer = io.awaitReceive(timeoutNanos);
            if (buffer < 0)
            {
                return buffer;
            }
            final int at = received(buffer);
            if (io.lastReceiveLength() >= MessageHeaderDescriptor.HEADER_LENGTH &&
                MessageHeaderDescriptor.requestId(mem, at) == requestId &&
                MessageHeaderDescriptor.type(mem, at) != MessageType.SHUTDOWN.code())
            {
                return buffer;
            }
            if (io.lastReceiveLength() >= MessageHeaderDescriptor.HEADER_LENGTH &&
                MessageHeaderDescriptor.type(mem, at) == MessageType.SHUTDOWN.code())
            {
                shutdownNoticed = true;
            }
            if (!io.repostReceive(buffer))
            {
                return Status.CONNECTION_LOST;
            }
        }
    }

    /** Where receive buffer {@code buffer} starts in {@link #memory()}. */
    public int received(final int buffer)
    {
        return io.controlOffset() + ControlArea.recv(buffer);
    }

    /** Bytes in the buffer {@link #exchange} returned. */
    public int lastReceiveLength()
    {
        return io.lastReceiveLength();
    }

    /** Posts the buffer {@link #exchange} returned again; false when the queue pair refused it (the session broke). */
    public boolean release(final int buffer)
    {
        return io.repostReceive(buffer);
    }

    /** Looks for notices the node sent (SHUTDOWN) without waiting. */
    public void pollNotices()
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

    /** Why the last call got no reply: the session's failure ({@link Status#CONNECTION_LOST} if none is recorded). */
    public int failure()
    {
        return io.failure() != 0 ? io.failure() : Status.CONNECTION_LOST;
    }

    /** True when the node announced it is shutting down. */
    public boolean shutdownNoticed()
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
            return ControlCodec.decode(mem, io.controlOffset() + ControlArea.recv(buffer), io.lastReceiveLength());
        }
        finally
        {
            io.repostReceive(buffer);
        }
    }

    @Override
    public void close()
    {
        sendWr.close();
    }
}
