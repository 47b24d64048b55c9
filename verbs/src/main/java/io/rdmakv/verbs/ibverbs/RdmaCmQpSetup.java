package io.rdmakv.verbs.ibverbs;

import io.rdmakv.verbs.AccessFlags;
import io.rdmakv.verbs.ConnectOptions;
import io.rdmakv.verbs.QpState;
import io.rdmakv.verbs.ibverbs.bindings.CallState;
import io.rdmakv.verbs.ibverbs.bindings.LibRdmacmConn;
import io.rdmakv.verbs.ibverbs.layout.IbvQpAttr;
import io.rdmakv.verbs.ibverbs.layout.RdmaConnParam;
import io.rdmakv.verbs.resource.Errno;
import io.rdmakv.verbs.resource.VerbsException;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static io.rdmakv.verbs.ibverbs.bindings.IbvConstants.IBV_QP_ACCESS_FLAGS;
import static io.rdmakv.verbs.ibverbs.bindings.IbvConstants.IBV_QP_MAX_DEST_RD_ATOMIC;
import static io.rdmakv.verbs.ibverbs.bindings.IbvConstants.IBV_QP_MAX_QP_RD_ATOMIC;
import static io.rdmakv.verbs.ibverbs.bindings.IbvConstants.IBV_QP_MIN_RNR_TIMER;
import static io.rdmakv.verbs.ibverbs.bindings.IbvConstants.IBV_QP_RETRY_CNT;
import static io.rdmakv.verbs.ibverbs.bindings.IbvConstants.IBV_QP_RNR_RETRY;
import static io.rdmakv.verbs.ibverbs.bindings.IbvConstants.IBV_QP_TIMEOUT;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * Moves an {@link IbvQueuePair} through INIT, RTR and RTS for an rdma_cm connection, and fills the
 * {@code struct rdma_conn_param} that announces it.
 *
 * <p>Why the queue pair is rdmakv's own ({@code ibv_create_qp} on the caller's protection domain) and not
 * {@code rdma_create_qp}'s: {@code rdma_create_qp} creates it on {@code id->verbs}, a device context
 * librdmacm opened for itself, with a protection domain of that context, while every memory region,
 * completion queue and queue pair of rdmakv belongs to the {@link IbvContext} the provider opened; and an
 * {@link IbvQueuePair} is what the rest of the store posts to, closes and fences. rdma_cm supports this
 * ("the QP is not on the id"): {@code rdma_connect}/{@code rdma_accept} send the QP number given in
 * {@code rdma_conn_param}, and the application moves the QP itself with the attributes
 * {@code rdma_init_qp_attr} reports (path, peer QPN, PSNs, negotiated READ/atomic depths) - what librdmacm
 * does internally for a QP on the id. The one condition: the queue pair must be on the device the id
 * resolved to (checked, {@link #checkDevice}). Over iWARP the kernel moves the QP to RTS itself at
 * connection time, which works with any QP of that device (the iWARP CM finds it by number); there the
 * RTS attributes come back empty and nothing is modified.
 *
 * <p>On top of rdma_cm's attributes the {@link ConnectOptions} set the remote accesses (INIT), the RNR
 * timer (RTR), the ACK timeout and the retry counts (RTS), as in {@link IbvRcTransitions}.
 */
final class RdmaCmQpSetup
{
    /** Bits 21-23 of the RTR mask: librdmacm masks them off on InfiniBand (a kernel bug sets them for RoCE). */
    private static final int IB_RTR_MASK_BUG = 0xe00000;

    private RdmaCmQpSetup()
    {
    }

    /** Fails unless the id (address resolved or connect request received) is on the queue pair's device and port. */
    static void checkDevice(final MemorySegment id, final IbvQueuePair qp, final String peer)
    {
        final IbvContext context = qp.ibvContext();
        final String device = RdmaCmChannel.deviceName(id);
        final int port = RdmaCmChannel.portNum(id);
        if (!context.deviceName().equals(device) || context.port() != port)
        {
            throw new VerbsException("rdma_cm", Errno.EINVAL, "the path to " + peer + " is on device " + device +
                " port " + port + ", but the queue pair is on " + context.deviceName() + " port " + context.port() +
                " (open the device that carries the address rdma_cm connects through)");
        }
    }

    /**
     * RESET to INIT. A queue pair the owner already moved to INIT itself ({@code modifyToInit}: this device's
     * port, P_Key index 0, the options' access) is left as it is: rdma_cm's INIT attributes are the same port
     * (checked by {@link #checkDevice}) and the index of the default P_Key, 0 on RoCE and iWARP.
     */
    static void toInit(final MemorySegment id, final IbvQueuePair qp, final ConnectOptions options)
    {
        if (qp.state() == QpState.INIT)
        {
            return;
        }
        step(id, qp, QpState.INIT, options, -1);
    }

    /**
     * RTR then RTS. {@code responderResources} and {@code initiatorDepth}, when not -1, replace what rdma_cm
     * reports for {@code max_dest_rd_atomic} and {@code max_rd_atomic} (the accepting side, whose answer is
     * not yet known to the connection manager; librdmacm does the same).
     */
    static void toRtrAndRts(
        final MemorySegment id, final IbvQueuePair qp, final ConnectOptions options, final int responderResources,
        final int initiatorDepth)
    {
        step(id, qp, QpState.RTR, options, responderResources);
        step(id, qp, QpState.RTS, options, initiatorDepth);
    }

    /** @param depth for RTR the responder resources, for RTS the initiator depth, to set; -1: rdma_cm's */
    private static void step(
        final MemorySegment id, final IbvQueuePair qp, final QpState to, final ConnectOptions options, final int depth)
    {
        final IbvContext context = qp.ibvContext();
        try (Arena call = Arena.ofConfined())
        {
            final MemorySegment state = CallState.allocate(call);
            final MemorySegment attr = call.allocate(IbvQpAttr.LAYOUT);
            final MemorySegment maskOut = call.allocate(JAVA_INT);
            attr.set(JAVA_INT, IbvQpAttr.QP_STATE, to.code());
            if (LibRdmacmConn.rdmaInitQpAttr(state, id, attr, maskOut) != 0)
            {
                throw new VerbsException("rdma_init_qp_attr", CallState.errno(state), "queue pair " + qp.qpNum() +
                    " -> " + to);
            }
            int mask = maskOut.get(JAVA_INT, 0);
            final StringBuilder what = new StringBuilder("-> " + to + " (rdma_cm attributes, mask 0x" +
                Integer.toHexString(mask));
            switch (to)
            {
                case INIT ->
                {
                    if ((mask & IBV_QP_ACCESS_FLAGS) != 0)
                    {
                        attr.set(JAVA_INT, IbvQpAttr.QP_ACCESS_FLAGS, options.accessFlags());
                        what.append(", access ").append(AccessFlags.describe(options.accessFlags()));
                    }
                }
                case RTR ->
                {
                    if (!context.isEthernet())
                    {
                        mask &= ~IB_RTR_MASK_BUG;
                    }
                    if ((mask & IBV_QP_MIN_RNR_TIMER) != 0)
                    {
                        attr.set(JAVA_BYTE, IbvQpAttr.MIN_RNR_TIMER, (byte)options.minRnrTimer());
                    }
                    if ((mask & IBV_QP_MAX_DEST_RD_ATOMIC) != 0 && depth >= 0)
                    {
                        attr.set(JAVA_BYTE, IbvQpAttr.MAX_DEST_RD_ATOMIC, (byte)depth);
                    }
                }
                case RTS ->
                {
                    if ((mask & IBV_QP_TIMEOUT) != 0)
                    {
                        attr.set(JAVA_BYTE, IbvQpAttr.TIMEOUT, (byte)options.timeout());
                    }
                    if ((mask & IBV_QP_RETRY_CNT) != 0)
                    {
                        attr.set(JAVA_BYTE, IbvQpAttr.RETRY_CNT,
                            (byte)IbvRcTransitions.retryCountFor(context, options.retryCount()));
                    }
                    if ((mask & IBV_QP_RNR_RETRY) != 0)
                    {
                        attr.set(JAVA_BYTE, IbvQpAttr.RNR_RETRY, (byte)options.rnrRetry());
                    }
                    if ((mask & IBV_QP_MAX_QP_RD_ATOMIC) != 0 && depth >= 0)
                    {
                        attr.set(JAVA_BYTE, IbvQpAttr.MAX_RD_ATOMIC, (byte)depth);
                    }
                }
                default -> throw new IllegalArgumentException(to.toString());
            }
            if (mask == 0)
            {
                return; // iWARP: the connection manager moves the queue pair itself
            }
            qp.modify(call, attr, mask, what.append(")").toString());
        }
    }

    /**
     * Fills {@code param} for {@code rdma_connect} or {@code rdma_accept} of {@code qp}.
     *
     * @param responderResources READs/atomics this side serves at once (at most the device's)
     * @param initiatorDepth     READs/atomics this side issues at once (at most the device's)
     */
    static void connParam(
        final MemorySegment param, final MemorySegment privateData, final IbvQueuePair qp,
        final ConnectOptions options, final int responderResources, final int initiatorDepth)
    {
        param.set(ADDRESS, RdmaConnParam.PRIVATE_DATA, privateData);
        param.set(JAVA_BYTE, RdmaConnParam.PRIVATE_DATA_LEN, (byte)privateData.byteSize());
        param.set(JAVA_BYTE, RdmaConnParam.RESPONDER_RESOURCES, (byte)responderResources);
        param.set(JAVA_BYTE, RdmaConnParam.INITIATOR_DEPTH, (byte)initiatorDepth);
        param.set(JAVA_BYTE, RdmaConnParam.FLOW_CONTROL, (byte)1);
        param.set(JAVA_BYTE, RdmaConnParam.RETRY_COUNT,
            (byte)IbvRcTransitions.retryCountFor(qp.ibvContext(), options.retryCount()));
        param.set(JAVA_BYTE, RdmaConnParam.RNR_RETRY_COUNT, (byte)options.rnrRetry());
        param.set(JAVA_BYTE, RdmaConnParam.SRQ, (byte)0);
        param.set(JAVA_INT, RdmaConnParam.QP_NUM, qp.qpNum());
    }

    /** READs/atomics this side can serve at once: the device's {@code max_qp_rd_atom}, 1..255. */
    static int maxResponderResources(final IbvQueuePair qp)
    {
        return Math.min(255, Math.max(1, qp.ibvContext().maxQpRdAtom()));
    }

    /** READs/atomics this side may issue at once: {@code ConnectOptions.maxRdAtomic} or the device's maximum. */
    static int maxInitiatorDepth(final IbvQueuePair qp, final ConnectOptions options)
    {
        final int device = Math.min(255, Math.max(1, qp.ibvContext().maxQpInitRdAtom()));
        return options.maxRdAtomic() > 0 ? Math.min(options.maxRdAtomic(), device) : device;
    }
}
