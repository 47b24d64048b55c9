package io.rdmakv.verbs;

import io.rdmakv.verbs.abi.IbvRecvWr;
import io.rdmakv.verbs.abi.IbvSge;

import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;

/** Flyweight over one {@code struct ibv_recv_wr} and its scatter-gather list. */
public final class ReceiveWorkRequest
{
    private final ReceiveWorkRequests owner;
    private final int index;
    private final MemorySegment wr;
    private final MemorySegment sgl;
    private final int maxSge;

    ReceiveWorkRequest(
        final ReceiveWorkRequests owner, final int index, final MemorySegment wr, final MemorySegment sgl,
        final int maxSge)
    {
        this.owner = owner;
        this.index = index;
        this.wr = wr;
        this.sgl = sgl;
        this.maxSge = maxSge;
    }

    public ReceiveWorkRequests owner()
    {
        return owner;
    }

    public int index()
    {
        return index;
    }

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
        return wr.get(JAVA_LONG_UNALIGNED, IbvRecvWr.WR_ID_OFFSET);
    }

    public ReceiveWorkRequest wrId(final long wrId)
    {
        wr.set(JAVA_LONG_UNALIGNED, IbvRecvWr.WR_ID_OFFSET, wrId);
        return this;
    }

    public int numSge()
    {
        return wr.get(JAVA_INT_UNALIGNED, IbvRecvWr.NUM_SGE_OFFSET);
    }

    public ReceiveWorkRequest numSge(final int numSge)
    {
        if (numSge < 0 || numSge > maxSge)
        {
            throw new IllegalArgumentException("numSge " + numSge + " outside 0.." + maxSge);
        }
        wr.set(JAVA_INT_UNALIGNED, IbvRecvWr.NUM_SGE_OFFSET, numSge);
        return this;
    }

    public ReceiveWorkRequest sge(final int i, final long addr, final int length, final int lkey)
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

    public long nextAddress()
    {
        return wr.get(JAVA_LONG_UNALIGNED, IbvRecvWr.NEXT_OFFSET);
    }

    public ReceiveWorkRequest next(final ReceiveWorkRequest next)
    {
        if (next != null && next.owner != owner)
        {
            throw new IllegalArgumentException("a chain must stay inside one ReceiveWorkRequests array");
        }
        wr.set(JAVA_LONG_UNALIGNED, IbvRecvWr.NEXT_OFFSET, next == null ? 0L : next.address());
        return this;
    }

    /** One buffer of {@code length} bytes at {@code addr}. */
    public ReceiveWorkRequest buffer(final long addr, final int length, final int lkey)
    {
        return numSge(1).sge(0, addr, length, lkey);
    }
}
