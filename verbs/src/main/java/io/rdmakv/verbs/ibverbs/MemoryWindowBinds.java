package io.rdmakv.verbs.ibverbs;

import io.rdmakv.verbs.Opcode;
import io.rdmakv.verbs.SendWorkRequest;
import io.rdmakv.verbs.abi.IbvSendWr;

import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.ADDRESS;

/**
 * What {@link IbvQueuePair#postSend} does around {@code ibv_post_send} for the BIND_MW requests of a
 * chain: before, it writes the native {@code struct ibv_mw *} and {@code struct ibv_mr *} that
 * {@link SendWorkRequest#bindMemoryWindow} named as Java objects into {@code bind_mw}; after, it records
 * each posted bind's new rkey in its window ({@link IbvMemoryWindow#posted}). A chain without binds costs
 * one opcode read per request, no allocation.
 */
final class MemoryWindowBinds
{
    private MemoryWindowBinds()
    {
    }

    /** Fills the native pointers of the chain's binds; false when a bind names no open ibverbs window/region. */
    static boolean prepare(final SendWorkRequest first)
    {
        for (SendWorkRequest wr = first; wr != null; wr = next(wr))
        {
            if (wr.opcode() != Opcode.BIND_MW)
            {
                continue;
            }
            if (!(wr.bindWindow() instanceof IbvMemoryWindow mw) || mw.isClosed() ||
                !(wr.bindRegion() instanceof IbvMemoryRegion mr) || mr.isClosed())
            {
                return false;
            }
            final MemorySegment s = wr.segment();
            s.set(ADDRESS, IbvSendWr.BIND_MW_MW_OFFSET, mw.segment());
            s.set(ADDRESS, IbvSendWr.BIND_MW_MR_OFFSET, mr.nativeRegion());
        }
        return true;
    }

    /** Records the new rkeys of the binds posted: all of the chain, or those before {@code badAddress} when not 0. */
    static void posted(final SendWorkRequest first, final long badAddress)
    {
        for (SendWorkRequest wr = first; wr != null && wr.address() != badAddress; wr = next(wr))
        {
            if (wr.opcode() == Opcode.BIND_MW && wr.bindWindow() instanceof IbvMemoryWindow mw)
            {
                mw.posted(wr.bindRkey());
            }
        }
    }

    private static SendWorkRequest next(final SendWorkRequest wr)
    {
        final long next = wr.nextAddress();
        return next == 0 ? null : wr.owner().byAddress(next);
    }
}
