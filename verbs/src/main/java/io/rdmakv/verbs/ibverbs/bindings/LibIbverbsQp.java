package io.rdmakv.verbs.ibverbs.bindings;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import static io.rdmakv.verbs.ibverbs.bindings.IbverbsLibrary.downcall;
import static io.rdmakv.verbs.ibverbs.bindings.IbverbsLibrary.rethrow;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * The queue-pair verbs of {@code libibverbs.so.1}: {@code ibv_create_qp}, {@code ibv_modify_qp},
 * {@code ibv_query_qp} and {@code ibv_destroy_qp}, bound once, wrapped as {@link LibIbverbs} wraps the
 * device verbs. Posting is static inline in {@code verbs.h}: see {@link InlineVerbs}.
 */
public final class LibIbverbsQp
{
    private static final MethodHandle CREATE_QP = downcall("ibv_create_qp", true,
        FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS));
    private static final MethodHandle MODIFY_QP = downcall("ibv_modify_qp", true,
        FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
    private static final MethodHandle QUERY_QP = downcall("ibv_query_qp", true,
        FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT, ADDRESS));
    private static final MethodHandle DESTROY_QP = downcall("ibv_destroy_qp", true,
        FunctionDescriptor.of(JAVA_INT, ADDRESS));

    private LibIbverbsQp()
    {
    }

    public static MemorySegment ibvCreateQp(
        final MemorySegment state, final MemorySegment pd, final MemorySegment initAttr)
    {
        try
        {
            return (MemorySegment)CREATE_QP.invokeExact(state, pd, initAttr);
        }
        catch (final Throwable t)
        {
            throw rethrow(t);
        }
    }

    public static int ibvModifyQp(
        final MemorySegment state, final MemorySegment qp, final MemorySegment attr, final int mask)
    {
        try
        {
            return (int)MODIFY_QP.invokeExact(state, qp, attr, mask);
        }
        catch (final Throwable t)
        {
            throw rethrow(t);
        }
    }

    public static int ibvQueryQp(
        final MemorySegment state, final MemorySegment qp, final MemorySegment attr, final int mask,
        final MemorySegment initAttr)
    {
        try
        {
            return (int)QUERY_QP.invokeExact(state, qp, attr, mask, initAttr);
        }
        catch (final Throwable t)
        {
            throw rethrow(t);
        }
    }

    public static int ibvDestroyQp(final MemorySegment state, final MemorySegment qp)
    {
        try
        {
            return (int)DESTROY_QP.invokeExact(state, qp);
        }
        catch (final Throwable t)
        {
            throw rethrow(t);
        }
    }
}
