package io.rdmakv.verbs.ibverbs;

import io.rdmakv.verbs.ConnectOptions;
import io.rdmakv.verbs.ibverbs.bindings.CallState;
import io.rdmakv.verbs.ibverbs.bindings.LibRdmacm;
import io.rdmakv.verbs.ibverbs.bindings.LibRdmacmConn;
import io.rdmakv.verbs.ibverbs.layout.RdmaConnParam;
import io.rdmakv.verbs.resource.VerbsException;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;

import static io.rdmakv.verbs.ibverbs.bindings.RdmaCmConstants.RDMA_CM_EVENT_ADDR_RESOLVED;
import static io.rdmakv.verbs.ibverbs.bindings.RdmaCmConstants.RDMA_CM_EVENT_CONNECT_RESPONSE;
import static io.rdmakv.verbs.ibverbs.bindings.RdmaCmConstants.RDMA_CM_EVENT_ESTABLISHED;
import static io.rdmakv.verbs.ibverbs.bindings.RdmaCmConstants.RDMA_CM_EVENT_ROUTE_RESOLVED;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;

/**
 * The connecting side of rdma_cm: connects an RC {@link IbvQueuePair} (in RESET) to an
 * {@link RdmaCmListener} at an IP address, with private data, all within one deadline.
 *
 * <p>Steps: an event channel and an id; {@code rdma_resolve_addr} (the IP address to a device, port and
 * GID; ADDR_RESOLVED), {@code rdma_resolve_route} (ROUTE_RESOLVED), the queue pair to INIT, then
 * {@code rdma_connect} with the queue pair's number and the private data. The peer's answer is
 * CONNECT_RESPONSE over InfiniBand and RoCE: the queue pair goes to RTR and RTS with the attributes
 * rdma_cm reports, then {@code rdma_establish} confirms (the RTU); over iWARP it is ESTABLISHED, the
 * kernel having moved the queue pair. REJECTED, UNREACHABLE, ADDR_ERROR, ROUTE_ERROR, CONNECT_ERROR and
 * the deadline throw {@link RdmaCmException}; everything made so far is destroyed again.
 */
public final class RdmaCmConnector
{
    /** The most private data a connect request carries (InfiniBand/RoCE: 92-byte REQ field less rdma_cm's 36-byte header). */
    public static final int MAX_PRIVATE_DATA = 56;

    private static final System.Logger LOG = System.getLogger(RdmaCmConnector.class.getName());

    private RdmaCmConnector()
    {
    }

    /**
     * Connects {@code qp} to the listener at {@code remote}.
     *
     * @param privateData  up to {@link #MAX_PRIVATE_DATA} bytes the listener receives with the request
     * @param timeoutNanos the whole connection's deadline (resolution, connection, establishment)
     * @return the connection; close it before {@code qp}
     * @throws RdmaCmException the peer rejected, was unreachable, resolution failed, or time ran out
     * @throws VerbsException  a call failed (no rdma_cm here, the path is on another device, ...)
     */
    public static RdmaCmConnection connect(
        final IbvQueuePair qp, final InetSocketAddress remote, final byte[] privateData, final ConnectOptions options,
        final long timeoutNanos)
    {
        return connect(qp, remote, privateData, options, timeoutNanos, initialized -> { });
    }

    /**
     * As {@link #connect(IbvQueuePair, InetSocketAddress, byte[], ConnectOptions, long)}, calling
     * {@code initialized} once the queue pair is in INIT and before the request goes out (post receives there,
     * so that nothing the peer sends right after accepting finds none). A queue pair already in INIT is moved
     * INIT to INIT with rdma_cm's port and P_Key.
     */
    public static RdmaCmConnection connect(
        final IbvQueuePair qp, final InetSocketAddress remote, final byte[] privateData, final ConnectOptions options,
        final long timeoutNanos, final java.util.function.Consumer<IbvQueuePair> initialized)
    {
        if (privateData.length > MAX_PRIVATE_DATA)
        {
            throw new IllegalArgumentException("rdma_cm private data of a connect request is at most " +
                MAX_PRIVATE_DATA + " bytes, not " + privateData.length);
        }
        final long deadline = System.nanoTime() + timeoutNanos;
        final String peer = remote.toString();
        final RdmaCmChannel channel = RdmaCmChannel.create();
        final RdmaCmHistory history = new RdmaCmHistory("connect to " + peer + ", queue pair " + qp.qpNum());
        MemorySegment id = MemorySegment.NULL;
        try (Arena call = Arena.ofConfined())
        {
            id = channel.createId();
            history.step("rdma_resolve_addr");
            final MemorySegment state = CallState.allocate(call);
            if (LibRdmacm.rdmaResolveAddr(state, id, MemorySegment.NULL, RdmaCmAddresses.sockaddr(call, remote),
                millisLeft(deadline)) != 0)
            {
                throw new VerbsException("rdma_resolve_addr", CallState.errno(state), peer);
            }
            history.event(channel.expect(deadline, "rdma_resolve_addr", peer, RDMA_CM_EVENT_ADDR_RESOLVED));
            RdmaCmQpSetup.checkDevice(id, qp, peer);
            if (LibRdmacm.rdmaResolveRoute(state, id, millisLeft(deadline)) != 0)
            {
                throw new VerbsException("rdma_resolve_route", CallState.errno(state), peer);
            }
            history.event(channel.expect(deadline, "rdma_resolve_route", peer, RDMA_CM_EVENT_ROUTE_RESOLVED));
            RdmaCmQpSetup.toInit(id, qp, options);
            initialized.accept(qp);
            history.step("queue pair in INIT, receives posted");

            final MemorySegment param = call.allocate(RdmaConnParam.LAYOUT);
            final MemorySegment data = call.allocate(Math.max(1, privateData.length)).asSlice(0, privateData.length);
            MemorySegment.copy(privateData, 0, data, JAVA_BYTE, 0, privateData.length);
            RdmaCmQpSetup.connParam(param, data, qp, options, RdmaCmQpSetup.maxResponderResources(qp),
                RdmaCmQpSetup.maxInitiatorDepth(qp, options));
            history.step("rdma_connect (responder resources " + RdmaCmQpSetup.maxResponderResources(qp) +
                ", initiator depth " + RdmaCmQpSetup.maxInitiatorDepth(qp, options) + ")");
            if (LibRdmacmConn.rdmaConnect(state, id, param) != 0)
            {
                throw new VerbsException("rdma_connect", CallState.errno(state), peer);
            }
            final CmEvent answer = channel.expect(deadline, "rdma_connect", peer, RDMA_CM_EVENT_CONNECT_RESPONSE,
                RDMA_CM_EVENT_ESTABLISHED);
            history.event(answer);
            if (answer.type() == RDMA_CM_EVENT_CONNECT_RESPONSE)
            {
                RdmaCmQpSetup.toRtrAndRts(id, qp, options, -1, -1);
                if (LibRdmacmConn.rdmaEstablish(state, id) != 0)
                {
                    throw new VerbsException("rdma_establish", CallState.errno(state), peer);
                }
                history.step("queue pair in RTS, rdma_establish");
            }
            return new RdmaCmConnection(channel, id, qp, answer.privateData(), history);
        }
        catch (final RuntimeException e)
        {
            history.step("failed: " + e.getMessage());
            LOG.log(System.Logger.Level.WARNING, () -> "rdma_cm connect failed: " + history.describe());
            if (id.address() != 0)
            {
                RdmaCmChannel.destroyId(id);
            }
            channel.close();
            throw e;
        }
    }

    /** What is left until {@code deadline}, in whole milliseconds (at least 1): rdma_cm's resolution timeouts. */
    static int millisLeft(final long deadline)
    {
        return (int)Math.max(1, Math.min(Integer.MAX_VALUE, (deadline - System.nanoTime()) / 1_000_000L));
    }
}
