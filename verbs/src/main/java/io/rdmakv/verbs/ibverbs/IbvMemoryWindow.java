package io.rdmakv.verbs.ibverbs;

import io.rdmakv.verbs.MemoryWindow;
import io.rdmakv.verbs.ProtectionDomain;
import io.rdmakv.verbs.ibverbs.bindings.CallState;
import io.rdmakv.verbs.ibverbs.bindings.IbvConstants;
import io.rdmakv.verbs.ibverbs.bindings.LibIbverbsMw;
import io.rdmakv.verbs.ibverbs.layout.IbvContextStruct;
import io.rdmakv.verbs.ibverbs.layout.IbvMw;
import io.rdmakv.verbs.resource.VerbsException;
import io.rdmakv.verbs.resource.VerbsResource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * A type-2 memory window ({@code struct ibv_mw *} from {@code ibv_alloc_mw(pd, IBV_MW_TYPE_2)}).
 *
 * <p>{@link #rkey()} is {@code ibv_mw.rkey}. Providers read that field as the window's current rkey
 * when a bind is posted (rxe passes it to the kernel, which refuses a bind whose current rkey is not the
 * window's), so {@link IbvQueuePair#postSend} stores each posted bind's new rkey there, as libibverbs'
 * own type-1 {@code ibv_bind_mw} does.
 */
public final class IbvMemoryWindow extends VerbsResource implements MemoryWindow
{
    private final IbvProtectionDomain pd;
    private final MemorySegment mw;
    /** A copy of {@code ibv_mw.rkey}, readable after the window is freed. */
    private volatile int rkey;

    IbvMemoryWindow(final IbvProtectionDomain pd)
    {
        super("ibv_dealloc_mw", pd);
        this.pd = pd;
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment state = CallState.allocate(arena);
            final MemorySegment created = LibIbverbsMw.ibvAllocMw(
                state, pd.ibvContext().segment().reinterpret(IbvContextStruct.SIZE), pd.segment(),
                IbvConstants.IBV_MW_TYPE_2);
            if (created.address() == 0)
            {
                throw new VerbsException("ibv_alloc_mw", CallState.errno(state),
                    "type-2 memory window on device " + pd.ibvContext().deviceName());
            }
            this.mw = created.reinterpret(IbvMw.SIZE);
            this.rkey = mw.get(JAVA_INT, IbvMw.RKEY);
        }
    }

    /** The native {@code struct ibv_mw *}: what a BIND_MW work request names. */
    MemorySegment segment()
    {
        return mw;
    }

    /** Records the rkey of a bind just posted (see the class comment). Called by the posting thread. */
    void posted(final int newRkey)
    {
        mw.set(JAVA_INT, IbvMw.RKEY, newRkey);
        rkey = newRkey;
    }

    @Override
    public ProtectionDomain protectionDomain()
    {
        return pd;
    }

    @Override
    public int rkey()
    {
        return rkey;
    }

    @Override
    protected String resourceName()
    {
        return "memory window (rkey 0x" + Integer.toHexString(rkey()) + ") on " + pd.ibvContext().deviceName();
    }

    /** {@code ibv_dealloc_mw}; allowed while bound (the grant ends). */
    @Override
    protected int release()
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment state = CallState.allocate(arena);
            final int rc = LibIbverbsMw.ibvDeallocMw(state, pd.ibvContext().segment().reinterpret(IbvContextStruct.SIZE), mw);
            return rc == 0 ? 0 : CallState.errnoOf(rc, state);
        }
    }

    @Override
    public String toString()
    {
        return "IbvMemoryWindow{rkey 0x" + Integer.toHexString(rkey()) + "}";
    }
}
