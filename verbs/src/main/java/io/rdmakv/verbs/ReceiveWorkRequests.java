package io.rdmakv.verbs;

import io.rdmakv.verbs.abi.IbvRecvWr;
import io.rdmakv.verbs.abi.IbvSge;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A preallocated off-heap array of {@code struct ibv_recv_wr}, each with its own scatter-gather list.
 * The receive-side twin of {@link SendWorkRequests}.
 */
public final class ReceiveWorkRequests implements AutoCloseable
{
    private final Arena arena;
    private final MemorySegment requests;
    private final ReceiveWorkRequest[] flyweights;

    private ReceiveWorkRequests(final int count, final int maxSge)
    {
        if (count <= 0 || maxSge <= 0)
        {
            throw new IllegalArgumentException("count and maxSge must be positive: " + count + ", " + maxSge);
        }
        this.arena = Arena.ofShared();
        this.requests = arena.allocate((long)IbvRecvWr.SIZE * count, 64);
        final MemorySegment sges = arena.allocate((long)IbvSge.SIZE * count * maxSge, 64);
        this.flyweights = new ReceiveWorkRequest[count];
        for (int i = 0; i < count; i++)
        {
            final MemorySegment wr = requests.asSlice((long)i * IbvRecvWr.SIZE, IbvRecvWr.SIZE);
            final MemorySegment sgl = sges.asSlice((long)i * maxSge * IbvSge.SIZE, (long)maxSge * IbvSge.SIZE);
            wr.set(ValueLayout.JAVA_LONG_UNALIGNED, IbvRecvWr.SG_LIST_OFFSET, sgl.address());
            flyweights[i] = new ReceiveWorkRequest(this, i, wr, sgl, maxSge);
        }
    }

    public static ReceiveWorkRequests allocate(final int count, final int maxSge)
    {
        return new ReceiveWorkRequests(count, maxSge);
    }

    public ReceiveWorkRequest at(final int index)
    {
        return flyweights[index];
    }

    public int count()
    {
        return flyweights.length;
    }

    /** The flyweight whose struct starts at {@code address}, or null when it is not one of this array's. */
    public ReceiveWorkRequest byAddress(final long address)
    {
        final long offset = address - requests.address();
        if (offset < 0 || offset % IbvRecvWr.SIZE != 0 || offset / IbvRecvWr.SIZE >= flyweights.length)
        {
            return null;
        }
        return flyweights[(int)(offset / IbvRecvWr.SIZE)];
    }

    @Override
    public void close()
    {
        if (arena.scope().isAlive())
        {
            arena.close();
        }
    }
}
