package io.rdmakv.verbs.ibverbs;

import io.rdmakv.verbs.AccessFlags;
import io.rdmakv.verbs.Context;
import io.rdmakv.verbs.ibverbs.bindings.CallState;
import io.rdmakv.verbs.ibverbs.bindings.LibIbverbsPd;
import io.rdmakv.verbs.resource.Errno;
import io.rdmakv.verbs.MemoryRegion;
import io.rdmakv.verbs.MemoryWindow;
import io.rdmakv.verbs.ProtectionDomain;
import io.rdmakv.verbs.QueuePair;
import io.rdmakv.verbs.QueuePairConfig;
import io.rdmakv.verbs.resource.VerbsException;
import io.rdmakv.verbs.resource.VerbsResource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/** A protection domain ({@code struct ibv_pd *}): the memory regions and queue pairs allocated in it. */
public final class IbvProtectionDomain extends VerbsResource implements ProtectionDomain
{
    private final IbvContext context;
    private final MemorySegment pd;

    IbvProtectionDomain(final IbvContext context)
    {
        super("ibv_dealloc_pd", context);
        this.context = context;
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment state = CallState.allocate(arena);
            final MemorySegment pd = LibIbverbsPd.ibvAllocPd(state, context.segment());
            if (pd.address() == 0)
            {
                throw new VerbsException("ibv_alloc_pd", CallState.errno(state), "device " + context.deviceName());
            }
            this.pd = pd;
        }
    }

    MemorySegment segment()
    {
        return pd;
    }

    IbvContext ibvContext()
    {
        return context;
    }

    @Override
    public Context context()
    {
        return context;
    }

    /**
     * Registers {@code segment} with {@code ibv_reg_mr_iova2} (iova = its address, what {@code ibv_reg_mr}
     * does). {@code IBV_ACCESS_LOCAL_WRITE} is always added: ibverbs requires it for any remote write or
     * atomic access and for memory that RDMA READs, atomics or RECVs land in, and it grants peers nothing.
     * A failure that the locked-memory limit may explain says so, with the limit and how to raise it.
     */
    @Override
    public MemoryRegion registerMemory(final MemorySegment segment, final int access)
    {
        if (!segment.isNative() || segment.byteSize() == 0)
        {
            throw new IllegalArgumentException("only a non-empty native (off-heap) segment can be registered: " + segment);
        }
        if ((access & ~(AccessFlags.LOCAL_WRITE | AccessFlags.ALL_REMOTE | AccessFlags.MW_BIND)) != 0)
        {
            throw new IllegalArgumentException("unknown access flags 0x" + Integer.toHexString(access));
        }
        synchronized (this)
        {
            ensureOpen("ibv_reg_mr");
            try (Arena arena = Arena.ofConfined())
            {
                final MemorySegment state = CallState.allocate(arena);
                final MemorySegment mr = LibIbverbsPd.ibvRegMrIova2(state, pd, segment, segment.byteSize(),
                    segment.address(), access | AccessFlags.LOCAL_WRITE);
                if (mr.address() == 0)
                {
                    final int errno = CallState.errno(state);
                    throw new VerbsException("ibv_reg_mr", errno, "registering " + segment.byteSize() +
                        " bytes at 0x" + Long.toHexString(segment.address()) + " with " + AccessFlags.describe(access) +
                        " on device " + context.deviceName() + MemlockLimit.advice(errno, segment.byteSize()));
                }
                return adopt(new IbvMemoryRegion(this, mr, segment, access));
            }
        }
    }

    @Override
    public QueuePair createQueuePair(final QueuePairConfig config)
    {
        if (!(config.sendCq() instanceof IbvCompletionQueue sendCq) ||
            !(config.recvCq() instanceof IbvCompletionQueue recvCq) ||
            sendCq.context() != context || recvCq.context() != context)
        {
            throw new IllegalArgumentException(
                "the completion queues of an ibverbs queue pair must come from the same device: " + config);
        }
        if (sendCq.isClosed() || recvCq.isClosed())
        {
            throw new VerbsException("ibv_create_qp", Errno.EINVAL, "a completion queue of the queue pair is closed");
        }
        synchronized (this)
        {
            ensureOpen("ibv_create_qp");
            return adopt(new IbvQueuePair(this, config, sendCq, recvCq));
        }
    }

    /**
     * {@code ibv_alloc_mw(pd, IBV_MW_TYPE_2)}: {@code EOPNOTSUPP} where the provider has no windows (its
     * {@code ops.alloc_mw} is NULL or refuses type 2).
     */
    @Override
    public synchronized MemoryWindow allocMemoryWindow()
    {
        ensureOpen("ibv_alloc_mw");
        return adopt(new IbvMemoryWindow(this));
    }

    @Override
    protected String resourceName()
    {
        return "protection domain of " + context.deviceName();
    }

    @Override
    protected String openChildrenMessage()
    {
        return "protection domain of " + context.deviceName() + " still has " +
            openChildren(IbvMemoryRegion.class) + " memory region(s), " + openChildren(IbvMemoryWindow.class) +
            " memory window(s) and " + openChildren(IbvQueuePair.class) + " queue pair(s) open; close them first";
    }

    /** {@code ibv_dealloc_pd}. */
    @Override
    protected int release()
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment state = CallState.allocate(arena);
            final int rc = LibIbverbsPd.ibvDeallocPd(state, pd);
            return rc == 0 ? 0 : CallState.errnoOf(rc, state);
        }
    }
}
