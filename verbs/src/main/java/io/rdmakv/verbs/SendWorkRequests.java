package io.rdmakv.verbs;

import io.rdmakv.verbs.abi.IbvSendWr;
import io.rdmakv.verbs.abi.IbvSge;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A preallocated off-heap array of {@code struct ibv_send_wr}, each with its own scatter-gather list,
 * laid out exactly as libibverbs expects. Work requests are prepared once and patched per use
 * through the {@link SendWorkRequest} flyweights; posting one costs no allocation.
 *
 * <p>A chain ({@link SendWorkRequest#next(SendWorkRequest)}) must stay inside one array.
 */
public final class SendWorkRequests implements AutoCloseable
{
    private final Arena arena;
    private final MemorySegment requests;
    private final MemorySegment sges;
    private final int maxSge;
    private final SendWorkRequest[] flyweights;

    private SendWorkRequests(final int count, final int maxSge)
    {
        if (count <= 0 || maxSge <= 0)
        {
            throw new IllegalArgumentException("count and maxSge must be positive: " + count + ", " + maxSge);
        }
        this.arena = Arena.ofShared();
        this.maxSge = maxSge;
        this.requests = arena.allocate((long)IbvSendWr.SIZE * count, 64);
        this.sges = arena.allocate((long)IbvSge.SIZE * count * maxSge, 64);
        this.flyweights = new SendWorkRequest[count];
        for (int i = 0; i < count; i++)
        {
            final MemorySegment wr = requests.asSlice((long)i * IbvSendWr.SIZE, IbvSendWr.SIZE);
            final MemorySegment sgl = sges.asSlice((long)i * maxSge * IbvSge.SIZE, (long)maxSge * IbvSge.SIZE);
            wr.set(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, IbvSendWr.SG_LIST_OFFSET, sgl.address());
            flyweights[i] = new SendWorkRequest(this, i, wr, sgl, maxSge);
        }
    }

    public static SendWorkRequests allocate(final int count, final int maxSge)
    {
        return new SendWorkRequests(count, maxSge);
    }

    /** The flyweight over work request {@code index}; the same object on every call. */
    public SendWorkRequest at(final int index)
    {
        return flyweights[index];
    }

    public int count()
    {
        return flyweights.length;
    }

    public int maxSge()
    {
        return maxSge;
    }

    /** The whole array of {@code ibv_send_wr}. */
    public MemorySegment requestsSegment()
    {
        return requests;
    }

    /**
     * The flyweight whose struct starts at native address {@code address}, or null when the address
     * is not one of this array's work requests. Providers use it to follow a chain's {@code next}.
     */
    public SendWorkRequest byAddress(final long address)
    {
        final long offset = address - requests.address();
        if (offset < 0 || offset % IbvSendWr.SIZE != 0 || offset / IbvSendWr.SIZE >= flyweights.length)
        {
            return null;
        }
        return flyweights[(int)(offset / IbvSendWr.SIZE)];
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
