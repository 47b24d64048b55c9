package io.rdmakv.verbs.ibverbs.bindings;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import static io.rdmakv.verbs.ibverbs.bindings.IbverbsLibrary.downcall;
import static io.rdmakv.verbs.ibverbs.bindings.IbverbsLibrary.rethrow;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The protection-domain and memory-registration verbs of {@code libibverbs.so.1}: {@code ibv_alloc_pd},
 * {@code ibv_dealloc_pd}, {@code ibv_reg_mr_iova2} (what the {@code ibv_reg_mr} macro calls) and
 * {@code ibv_dereg_mr}, bound once, wrapped as {@link LibIbverbs} wraps the device verbs.
 */
public final class LibIbverbsPd
{
    private static final MethodHandle ALLOC_PD = downcall("ibv_alloc_pd", true,
        FunctionDescriptor.of(ADDRESS, ADDRESS));
    private static final MethodHandle DEALLOC_PD = downcall("ibv_dealloc_pd", true,
        FunctionDescriptor.of(JAVA_INT, ADDRESS));
    private static final MethodHandle REG_MR_IOVA2 = downcall("ibv_reg_mr_iova2", true,
        FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, JAVA_LONG, JAVA_INT));
    private static final MethodHandle DEREG_MR = downcall("ibv_dereg_mr", true,
        FunctionDescriptor.of(JAVA_INT, ADDRESS));

    private LibIbverbsPd()
    {
    }

    public static MemorySegment ibvAllocPd(final MemorySegment state, final MemorySegment context)
    {
        try
        {
            return (MemorySegment)ALLOC_PD.invokeExact(state, context);
        }
        catch (final Throwable t)
        {
            throw rethrow(t);
        }
    }

    public static int ibvDeallocPd(final MemorySegment state, final MemorySegment pd)
    {
        try
        {
            return (int)DEALLOC_PD.invokeExact(state, pd);
        }
        catch (final Throwable t)
        {
            throw rethrow(t);
        }
    }

    public static MemorySegment ibvRegMrIova2(
        final MemorySegment state, final MemorySegment pd, final MemorySegment addr, final long length,
        final long iova, final int access)
    {
        try
        {
            return (MemorySegment)REG_MR_IOVA2.invokeExact(state, pd, addr, length, iova, access);
        }
        catch (final Throwable t)
        {
            throw rethrow(t);
        }
    }

    public static int ibvDeregMr(final MemorySegment state, final MemorySegment mr)
    {
        try
        {
            return (int)DEREG_MR.invokeExact(state, mr);
        }
        catch (final Throwable t)
        {
            throw rethrow(t);
        }
    }
}
