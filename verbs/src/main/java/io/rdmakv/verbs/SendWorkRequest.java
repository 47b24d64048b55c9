package io.rdmakv.verbs;

import io.rdmakv.verbs.abi.IbvSendWr;
import io.rdmakv.verbs.abi.IbvSge;

import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;

/**
 * Flyweight over one {@code struct ibv_send_wr} and its scatter-gather list. Accessors are named
 * after the C members; setters return {@code this}. The convenience methods ({@link #rdmaRead},
 * {@link #compareAndSwap}, ...) set the opcode, one scatter-gather element and the remote fields in
 * one call, and leave {@code wr_id}, {@code send_flags} and {@code next} as they were.
 */
public final class SendWorkRequest
{
    private final SendWorkRequests owner;
    private final int index;
    private final MemorySegment wr;
    private final MemorySegment sgl;
    private final int maxSge;
    /** The window and region of the last {@link #bindMemoryWindow}: what providers resolve to their own objects. */
    private MemoryWindow bindWindow;
    private MemoryRegion bindRegion;

    SendWorkRequest(
        final SendWorkRequests owner, final int index, final MemorySegment wr, final MemorySegment sgl, final int maxSge)
    {
        this.owner = owner;
        this.index = index;
        this.wr = wr;
        this.sgl = sgl;
        this.maxSge = maxSge;
    }

    public SendWorkRequests owner()
    {
        return owner;
    }

    public int index()
    {
        return index;
    }

    /** Native address of the {@code ibv_send_wr}. */
    public long address()
    {
        return wr.address();
    }

    public MemorySegment segment()
    {
        return wr;
    }

    public long wrId()
    {
        return wr.get(JAVA_LONG_UNALIGNED, IbvSendWr.WR_ID_OFFSET);
    }

    public SendWorkRequest wrId(final long wrId)
    {
        wr.set(JAVA_LONG_UNALIGNED, IbvSendWr.WR_ID_OFFSET, wrId);
        return this;
    }

    public int opcode()
    {
        return wr.get(JAVA_INT_UNALIGNED, IbvSendWr.OPCODE_OFFSET);
    }

    public SendWorkRequest opcode(final int opcode)
    {
        wr.set(JAVA_INT_UNALIGNED, IbvSendWr.OPCODE_OFFSET, opcode);
        return this;
    }

    public int sendFlags()
    {
        return wr.get(JAVA_INT_UNALIGNED, IbvSendWr.SEND_FLAGS_OFFSET);
    }

    public SendWorkRequest sendFlags(final int flags)
    {
        wr.set(JAVA_INT_UNALIGNED, IbvSendWr.SEND_FLAGS_OFFSET, flags);
        return this;
    }

    public int numSge()
    {
        return wr.get(JAVA_INT_UNALIGNED, IbvSendWr.NUM_SGE_OFFSET);
    }

    public SendWorkRequest numSge(final int numSge)
    {
        if (numSge < 0 || numSge > maxSge)
        {
            throw new IllegalArgumentException("numSge " + numSge + " outside 0.." + maxSge);
        }
        wr.set(JAVA_INT_UNALIGNED, IbvSendWr.NUM_SGE_OFFSET, numSge);
        return this;
    }

    /** Sets scatter-gather element {@code i} (does not change {@code num_sge}). */
    public SendWorkRequest sge(final int i, final long addr, final int length, final int lkey)
    {
        final long base = (long)i * IbvSge.SIZE;
        sgl.set(JAVA_LONG_UNALIGNED, base + IbvSge.ADDR_OFFSET, addr);
        sgl.set(JAVA_INT_UNALIGNED, base + IbvSge.LENGTH_OFFSET, length);
        sgl.set(JAVA_INT_UNALIGNED, base + IbvSge.LKEY_OFFSET, lkey);
        return this;
    }

    public long sgeAddr(final int i)
    {
        return sgl.get(JAVA_LONG_UNALIGNED, (long)i * IbvSge.SIZE + IbvSge.ADDR_OFFSET);
    }

    public int sgeLength(final int i)
    {
        return sgl.get(JAVA_INT_UNALIGNED, (long)i * IbvSge.SIZE + IbvSge.LENGTH_OFFSET);
    }

    public int sgeLkey(final int i)
    {
        return sgl.get(JAVA_INT_UNALIGNED, (long)i * IbvSge.SIZE + IbvSge.LKEY_OFFSET);
    }

    public long rdmaRemoteAddr()
    {
        return wr.get(JAVA_LONG_UNALIGNED, IbvSendWr.RDMA_REMOTE_ADDR_OFFSET);
    }

    public int rdmaRkey()
    {
        return wr.get(JAVA_INT_UNALIGNED, IbvSendWr.RDMA_RKEY_OFFSET);
    }

    public SendWorkRequest rdma(final long remoteAddr, final int rkey)
    {
        wr.set(JAVA_LONG_UNALIGNED, IbvSendWr.RDMA_REMOTE_ADDR_OFFSET, remoteAddr);
        wr.set(JAVA_INT_UNALIGNED, IbvSendWr.RDMA_RKEY_OFFSET, rkey);
        return this;
    }

    public long atomicRemoteAddr()
    {
        return wr.get(JAVA_LONG_UNALIGNED, IbvSendWr.ATOMIC_REMOTE_ADDR_OFFSET);
    }

    public long atomicCompareAdd()
    {
        return wr.get(JAVA_LONG_UNALIGNED, IbvSendWr.ATOMIC_COMPARE_ADD_OFFSET);
    }

    public long atomicSwap()
    {
        return wr.get(JAVA_LONG_UNALIGNED, IbvSendWr.ATOMIC_SWAP_OFFSET);
    }

    public int atomicRkey()
    {
        return wr.get(JAVA_INT_UNALIGNED, IbvSendWr.ATOMIC_RKEY_OFFSET);
    }

    public SendWorkRequest atomic(final long remoteAddr, final int rkey, final long compareAdd, final long swap)
    {
        wr.set(JAVA_LONG_UNALIGNED, IbvSendWr.ATOMIC_REMOTE_ADDR_OFFSET, remoteAddr);
        wr.set(JAVA_LONG_UNALIGNED, IbvSendWr.ATOMIC_COMPARE_ADD_OFFSET, compareAdd);
        wr.set(JAVA_LONG_UNALIGNED, IbvSendWr.ATOMIC_SWAP_OFFSET, swap);
        wr.set(JAVA_INT_UNALIGNED, IbvSendWr.ATOMIC_RKEY_OFFSET, rkey);
        return this;
    }

    /** Native address of the next work request in the chain, 0 when this one ends it. */
    public long nextAddress()
    {
        return wr.get(JAVA_LONG_UNALIGNED, IbvSendWr.NEXT_OFFSET);
    }

    /** Links {@code next} after this request (a chain posted with one call), or ends the chain when null. */
    public SendWorkRequest next(final SendWorkRequest next)
    {
        if (next != null && next.owner != owner)
        {
            throw new IllegalArgumentException("a chain must stay inside one SendWorkRequests array");
        }
        wr.set(JAVA_LONG_UNALIGNED, IbvSendWr.NEXT_OFFSET, next == null ? 0L : next.address());
        return this;
    }

    /** RDMA READ of {@code length} bytes at {@code remoteAddr} into local memory. */
    public SendWorkRequest rdmaRead(
        final long localAddr, final int length, final int lkey, final long remoteAddr, final int rkey)
    {
        return opcode(Opcode.RDMA_READ).numSge(1).sge(0, localAddr, length, lkey).rdma(remoteAddr, rkey);
    }

    /** RDMA WRITE of {@code length} local bytes to {@code remoteAddr}. */
    public SendWorkRequest rdmaWrite(
        final long localAddr, final int length, final int lkey, final long remoteAddr, final int rkey)
    {
        return opcode(Opcode.RDMA_WRITE).numSge(1).sge(0, localAddr, length, lkey).rdma(remoteAddr, rkey);
    }

    /** SEND of {@code length} local bytes to the receive queue of the peer. */
    public SendWorkRequest send(final long localAddr, final int length, final int lkey)
    {
        return opcode(Opcode.SEND).numSge(1).sge(0, localAddr, length, lkey);
    }

    /** 8-byte compare-and-swap at {@code remoteAddr}; the original value lands at {@code localAddr}. */
    public SendWorkRequest compareAndSwap(
        final long localAddr, final int lkey, final long remoteAddr, final int rkey, final long compare, final long swap)
    {
        return opcode(Opcode.ATOMIC_CMP_AND_SWP).numSge(1).sge(0, localAddr, 8, lkey)
            .atomic(remoteAddr, rkey, compare, swap);
    }

    /** 8-byte fetch-and-add at {@code remoteAddr}; the original value lands at {@code localAddr}. */
    public SendWorkRequest fetchAndAdd(
        final long localAddr, final int lkey, final long remoteAddr, final int rkey, final long add)
    {
        return opcode(Opcode.ATOMIC_FETCH_AND_ADD).numSge(1).sge(0, localAddr, 8, lkey)
            .atomic(remoteAddr, rkey, add, 0L);
    }

    /**
     * BIND_MW: binds type-2 window {@code mw} to the queue pair this request is posted on, granting that
     * queue pair's peer {@code access} ({@link AccessFlags#REMOTE_WRITE}, {@link AccessFlags#REMOTE_READ},
     * {@link AccessFlags#REMOTE_ATOMIC}) over {@code [addr, addr + length)} of {@code mr} under
     * {@code newRkey}. No scatter-gather list. The window must be unbound, of the queue pair's protection
     * domain, {@code mr} registered with {@link AccessFlags#MW_BIND} (and LOCAL_WRITE for a writable
     * window), the range non-empty and inside {@code mr}; otherwise the request completes with
     * {@link WcStatus#MW_BIND_ERR} and the queue pair enters ERR. {@code newRkey} must keep the window's
     * index (its high 24 bits) and change the tag: {@link MemoryWindow#nextRkey nextRkey(mw.rkey())}.
     * Once posted, {@link MemoryWindow#rkey()} returns {@code newRkey}.
     */
    public SendWorkRequest bindMemoryWindow(
        final MemoryWindow mw, final int newRkey, final MemoryRegion mr, final long addr, final long length,
        final int access)
    {
        if (mw == null || mr == null)
        {
            throw new IllegalArgumentException("a bind needs a window and a memory region");
        }
        bindWindow = mw;
        bindRegion = mr;
        opcode(Opcode.BIND_MW).numSge(0);
        // imm_data shares its bytes with invalidate_rkey: a LOCAL_INV posted from this request before
        // leaves it set, and rxe's ibv_post_send refuses a bind with imm_data set (EINVAL)
        wr.set(JAVA_INT_UNALIGNED, IbvSendWr.IMM_DATA_OFFSET, 0);
        wr.set(JAVA_LONG_UNALIGNED, IbvSendWr.BIND_MW_MW_OFFSET, 0L);
        wr.set(JAVA_INT_UNALIGNED, IbvSendWr.BIND_MW_RKEY_OFFSET, newRkey);
        wr.set(JAVA_LONG_UNALIGNED, IbvSendWr.BIND_MW_MR_OFFSET, 0L);
        wr.set(JAVA_LONG_UNALIGNED, IbvSendWr.BIND_MW_ADDR_OFFSET, addr);
        wr.set(JAVA_LONG_UNALIGNED, IbvSendWr.BIND_MW_LENGTH_OFFSET, length);
        wr.set(JAVA_INT_UNALIGNED, IbvSendWr.BIND_MW_ACCESS_OFFSET, access);
        return this;
    }

    /** LOCAL_INV: invalidates the memory window whose current rkey is {@code rkey}; it grants nothing after. */
    public SendWorkRequest localInvalidate(final int rkey)
    {
        opcode(Opcode.LOCAL_INV).numSge(0);
        wr.set(JAVA_INT_UNALIGNED, IbvSendWr.INVALIDATE_RKEY_OFFSET, rkey);
        return this;
    }

    /** The window of the last {@link #bindMemoryWindow} (providers resolve it), or null. */
    public MemoryWindow bindWindow()
    {
        return bindWindow;
    }

    /** The memory region of the last {@link #bindMemoryWindow}, or null. */
    public MemoryRegion bindRegion()
    {
        return bindRegion;
    }

    public int bindRkey()
    {
        return wr.get(JAVA_INT_UNALIGNED, IbvSendWr.BIND_MW_RKEY_OFFSET);
    }

    public long bindAddr()
    {
        return wr.get(JAVA_LONG_UNALIGNED, IbvSendWr.BIND_MW_ADDR_OFFSET);
    }

    public long bindLength()
    {
        return wr.get(JAVA_LONG_UNALIGNED, IbvSendWr.BIND_MW_LENGTH_OFFSET);
    }

    public int bindAccess()
    {
        return wr.get(JAVA_INT_UNALIGNED, IbvSendWr.BIND_MW_ACCESS_OFFSET);
    }

    public int invalidateRkey()
    {
        return wr.get(JAVA_INT_UNALIGNED, IbvSendWr.INVALIDATE_RKEY_OFFSET);
    }
}
