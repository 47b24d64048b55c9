package io.rdmakv.verbs.ibverbs.bindings;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import static io.rdmakv.verbs.ibverbs.bindings.IbverbsLibrary.downcall;
import static io.rdmakv.verbs.ibverbs.bindings.IbverbsLibrary.rethrow;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * The completion-queue verbs of {@code libibverbs.so.1}: completion channels, {@code ibv_create_cq},
 * {@code ibv_destroy_cq} and the channel's events, bound once, wrapped as {@link LibIbverbs} wraps the
 * device verbs. Polling and arming are static inline in {@code verbs.h}: see {@link InlineVerbs}.
 */
public final class LibIbverbsCq
{
    private static final MethodHandle CREATE_COMP_CHANNEL = downcall("ibv_create_comp_channel", true,
        FunctionDescriptor.of(ADDRESS, ADDRESS));
    private static final MethodHandle DESTROY_COMP_CHANNEL = downcall("ibv_destroy_comp_channel", true,
        FunctionDescriptor.of(JAVA_INT, ADDRESS));
    private static final MethodHandle CREATE_CQ = downcall("ibv_create_cq", true,
        FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
    private static final MethodHandle DESTROY_CQ = downcall("ibv_destroy_cq", true,
        FunctionDescriptor.of(JAVA_INT, ADDRESS));
    private static final MethodHandle GET_CQ_EVENT = downcall("ibv_get_cq_event", true,
        FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
    private static final MethodHandle ACK_CQ_EVENTS = downcall("ibv_ack_cq_events", false,
        FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT));

    private LibIbverbsCq()
    {
    }

    public static MemorySegment ibvCreateCompChannel(final MemorySegment state, final MemorySegment context)
    {
        try
        {
            return (MemorySegment)CREATE_COMP_CHANNEL.invokeExact(state, context);
        }
        catch (final Throwable t)
        {
            throw rethrow(t);
        }
    }

    public static int ibvDestroyCompChannel(final MemorySegment state, final MemorySegment channel)
    {
        try
        {
            return (int)DESTROY_COMP_CHANNEL.invokeExact(state, channel);
        }
        catch (final Throwable t)
        {
            throw rethrow(t);
        }
    }

    public static MemorySegment ibvCreateCq(
        final MemorySegment state, final MemorySegment context, final int cqe, final MemorySegment cqContext,
        final MemorySegment channel, final int compVector)
    {
        try
        {
            return (MemorySegment)CREATE_CQ.invokeExact(state, context, cqe, cqContext, channel, compVector);
        }
        catch (final Throwable t)
        {
            throw rethrow(t);
        }
    }

    public static int ibvDestroyCq(final MemorySegment state, final MemorySegment cq)
    {
        try
        {
            return (int)DESTROY_CQ.invokeExact(state, cq);
        }
        catch (final Throwable t)
        {
            throw rethrow(t);
        }
    }

    /** A {@code read()} on the channel's fd: blocks unless it is readable. @return 0, or -1 with errno */
    public static int ibvGetCqEvent(
        final MemorySegment state, final MemorySegment channel, final MemorySegment cqOut,
        final MemorySegment cqContextOut)
    {
        try
        {
            return (int)GET_CQ_EVENT.invokeExact(state, channel, cqOut, cqContextOut);
        }
        catch (final Throwable t)
        {
            throw rethrow(t);
        }
    }

    public static void ibvAckCqEvents(final MemorySegment cq, final int events)
    {
        try
        {
            ACK_CQ_EVENTS.invokeExact(cq, events);
        }
        catch (final Throwable t)
        {
            throw rethrow(t);
        }
    }
}
