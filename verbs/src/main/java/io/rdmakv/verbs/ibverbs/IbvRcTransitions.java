package io.rdmakv.verbs.ibverbs;

import io.rdmakv.verbs.AccessFlags;
import io.rdmakv.verbs.ConnectOptions;
import io.rdmakv.verbs.QpState;
import io.rdmakv.verbs.QueuePairEndpoint;
import io.rdmakv.verbs.ibverbs.bindings.IbvConstants;
import io.rdmakv.verbs.ibverbs.layout.IbvQpAttr;

import java.lang.foreign.MemorySegment;
import java.util.HexFormat;

import static io.rdmakv.verbs.ibverbs.bindings.IbvConstants.IBV_QP_ACCESS_FLAGS;
import static io.rdmakv.verbs.ibverbs.bindings.IbvConstants.IBV_QP_AV;
import static io.rdmakv.verbs.ibverbs.bindings.IbvConstants.IBV_QP_DEST_QPN;
import static io.rdmakv.verbs.ibverbs.bindings.IbvConstants.IBV_QP_MAX_DEST_RD_ATOMIC;
import static io.rdmakv.verbs.ibverbs.bindings.IbvConstants.IBV_QP_MAX_QP_RD_ATOMIC;
import static io.rdmakv.verbs.ibverbs.bindings.IbvConstants.IBV_QP_MIN_RNR_TIMER;
import static io.rdmakv.verbs.ibverbs.bindings.IbvConstants.IBV_QP_PATH_MTU;
import static io.rdmakv.verbs.ibverbs.bindings.IbvConstants.IBV_QP_PKEY_INDEX;
import static io.rdmakv.verbs.ibverbs.bindings.IbvConstants.IBV_QP_PORT;
import static io.rdmakv.verbs.ibverbs.bindings.IbvConstants.IBV_QP_RETRY_CNT;
import static io.rdmakv.verbs.ibverbs.bindings.IbvConstants.IBV_QP_RNR_RETRY;
import static io.rdmakv.verbs.ibverbs.bindings.IbvConstants.IBV_QP_RQ_PSN;
import static io.rdmakv.verbs.ibverbs.bindings.IbvConstants.IBV_QP_SQ_PSN;
import static io.rdmakv.verbs.ibverbs.bindings.IbvConstants.IBV_QP_STATE;
import static io.rdmakv.verbs.ibverbs.bindings.IbvConstants.IBV_QP_TIMEOUT;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * What an RC queue pair's {@code ibv_modify_qp} calls carry: each method fills a zeroed
 * {@code struct ibv_qp_attr} for one transition (see {@link IbvQueuePair} for the choices) and returns
 * the text that names the transition in an error; the matching {@code *_MASK} is its {@code attr_mask}.
 */
final class IbvRcTransitions
{
    static final int INIT_MASK = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS;
    static final int RTR_MASK = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
        IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
    static final int RTS_MASK = IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
        IBV_QP_MAX_QP_RD_ATOMIC;
    static final int ERR_MASK = IBV_QP_STATE;

    private static final int HOP_LIMIT = 64;

    private IbvRcTransitions()
    {
    }

    /** RESET → INIT: the context's port, pkey index 0, the remote accesses served. */
    static String init(final MemorySegment attr, final IbvContext context, final ConnectOptions options)
    {
        attr.set(JAVA_INT, IbvQpAttr.QP_STATE, QpState.INIT.code());
        attr.set(JAVA_SHORT, IbvQpAttr.PKEY_INDEX, (short)0);
        attr.set(JAVA_BYTE, IbvQpAttr.PORT_NUM, (byte)context.port());
        attr.set(JAVA_INT, IbvQpAttr.QP_ACCESS_FLAGS, options.accessFlags());
        return "RESET -> INIT (port " + context.port() + ", access " + AccessFlags.describe(options.accessFlags()) + ")";
    }

    /** INIT → RTR: path MTU, the peer's QPN and PSN, responder resources and the address vector. */
    static String rtr(
        final MemorySegment attr, final IbvContext context, final QueuePairEndpoint remote,
        final ConnectOptions options)
    {
        final int mtu = remote.mtu() > 0 ? Math.min(context.activeMtu(), remote.mtu()) : context.activeMtu();
        final int sgidIndex = options.gidIndex() >= 0 ? options.gidIndex() : context.gidIndex();
        final int maxDestRdAtomic = Math.min(255, Math.max(1, context.maxQpRdAtom()));
        attr.set(JAVA_INT, IbvQpAttr.QP_STATE, QpState.RTR.code());
        attr.set(JAVA_INT, IbvQpAttr.PATH_MTU, mtu);
        attr.set(JAVA_INT, IbvQpAttr.DEST_QP_NUM, remote.qpNum());
        attr.set(JAVA_INT, IbvQpAttr.RQ_PSN, remote.psn() & 0xffffff);
        attr.set(JAVA_BYTE, IbvQpAttr.MAX_DEST_RD_ATOMIC, (byte)maxDestRdAtomic);
        attr.set(JAVA_BYTE, IbvQpAttr.MIN_RNR_TIMER, (byte)options.minRnrTimer());
        attr.set(JAVA_BYTE, IbvQpAttr.AH_ATTR_PORT_NUM, (byte)context.port());
        attr.set(JAVA_BYTE, IbvQpAttr.AH_ATTR_SL, (byte)0);
        final String path;
        if (context.isEthernet())
        {
            attr.set(JAVA_BYTE, IbvQpAttr.AH_ATTR_IS_GLOBAL, (byte)1);
            MemorySegment.copy(remote.gid(), 0, attr, JAVA_BYTE, IbvQpAttr.AH_ATTR_GRH_DGID, 16);
            attr.set(JAVA_BYTE, IbvQpAttr.AH_ATTR_GRH_SGID_INDEX, (byte)sgidIndex);
            attr.set(JAVA_BYTE, IbvQpAttr.AH_ATTR_GRH_HOP_LIMIT, (byte)HOP_LIMIT);
            path = "dgid " + HexFormat.ofDelimiter(":").formatHex(remote.gid()) + ", sgid index " + sgidIndex;
        }
        else
        {
            attr.set(JAVA_SHORT, IbvQpAttr.AH_ATTR_DLID, (short)remote.lid());
            path = "dlid " + remote.lid();
        }
        return "INIT -> RTR (dest qpn " + remote.qpNum() + ", rq psn " + (remote.psn() & 0xffffff) + ", mtu " +
            IbvConstants.mtuBytes(mtu) + ", " + path + ")";
    }

    /** RTR → RTS: ACK timeout, retry counts, this side's PSN and outstanding READs/atomics. */
    static String rts(final MemorySegment attr, final IbvContext context, final int psn, final ConnectOptions options)
    {
        final int deviceMax = Math.min(255, Math.max(1, context.maxQpInitRdAtom()));
        final int maxRdAtomic = options.maxRdAtomic() > 0 ? Math.min(options.maxRdAtomic(), deviceMax) : deviceMax;
        final int retryCount = retryCountFor(context, options.retryCount());
        attr.set(JAVA_INT, IbvQpAttr.QP_STATE, QpState.RTS.code());
        attr.set(JAVA_INT, IbvQpAttr.SQ_PSN, psn);
        attr.set(JAVA_BYTE, IbvQpAttr.TIMEOUT, (byte)options.timeout());
        attr.set(JAVA_BYTE, IbvQpAttr.RETRY_CNT, (byte)retryCount);
        attr.set(JAVA_BYTE, IbvQpAttr.RNR_RETRY, (byte)options.rnrRetry());
        attr.set(JAVA_BYTE, IbvQpAttr.MAX_RD_ATOMIC, (byte)maxRdAtomic);
        return "RTR -> RTS (sq psn " + psn + ", timeout " + options.timeout() + ", retry " + retryCount +
            (retryCount != options.retryCount() ? " (asked " + options.retryCount() + ")" : "") +
            ", rnr retry " + options.rnrRetry() + ", max rd atomic " + maxRdAtomic + ")";
    }

    /** Any state → ERR. */
    static String err(final MemorySegment attr)
    {
        attr.set(JAVA_INT, IbvQpAttr.QP_STATE, QpState.ERR.code());
        return "-> ERR";
    }

    /** See {@link IbvQueuePair#retryCountFor}. */
    static int retryCountFor(final IbvContext context, final int asked)
    {
        return asked == 7 && context.isSoftRoce() ? 6 : asked;
    }
}
