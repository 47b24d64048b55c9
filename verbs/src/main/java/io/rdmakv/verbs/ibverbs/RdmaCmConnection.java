package io.rdmakv.verbs.ibverbs;

import io.rdmakv.verbs.ibverbs.bindings.CallState;
import io.rdmakv.verbs.ibverbs.bindings.LibRdmacmConn;
import io.rdmakv.verbs.ibverbs.layout.RdmaCmId;
import io.rdmakv.verbs.resource.VerbsException;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;

import static io.rdmakv.verbs.ibverbs.bindings.RdmaCmConstants.RDMA_CM_EVENT_DEVICE_REMOVAL;
import static io.rdmakv.verbs.ibverbs.bindings.RdmaCmConstants.RDMA_CM_EVENT_DISCONNECTED;

/**
 * An established rdma_cm connection of an RC {@link IbvQueuePair}: its {@code rdma_cm_id} and the event
 * channel that id reports to, one per connection, so that the owner sees this connection's events only.
 * Made by {@link RdmaCmConnector#connect} or {@link RdmaCmListener#accept}.
 *
 * <p>The owner learns that the peer went away (a DISCONNECTED event: the peer disconnected or closed, or
 * the connection manager gave up on it; or DEVICE_REMOVAL) by calling {@link #pollDisconnected} with a
 * timeout, or by polling {@link #eventFd()} in its own loop and calling {@code pollDisconnected(0)} when
 * it is readable. A disconnected session should be fenced as a queue-pair error is: this class moves the
 * queue pair to ERR when it sees the event, so that nothing more is posted to a peer that left.
 *
 * <p>Ownership: the connection owns the id and the channel, not the queue pair. Close the connection first,
 * then the queue pair ({@code try (qp; connection)} closes in that order): {@link #close()} disconnects
 * (moving the queue pair to ERR), destroys the id, then the channel. Not thread-safe: one owner thread,
 * or the owner's lock.
 */
public final class RdmaCmConnection implements io.rdmakv.verbs.ConnectionManager.Connection
{
    private static final System.Logger LOG = System.getLogger(RdmaCmConnection.class.getName());

    private final RdmaCmChannel channel;
    private final MemorySegment id;
    private final IbvQueuePair qp;
    private final byte[] peerPrivateData;
    private final InetSocketAddress peer;
    private final RdmaCmHistory history;
    private boolean disconnected;
    private boolean disconnectSent;
    private boolean closed;

    /** Takes ownership of {@code id} and {@code channel} (the id's events go there). */
    RdmaCmConnection(final RdmaCmChannel channel, final MemorySegment id, final IbvQueuePair qp, final byte[] peerPrivateData,
        final RdmaCmHistory history)
    {
        this.history = history;
        this.channel = channel;
        this.id = id;
        this.qp = qp;
        this.peerPrivateData = peerPrivateData.clone();
        this.peer = RdmaCmAddresses.read(id.asSlice(RdmaCmId.ROUTE_ADDR_DST));
    }

    public IbvQueuePair queuePair()
    {
        return qp;
    }

    /**
     * What the peer sent with its connect request (on the listening side) or its accept (on the connecting
     * side). Over InfiniBand and RoCE padded with zeros to the CM message's size: carry a length in it.
     */
    public byte[] peerPrivateData()
    {
        return peerPrivateData.clone();
    }

    /** The peer's address as rdma_cm has it, or null. */
    public InetSocketAddress peerAddress()
    {
        return peer;
    }

    /** The fd of this connection's event channel: readable when an event (a disconnect) waits. */
    public int eventFd()
    {
        return channel.fd();
    }

    /**
     * This connection's rdma_cm events and steps with their times ({@link RdmaCmHistory#describe}), for the message
     * of a failure; events not yet read by {@link #pollDisconnected} are not in it.
     */
    @Override
    public String history()
    {
        return history.describe();
    }

    /** True once a DISCONNECTED or DEVICE_REMOVAL event was seen (by {@link #pollDisconnected}). */
    public boolean isDisconnected()
    {
        return disconnected;
    }

    /**
     * Reads this connection's events for up to {@code timeoutNanos} (0: only those already there) and
     * returns whether the connection is gone: true from the first DISCONNECTED or DEVICE_REMOVAL event on,
     * after the queue pair was moved to ERR and the peer's disconnect answered ({@code rdma_disconnect},
     * which ends the peer's wait for its DISCONNECTED). Other events (TIMEWAIT_EXIT, ...) are logged and
     * passed over.
     */
    @Override
    public boolean pollDisconnected(final long timeoutNanos)
    {
        ensureOpen();
        final long deadline = System.nanoTime() + Math.max(0, timeoutNanos);
        while (!disconnected)
        {
            final CmEvent event = channel.next(deadline - System.nanoTime());
            if (event == null)
            {
                break;
            }
            history.event(event);
            if (event.type() == RDMA_CM_EVENT_DISCONNECTED || event.type() == RDMA_CM_EVENT_DEVICE_REMOVAL)
            {
                disconnected = true;
                answerDisconnect();
            }
            else
            {
                LOG.log(System.Logger.Level.DEBUG, () -> "rdma_cm connection to " + peer + ": " + event.describe());
            }
        }
        return disconnected;
    }

    /**
     * Moves the queue pair to ERR (outstanding work requests flush) and sends a disconnect request
     * ({@code rdma_disconnect}); the peer sees DISCONNECTED, and so does this side. Once; a second call does
     * nothing.
     */
    public void disconnect()
    {
        ensureOpen();
        if (disconnectSent)
        {
            return;
        }
        disconnectSent = true;
        history.step("queue pair to ERR, rdma_disconnect");
        fence();
        try (Arena call = Arena.ofConfined())
        {
            final MemorySegment state = CallState.allocate(call);
            if (LibRdmacmConn.rdmaDisconnect(state, id) != 0 && !disconnected)
            {
                throw new VerbsException("rdma_disconnect", CallState.errno(state), "connection to " + peer);
            }
        }
    }

    /**
     * After DISCONNECTED: the queue pair to ERR, and {@code rdma_disconnect} unless this side already sent
     * one. When the peer disconnected, that call is the answer (the DREP of InfiniBand and RoCE) the peer's
     * DISCONNECTED waits for; without it the peer waits out its CM timeouts (measured on rxe: more than 30
     * s). Errors are logged only: the connection is gone either way.
     */
    private void answerDisconnect()
    {
        fence();
        if (disconnectSent)
        {
            return;
        }
        disconnectSent = true;
        history.step("queue pair to ERR, rdma_disconnect (answer)");
        try (Arena call = Arena.ofConfined())
        {
            final MemorySegment state = CallState.allocate(call);
            if (LibRdmacmConn.rdmaDisconnect(state, id) != 0)
            {
                final int errno = CallState.errno(state);
                LOG.log(System.Logger.Level.DEBUG, () -> "answering the disconnect of " + peer + ": errno " + errno);
            }
        }
    }

    private void fence()
    {
        if (!qp.isClosed())
        {
            try
            {
                qp.modifyToError();
            }
            catch (final VerbsException e)
            {
                LOG.log(System.Logger.Level.DEBUG, () -> "fencing " + qp + " after a disconnect: " + e.getMessage());
            }
        }
    }

    private void ensureOpen()
    {
        if (closed)
        {
            throw new IllegalStateException("rdma_cm connection to " + peer + " is closed");
        }
    }

    /** {@link #disconnect()} (errors logged), {@code rdma_destroy_id}, then the event channel; once. */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        try
        {
            disconnect();
        }
        catch (final VerbsException e)
        {
            LOG.log(System.Logger.Level.DEBUG, () -> "closing rdma_cm connection to " + peer + ": " + e.getMessage());
        }
        closed = true;
        final int errno = RdmaCmChannel.destroyId(id);
        channel.close();
        if (errno != 0)
        {
            throw new VerbsException("rdma_destroy_id", errno, "connection to " + peer);
        }
    }

    @Override
    public String toString()
    {
        return "RdmaCmConnection{" + qp + " <-> " + peer + (disconnected ? ", disconnected" : "") + "}";
    }
}
