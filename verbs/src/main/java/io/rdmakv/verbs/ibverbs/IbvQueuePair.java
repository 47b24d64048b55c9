package io.rdmakv.verbs.ibverbs;

import io.rdmakv.verbs.AccessFlags;
import io.rdmakv.verbs.ConnectOptions;
import io.rdmakv.verbs.ibverbs.bindings.CallState;
import io.rdmakv.verbs.ibverbs.bindings.IbvConstants;
import io.rdmakv.verbs.ibverbs.bindings.InlineVerbs;
import io.rdmakv.verbs.ibverbs.bindings.LibIbverbsQp;
import io.rdmakv.verbs.ibverbs.layout.IbvContextStruct;
import io.rdmakv.verbs.ibverbs.layout.IbvQp;
import io.rdmakv.verbs.ibverbs.layout.IbvQpAttr;
import io.rdmakv.verbs.ibverbs.layout.IbvQpInitAttr;
import io.rdmakv.verbs.resource.Errno;
import io.rdmakv.verbs.ProtectionDomain;
import io.rdmakv.verbs.QpState;
import io.rdmakv.verbs.QueuePair;
import io.rdmakv.verbs.QueuePairConfig;
import io.rdmakv.verbs.QueuePairEndpoint;
import io.rdmakv.verbs.ReceiveWorkRequest;
import io.rdmakv.verbs.SendWorkRequest;
import io.rdmakv.verbs.resource.VerbsException;
import io.rdmakv.verbs.resource.VerbsResource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.ThreadLocalRandom;

import static io.rdmakv.verbs.ibverbs.bindings.IbvConstants.IBV_QP_DEST_QPN;
import static io.rdmakv.verbs.ibverbs.bindings.IbvConstants.IBV_QP_MAX_DEST_RD_ATOMIC;
import static io.rdmakv.verbs.ibverbs.bindings.IbvConstants.IBV_QP_MAX_QP_RD_ATOMIC;
import static io.rdmakv.verbs.ibverbs.bindings.IbvConstants.IBV_QP_MIN_RNR_TIMER;
import static io.rdmakv.verbs.ibverbs.bindings.IbvConstants.IBV_QP_PATH_MTU;
import static io.rdmakv.verbs.ibverbs.bindings.IbvConstants.IBV_QP_RETRY_CNT;
import static io.rdmakv.verbs.ibverbs.bindings.IbvConstants.IBV_QP_RNR_RETRY;
import static io.rdmakv.verbs.ibverbs.bindings.IbvConstants.IBV_QP_STATE;
import static io.rdmakv.verbs.ibverbs.bindings.IbvConstants.IBV_QP_TIMEOUT;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * A reliable-connected queue pair ({@code struct ibv_qp *}, {@code IBV_QPT_RC}).
 *
 * <p>{@link #postSend} and {@link #postReceive} call the provider's {@code post_send}/{@code post_recv}
 * through the pointers read at creation, passing the caller's prepared {@code ibv_send_wr} /
 * {@code ibv_recv_wr} chain as it is: no copy, no allocation, the verb's return code returned.
 *
 * <p>The state transitions ({@link IbvRcTransitions} fills their attributes) follow
 * {@code man ibv_modify_qp} for RC: INIT (port, pkey index 0, the
 * remote accesses it serves), RTR (path MTU = the smaller of the two ports' active MTUs, the peer's QPN
 * and PSN, as many incoming READs/atomics as the device allows, and the address vector: on InfiniBand
 * the peer's LID, on RoCE a GRH with the peer's GID, this context's RoCE v2 GID index or
 * {@code ConnectOptions.gidIndex}, hop limit 64), RTS (ACK timeout, retry counts, this side's PSN, and
 * {@code maxRdAtomic} outstanding READs/atomics, the device maximum when 0).
 */
public final class IbvQueuePair extends VerbsResource implements QueuePair
{
    private final IbvProtectionDomain pd;
    private final IbvContext context;
    private final IbvCompletionQueue sendCq;
    private final IbvCompletionQueue recvCq;
    private final Arena arena;
    private final MemorySegment qp;
    private final MemorySegment postSendFn;
    private final MemorySegment postRecvFn;
    private final MemorySegment badWr;
    private final int qpNum;
    private final int psn;
    private final int maxSendWr;
    private final int maxRecvWr;
    private final int maxInlineData;

    IbvQueuePair(
        final IbvProtectionDomain pd, final QueuePairConfig config, final IbvCompletionQueue sendCq,
        final IbvCompletionQueue recvCq)
    {
        super("ibv_destroy_qp", pd, sendCq, recvCq);
        this.pd = pd;
        this.context = pd.ibvContext();
        this.sendCq = sendCq;
        this.recvCq = recvCq;
        this.arena = Arena.ofShared();
        MemorySegment createdQp = MemorySegment.NULL;
        try (Arena call = Arena.ofConfined())
        {
            final MemorySegment state = CallState.allocate(call);
            final MemorySegment init = call.allocate(IbvQpInitAttr.LAYOUT);
            init.set(ADDRESS, IbvQpInitAttr.SEND_CQ, sendCq.segment());
            init.set(ADDRESS, IbvQpInitAttr.RECV_CQ, recvCq.segment());
            init.set(JAVA_INT, IbvQpInitAttr.CAP_MAX_SEND_WR, config.maxSendWr());
            init.set(JAVA_INT, IbvQpInitAttr.CAP_MAX_RECV_WR, config.maxRecvWr());
            init.set(JAVA_INT, IbvQpInitAttr.CAP_MAX_SEND_SGE, config.maxSendSge());
            init.set(JAVA_INT, IbvQpInitAttr.CAP_MAX_RECV_SGE, config.maxRecvSge());
            init.set(JAVA_INT, IbvQpInitAttr.CAP_MAX_INLINE_DATA, config.maxInlineData());
            init.set(JAVA_INT, IbvQpInitAttr.QP_TYPE, IbvConstants.IBV_QPT_RC);
            init.set(JAVA_INT, IbvQpInitAttr.SQ_SIG_ALL, 0);
            final MemorySegment created = LibIbverbsQp.ibvCreateQp(state, pd.segment(), init);
            if (created.address() == 0)
            {
                throw new VerbsException("ibv_create_qp", CallState.errno(state), "RC queue pair on device " +
                    context.deviceName() + " with " + config.maxSendWr() + " send / " + config.maxRecvWr() +
                    " receive work requests, " + config.maxSendSge() + "/" + config.maxRecvSge() +
                    " scatter-gather elements, " + config.maxInlineData() + " bytes inline");
            }
            createdQp = created;
            qp = created.reinterpret(IbvQp.SIZE);
            maxSendWr = init.get(JAVA_INT, IbvQpInitAttr.CAP_MAX_SEND_WR);
            maxRecvWr = init.get(JAVA_INT, IbvQpInitAttr.CAP_MAX_RECV_WR);
            maxInlineData = init.get(JAVA_INT, IbvQpInitAttr.CAP_MAX_INLINE_DATA);
            qpNum = qp.get(JAVA_INT, IbvQp.QP_NUM);
            psn = ThreadLocalRandom.current().nextInt() & 0xffffff;
            postSendFn = InlineVerbs.resolve(qp, IbvContextStruct.OPS_POST_SEND, "ibv_post_send");
            postRecvFn = InlineVerbs.resolve(qp, IbvContextStruct.OPS_POST_RECV, "ibv_post_recv");
            // where post_send/post_recv store the first request they did not post; global scope, so that
            // passing it costs no liveness check (it is freed with the queue pair's arena, after destroy)
            badWr = MemorySegment.ofAddress(arena.allocate(ADDRESS).address()).reinterpret(ADDRESS.byteSize());
        }
        catch (final RuntimeException e)
        {
            if (createdQp.address() != 0)
            {
                try (Arena call = Arena.ofConfined())
                {
                    LibIbverbsQp.ibvDestroyQp(CallState.allocate(call), createdQp);
                }
            }
            arena.close();
            throw e;
        }
        sendCq.added(this);
        recvCq.added(this);
    }

    @Override
    public ProtectionDomain protectionDomain()
    {
        return pd;
    }

    IbvContext ibvContext()
    {
        return context;
    }

    @Override
    public int qpNum()
    {
        return qpNum;
    }

    /** This side's initial packet sequence number (24 bits, random). */
    public int psn()
    {
        return psn;
    }

    /** What {@code ibv_create_qp} granted (at least what was asked for). */
    public int maxSendWr()
    {
        return maxSendWr;
    }

    public int maxRecvWr()
    {
        return maxRecvWr;
    }

    public int maxInlineData()
    {
        return maxInlineData;
    }

    /** The state the device reports now ({@code ibv_query_qp}); a queue pair that hit an error says ERR. */
    @Override
    public QpState state()
    {
        try (Arena call = Arena.ofConfined())
        {
            ensureOpen("ibv_query_qp");
            final MemorySegment state = CallState.allocate(call);
            final MemorySegment attr = call.allocate(IbvQpAttr.LAYOUT);
            final MemorySegment init = call.allocate(IbvQpInitAttr.LAYOUT);
            final int rc = LibIbverbsQp.ibvQueryQp(state, qp, attr, IBV_QP_STATE, init);
            if (rc != 0)
            {
                throw new VerbsException("ibv_query_qp", CallState.errnoOf(rc, state), describe());
            }
            return QpState.of(attr.get(JAVA_INT, IbvQpAttr.QP_STATE));
        }
    }

    /**
     * What {@code ibv_query_qp} reports for the attributes {@link #modifyToRtr}/{@link #modifyToRts} set:
     * the device's view, to check that what was asked for arrived.
     */
    public record Attributes(
        QpState state, int pathMtu, int destQpNum, int timeout, int retryCount, int rnrRetry, int minRnrTimer,
        int maxRdAtomic, int maxDestRdAtomic)
    {
    }

    /** Queries the queue pair's connection attributes ({@code ibv_query_qp}). */
    public Attributes query()
    {
        try (Arena call = Arena.ofConfined())
        {
            ensureOpen("ibv_query_qp");
            final MemorySegment state = CallState.allocate(call);
            final MemorySegment attr = call.allocate(IbvQpAttr.LAYOUT);
            final MemorySegment init = call.allocate(IbvQpInitAttr.LAYOUT);
            final int mask = IBV_QP_STATE | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
                IBV_QP_RNR_RETRY | IBV_QP_MIN_RNR_TIMER | IBV_QP_MAX_QP_RD_ATOMIC | IBV_QP_MAX_DEST_RD_ATOMIC;
            final int rc = LibIbverbsQp.ibvQueryQp(state, qp, attr, mask, init);
            if (rc != 0)
            {
                throw new VerbsException("ibv_query_qp", CallState.errnoOf(rc, state), describe());
            }
            return new Attributes(QpState.of(attr.get(JAVA_INT, IbvQpAttr.QP_STATE)),
                attr.get(JAVA_INT, IbvQpAttr.PATH_MTU), attr.get(JAVA_INT, IbvQpAttr.DEST_QP_NUM),
                attr.get(JAVA_BYTE, IbvQpAttr.TIMEOUT) & 0xff, attr.get(JAVA_BYTE, IbvQpAttr.RETRY_CNT) & 0xff,
                attr.get(JAVA_BYTE, IbvQpAttr.RNR_RETRY) & 0xff, attr.get(JAVA_BYTE, IbvQpAttr.MIN_RNR_TIMER) & 0xff,
                attr.get(JAVA_BYTE, IbvQpAttr.MAX_RD_ATOMIC) & 0xff,
                attr.get(JAVA_BYTE, IbvQpAttr.MAX_DEST_RD_ATOMIC) & 0xff);
        }
    }

    @Override
    public QueuePairEndpoint localEndpoint()
    {
        return new QueuePairEndpoint("ibverbs", qpNum, psn, context.lid(), context.gid(), context.activeMtu(), "", 0);
    }

    @Override
    public void modifyToInit(final ConnectOptions options)
    {
        if ((options.accessFlags() & ~AccessFlags.ALL_REMOTE & ~AccessFlags.LOCAL_WRITE) != 0)
        {
            throw new IllegalArgumentException("unknown access flags 0x" + Integer.toHexString(options.accessFlags()));
        }
        try (Arena call = Arena.ofConfined())
        {
            final MemorySegment attr = call.allocate(IbvQpAttr.LAYOUT);
            modify(call, attr, IbvRcTransitions.INIT_MASK, IbvRcTransitions.init(attr, context, options));
        }
    }

    @Override
    public void modifyToRtr(final QueuePairEndpoint remote, final ConnectOptions options)
    {
        if (!"ibverbs".equals(remote.provider()))
        {
            throw new IllegalArgumentException("an ibverbs queue pair cannot connect to a " + remote.provider() +
                " endpoint: " + remote);
        }
        try (Arena call = Arena.ofConfined())
        {
            final MemorySegment attr = call.allocate(IbvQpAttr.LAYOUT);
            modify(call, attr, IbvRcTransitions.RTR_MASK, IbvRcTransitions.rtr(attr, context, remote, options));
        }
    }

    @Override
    public void modifyToRts(final ConnectOptions options)
    {
        try (Arena call = Arena.ofConfined())
        {
            final MemorySegment attr = call.allocate(IbvQpAttr.LAYOUT);
            modify(call, attr, IbvRcTransitions.RTS_MASK, IbvRcTransitions.rts(attr, context, psn, options));
        }
    }

    /**
     * The {@code retry_cnt} to pass for {@code ConnectOptions.retryCount}: the same, except 6 for 7 on
     * Soft-RoCE. There {@code retry_cnt} 7 means "retry forever" ({@code rxe_comp.c}: {@code if
     * (qp->comp.retry_cnt != 7) qp->comp.retry_cnt--}), which the InfiniBand spec gives only to
     * {@code rnr_retry} 7; a requester whose peer went away would then never complete (measured on
     * Debian 12's 6.1 kernel: no completion in 4 s with 7, {@code RETRY_EXC_ERR} after 0.8 s with 6).
     * One retry fewer than asked keeps the promise that matters: a dead peer fails the requests.
     */
    static int retryCountFor(final IbvContext context, final int asked)
    {
        return IbvRcTransitions.retryCountFor(context, asked);
    }

    @Override
    public void modifyToError()
    {
        try (Arena call = Arena.ofConfined())
        {
            final MemorySegment attr = call.allocate(IbvQpAttr.LAYOUT);
            modify(call, attr, IbvRcTransitions.ERR_MASK, IbvRcTransitions.err(attr));
        }
    }

    /** {@code ibv_modify_qp} with attributes filled elsewhere (rdma_cm's {@code rdma_init_qp_attr}: {@link RdmaCmQpSetup}). */
    void modify(final Arena call, final MemorySegment attr, final int mask, final String what)
    {
        ensureOpen("ibv_modify_qp");
        final MemorySegment state = CallState.allocate(call);
        final int rc = LibIbverbsQp.ibvModifyQp(state, qp, attr, mask);
        if (rc != 0)
        {
            throw new VerbsException("ibv_modify_qp", CallState.errnoOf(rc, state), describe() + " " + what);
        }
    }

    @Override
    public int postSend(final SendWorkRequest wr)
    {
        if (isClosed())
        {
            return Errno.EINVAL;
        }
        if (!MemoryWindowBinds.prepare(wr))
        {
            return Errno.EINVAL;
        }
        final int rc = InlineVerbs.post(postSendFn, qp, wr.segment(), badWr);
        MemoryWindowBinds.posted(wr, rc == 0 ? 0L : badWorkRequestAddress());
        return rc;
    }

    @Override
    public int postReceive(final ReceiveWorkRequest wr)
    {
        if (isClosed())
        {
            return Errno.EINVAL;
        }
        return InlineVerbs.post(postRecvFn, qp, wr.segment(), badWr);
    }

    /**
     * Native address of the first work request of the last failed post that was not posted
     * ({@code *bad_wr}); meaningful right after a post returned non-zero, on the posting thread.
     */
    public long badWorkRequestAddress()
    {
        return badWr.get(ADDRESS, 0).address();
    }

    private String describe()
    {
        return "queue pair " + qpNum + " on " + context.deviceName();
    }

    @Override
    protected String resourceName()
    {
        return describe();
    }

    /**
     * {@code ibv_destroy_qp}, then frees the queue pair's arena; its outstanding work requests are gone
     * with it (no completions).
     */
    @Override
    protected int release()
    {
        final int errno;
        try (Arena call = Arena.ofConfined())
        {
            final MemorySegment state = CallState.allocate(call);
            final int rc = LibIbverbsQp.ibvDestroyQp(state, qp);
            errno = rc == 0 ? 0 : CallState.errnoOf(rc, state);
        }
        arena.close();
        return errno;
    }

    @Override
    public String toString()
    {
        return "IbvQueuePair{qpn " + qpNum + " on " + context.deviceName() + "}";
    }
}
