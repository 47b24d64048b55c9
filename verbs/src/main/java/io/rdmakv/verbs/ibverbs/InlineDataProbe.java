package io.rdmakv.verbs.ibverbs;

import io.rdmakv.verbs.ibverbs.bindings.CallState;
import io.rdmakv.verbs.ibverbs.bindings.IbvConstants;
import io.rdmakv.verbs.ibverbs.bindings.LibIbverbsCq;
import io.rdmakv.verbs.ibverbs.bindings.LibIbverbsPd;
import io.rdmakv.verbs.ibverbs.bindings.LibIbverbsQp;
import io.rdmakv.verbs.ibverbs.layout.IbvQpInitAttr;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/** How much inline data an RC queue pair of a device may carry: asked of the device, since no attribute says. */
final class InlineDataProbe
{
    private InlineDataProbe()
    {
    }

    /**
     * {@code struct ibv_device_attr} has no inline limit: create a throwaway RC queue pair asking for
     * less and less inline data until the device accepts, and read back what it granted.
     */
    static int maxInlineData(final MemorySegment context)
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment state = CallState.allocate(arena);
            final MemorySegment pd = LibIbverbsPd.ibvAllocPd(state, context);
            if (pd.address() == 0)
            {
                return 0;
            }
            final MemorySegment cq = LibIbverbsCq.ibvCreateCq(state, context, 1, MemorySegment.NULL,
                MemorySegment.NULL, 0);
            try
            {
                if (cq.address() == 0)
                {
                    return 0;
                }
                final MemorySegment init = arena.allocate(IbvQpInitAttr.LAYOUT);
                for (final int ask : new int[] {1024, 512, 256, 128, 64, 32, 0})
                {
                    init.fill((byte)0);
                    init.set(ADDRESS, IbvQpInitAttr.SEND_CQ, cq);
                    init.set(ADDRESS, IbvQpInitAttr.RECV_CQ, cq);
                    init.set(JAVA_INT, IbvQpInitAttr.CAP_MAX_SEND_WR, 1);
                    init.set(JAVA_INT, IbvQpInitAttr.CAP_MAX_RECV_WR, 1);
                    init.set(JAVA_INT, IbvQpInitAttr.CAP_MAX_SEND_SGE, 1);
                    init.set(JAVA_INT, IbvQpInitAttr.CAP_MAX_RECV_SGE, 1);
                    init.set(JAVA_INT, IbvQpInitAttr.CAP_MAX_INLINE_DATA, ask);
                    init.set(JAVA_INT, IbvQpInitAttr.QP_TYPE, IbvConstants.IBV_QPT_RC);
                    final MemorySegment qp = LibIbverbsQp.ibvCreateQp(state, pd, init);
                    if (qp.address() != 0)
                    {
                        final int granted = init.get(JAVA_INT, IbvQpInitAttr.CAP_MAX_INLINE_DATA);
                        LibIbverbsQp.ibvDestroyQp(state, qp);
                        return Math.max(granted, ask);
                    }
                }
                return 0;
            }
            finally
            {
                if (cq.address() != 0)
                {
                    LibIbverbsCq.ibvDestroyCq(state, cq);
                }
                LibIbverbsPd.ibvDeallocPd(state, pd);
            }
        }
    }
}
