package io.rdmakv.verbs.ibverbs.bindings;

import io.rdmakv.verbs.ibverbs.layout.IbvContextStruct;
import io.rdmakv.verbs.resource.Errno;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import static io.rdmakv.verbs.ibverbs.bindings.IbverbsLibrary.rethrow;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * The memory-window verbs. {@code ibv_alloc_mw} and {@code ibv_dealloc_mw} are {@code static inline} in
 * {@code verbs.h}: calls through {@code struct ibv_context.ops.alloc_mw} / {@code .dealloc_mw} of the
 * protection domain's context, which is what these do (address-less downcall handles, errno captured:
 * this is the control path). Binding and invalidating are work requests ({@code IBV_WR_BIND_MW},
 * {@code IBV_WR_LOCAL_INV}) posted with {@code ibv_post_send}.
 */
public final class LibIbverbsMw
{
    private static final Linker LINKER = Linker.nativeLinker();

    /** {@code struct ibv_mw *(*alloc_mw)(struct ibv_pd *pd, enum ibv_mw_type type)}. */
    private static final MethodHandle ALLOC_MW = LINKER.downcallHandle(
        FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_INT), CallState.CAPTURE_ERRNO);

    /** {@code int (*dealloc_mw)(struct ibv_mw *mw)}. */
    private static final MethodHandle DEALLOC_MW = LINKER.downcallHandle(
        FunctionDescriptor.of(JAVA_INT, ADDRESS), CallState.CAPTURE_ERRNO);

    private LibIbverbsMw()
    {
    }

    /**
     * {@code ibv_alloc_mw(pd, type)}: NULL with {@code errno} in {@code state} on failure, and NULL with
     * {@code EOPNOTSUPP} when the provider has no {@code alloc_mw}, as the inline verb does.
     */
    public static MemorySegment ibvAllocMw(
        final MemorySegment state, final MemorySegment context, final MemorySegment pd, final int type)
    {
        final MemorySegment fn = context.get(ADDRESS, IbvContextStruct.OPS_ALLOC_MW);
        if (fn.address() == 0)
        {
            state.set(JAVA_INT, 0, Errno.EOPNOTSUPP);
            return MemorySegment.NULL;
        }
        try
        {
            return (MemorySegment)ALLOC_MW.invokeExact(fn, state, pd, type);
        }
        catch (final Throwable t)
        {
            throw rethrow(t);
        }
    }

    /** {@code ibv_dealloc_mw(mw)}: 0 or an errno value (positive, negative or -1 with errno, as providers do). */
    public static int ibvDeallocMw(final MemorySegment state, final MemorySegment context, final MemorySegment mw)
    {
        final MemorySegment fn = context.get(ADDRESS, IbvContextStruct.OPS_DEALLOC_MW);
        if (fn.address() == 0)
        {
            return Errno.EOPNOTSUPP;
        }
        try
        {
            return (int)DEALLOC_MW.invokeExact(fn, state, mw);
        }
        catch (final Throwable t)
        {
            throw rethrow(t);
        }
    }
}
