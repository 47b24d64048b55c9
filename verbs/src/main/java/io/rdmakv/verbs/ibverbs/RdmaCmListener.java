package io.rdmakv.verbs.ibverbs;

import io.rdmakv.verbs.ConnectOptions;
import io.rdmakv.verbs.ibverbs.bindings.CallState;
import io.rdmakv.verbs.ibverbs.bindings.LibRdmacm;
import io.rdmakv.verbs.ibverbs.bindings.LibRdmacmConn;
import io.rdmakv.verbs.ibverbs.layout.RdmaCmId;
import io.rdmakv.verbs.ibverbs.layout.RdmaConnParam;
import io.rdmakv.verbs.resource.VerbsException;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;

import static io.rdmakv.verbs.ibverbs.bindings.RdmaCmConstants.RDMA_CM_EVENT_CONNECT_REQUEST;
import static io.rdmakv.verbs.ibverbs.bindings.RdmaCmConstants.RDMA_CM_EVENT_ESTABLISHED;

/**
 * The listening side of rdma_cm: an id bound to an IP address and port ({@code rdma_bind_addr},
 * {@code rdma_listen}) and its event channel. {@link #accept} takes the next connect request, lets the
 * caller decide from its private data whether to take it and with which queue pair, and either rejects it
 * ({@code rdma_reject}) or accepts it: the request's new id moves to an event channel of its own
 * ({@code rdma_migrate_id}), the queue pair goes through INIT, RTR and RTS with rdma_cm's attributes,
 * {@code rdma_accept} answers, and ESTABLISHED (the peer's RTU) completes it.
 *
 * <p>Owns the listening id and its channel; each accepted {@link RdmaCmConnection} owns its own. Close the
 * connections and the listener in any order. One thread at a time.
 */
public final class RdmaCmListener implements AutoCloseable
{
    /** What {@link #accept} asks about a connect request. */
    @FunctionalInterface
    public interface Decision
    {
        /**
         * @param privateData what the peer sent (see {@link CmEvent#privateData()} for the padding)
         * @param peer        the peer's address, or null
         * @param device      the device the request came in on: the queue pair must be on it
         * @return the queue pair (in RESET) to connect, or null to reject the request
         */
        IbvQueuePair queuePairFor(byte[] privateData, InetSocketAddress peer, String device);

        /** {@code qp} is in INIT, the request not yet answered: post its receives here (a failure rejects it). */
        default void initialized(final IbvQueuePair qp)
        {
        }
    }

    private static final System.Logger LOG = System.getLogger(RdmaCmListener.class.getName());

    private final RdmaCmChannel channel;
    private final MemorySegment id;
    private final InetSocketAddress local;
    private long rejected;
    private boolean closed;

    private RdmaCmListener(final RdmaCmChannel channel, final MemorySegment id)
    {
        this.channel = channel;
        this.id = id;
        this.local = RdmaCmAddresses.read(id.asSlice(RdmaCmId.ROUTE_ADDR_SRC));
    }

    /**
     * Listens on {@code address} (port 0: one chosen by rdma_cm, see {@link #localAddress()}). The address
     * must belong to a network interface with an RDMA device (RoCE: the netdev of an rxe or a NIC's port;
     * the wildcard address listens on all).
     */
    public static RdmaCmListener listen(final InetSocketAddress address, final int backlog)
    {
        final RdmaCmChannel channel = RdmaCmChannel.create();
        MemorySegment id = MemorySegment.NULL;
        try (Arena call = Arena.ofConfined())
        {
            id = channel.createId();
            final MemorySegment state = CallState.allocate(call);
            if (LibRdmacm.rdmaBindAddr(state, id, RdmaCmAddresses.sockaddr(call, address)) != 0)
            {
                throw new VerbsException("rdma_bind_addr", CallState.errno(state), address.toString());
            }
            if (LibRdmacm.rdmaListen(state, id, backlog) != 0)
            {
                throw new VerbsException("rdma_listen", CallState.errno(state), address.toString());
            }
            return new RdmaCmListener(channel, id);
        }
        catch (final RuntimeException e)
        {
            if (id.address() != 0)
            {
                RdmaCmChannel.destroyId(id);
            }
            channel.close();
            throw e;
        }
    }

    /** The address listened on, with the port rdma_cm chose for port 0. */
    public InetSocketAddress localAddress()
    {
        return local;
    }

    /** The listening channel's fd: readable when a connect request waits. */
    public int eventFd()
    {
        return channel.fd();
    }

    /** Connect requests {@link #accept} rejected because the decision returned null. */
    public long rejectedCount()
    {
        return rejected;
    }

    /**
     * Waits up to {@code timeoutNanos} for a connect request and answers it. A request the decision
     * rejects is rejected and the wait goes on (until the same deadline).
     *
     * @return the established connection, or null when no request was taken in time
     * @throws RdmaCmException a taken request did not become a connection (the peer gave up, ...) in time
     */
    public RdmaCmConnection accept(final long timeoutNanos, final ConnectOptions options, final Decision decision)
    {
        return accept(timeoutNanos, 0, options, decision);
    }

    /**
     * As {@link #accept(long, ConnectOptions, Decision)}, giving a request taken at least {@code establishNanos}
     * to become a connection, however little of {@code timeoutNanos} is left (a listener that polls briefly for
     * requests still waits out a peer's establishment).
     */
    public RdmaCmConnection accept(final long timeoutNanos, final long establishNanos, final ConnectOptions options,
        final Decision decision)
    {
        ensureOpen();
        final long deadline = System.nanoTime() + timeoutNanos;
        while (true)
        {
            final CmEvent request = channel.next(deadline - System.nanoTime());
            if (request == null)
            {
                return null;
            }
            if (request.type() != RDMA_CM_EVENT_CONNECT_REQUEST)
            {
                continue; // nothing else is expected on a listening id (ADDR_CHANGE, DEVICE_REMOVAL: not acted on)
            }
            final MemorySegment child = MemorySegment.ofAddress(request.id()).reinterpret(RdmaCmId.SIZE);
            final InetSocketAddress peer = RdmaCmAddresses.read(child.asSlice(RdmaCmId.ROUTE_ADDR_DST));
            final IbvQueuePair qp;
            try
            {
                qp = decision.queuePairFor(request.privateData(), peer, RdmaCmChannel.deviceName(child));
            }
            catch (final RuntimeException e)
            {
                reject(child);
                throw e;
            }
            if (qp == null)
            {
                rejected++;
                reject(child);
                continue;
            }
            final long establishBy = System.nanoTime() + establishNanos;
            return accept(child, request, peer, qp, options, establishBy - deadline > 0 ? establishBy : deadline,
                decision);
        }
    }

    private static RdmaCmConnection accept(
        final MemorySegment child, final CmEvent request, final InetSocketAddress peer, final IbvQueuePair qp,
        final ConnectOptions options, final long deadline, final Decision decision)
    {
        final String what = "connect request from " + peer;
        final RdmaCmHistory history = new RdmaCmHistory("accept from " + peer + ", queue pair " + qp.qpNum());
        history.event(request);
        RdmaCmChannel own = null;
        try (Arena call = Arena.ofConfined())
        {
            final MemorySegment state = CallState.allocate(call);
            RdmaCmQpSetup.checkDevice(child, qp, String.valueOf(peer));
            own = RdmaCmChannel.create();
            if (LibRdmacm.rdmaMigrateId(state, child, own.segment()) != 0)
            {
                throw new VerbsException("rdma_migrate_id", CallState.errno(state), what);
            }
            // serve at most the READs the peer issues, issue at most the READs the peer serves
            final int responderResources =
                Math.min(RdmaCmQpSetup.maxResponderResources(qp), Math.max(1, request.initiatorDepth()));
            final int initiatorDepth =
                Math.min(RdmaCmQpSetup.maxInitiatorDepth(qp, options), Math.max(1, request.responderResources()));
            RdmaCmQpSetup.toInit(child, qp, options);
            decision.initialized(qp);
            history.step("queue pair in INIT, receives posted");
            RdmaCmQpSetup.toRtrAndRts(child, qp, options, responderResources, initiatorDepth);
            history.step("RTR/RTS as rdma_cm says, then rdma_accept (responder resources " + responderResources +
                ", initiator depth " + initiatorDepth + ")");
            final MemorySegment param = call.allocate(RdmaConnParam.LAYOUT);
            RdmaCmQpSetup.connParam(param, MemorySegment.NULL, qp, options, responderResources, initiatorDepth);
            if (LibRdmacmConn.rdmaAccept(state, child, param) != 0)
            {
                throw new VerbsException("rdma_accept", CallState.errno(state), what);
            }
            history.event(own.expect(deadline, "rdma_accept", what, RDMA_CM_EVENT_ESTABLISHED));
            return new RdmaCmConnection(own, child, qp, request.privateData(), history);
        }
        catch (final RuntimeException e)
        {
            history.step("failed: " + e.getMessage());
            LOG.log(System.Logger.Level.WARNING, () -> "rdma_cm accept failed: " + history.describe());
            reject(child); // harmless after an accept: the id is destroyed right after
            if (own != null)
            {
                own.close();
            }
            throw e;
        }
    }

    /** {@code rdma_reject} without private data, then {@code rdma_destroy_id}; errors are not acted on. */
    private static void reject(final MemorySegment child)
    {
        try (Arena call = Arena.ofConfined())
        {
            LibRdmacmConn.rdmaReject(CallState.allocate(call), child, MemorySegment.NULL, (byte)0);
        }
        RdmaCmChannel.destroyId(child);
    }

    private void ensureOpen()
    {
        if (closed)
        {
            throw new IllegalStateException("rdma_cm listener on " + local + " is closed");
        }
    }

    /** {@code rdma_destroy_id} of the listening id, then its channel; once. */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        final int errno = RdmaCmChannel.destroyId(id);
        channel.close();
        if (errno != 0)
        {
            throw new VerbsException("rdma_destroy_id", errno, "listener on " + local);
        }
    }

    @Override
    public String toString()
    {
        return "RdmaCmListener{" + local + "}";
    }
}
