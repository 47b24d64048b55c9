package io.rdmakv.server.space;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/** {@link IndexAtomics} as CPU compare-and-swap: right for {@code GLOB} devices and the {@code tcp} provider. */
public final class CpuIndexAtomics implements IndexAtomics
{
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    private final MemorySegment region;

    public CpuIndexAtomics(final MemorySegment region)
    {
        this.region = region;
    }

    @Override
    public long compareAndSwap(final long regionOffset, final long expected, final long swap)
    {
        return (long)LONG.compareAndExchange(region, regionOffset, expected, swap);
    }

    @Override
    public long get(final long regionOffset)
    {
        return (long)LONG.getAcquire(region, regionOffset);
    }

    @Override
    public void close()
    {
        // nothing held
    }
}
