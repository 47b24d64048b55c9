package io.rdmakv.verbs.ibverbs.bindings;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import static io.rdmakv.verbs.ibverbs.bindings.IbverbsLibrary.rethrow;
import static io.rdmakv.verbs.ibverbs.bindings.RdmacmLibrary.downcall;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * The event-channel, id, addressing and event functions of {@code librdmacm.so.1} (rdma_cm), bound once
 * when first used, wrapped as {@link LibIbverbs} wraps the verbs: a static method per C function, named
 * after it, with the same arguments; calls that can fail take a {@link CallState} segment first. rdma_cm
 * calls return 0, or -1 with {@code errno} set. Connecting is in {@link LibRdmacmConn}. Loading this
 * class without the library throws {@link IllegalStateException} naming the package: check
 * {@link RdmacmLibrary#loadFailure()} first.
 */
public final class LibRdmacm
{
    private static final MethodHandle CREATE_EVENT_CHANNEL = downcall("rdma_create_event_channel", true,
        FunctionDescriptor.of(ADDRESS));
    private static final MethodHandle DESTROY_EVENT_CHANNEL = downcall("rdma_destroy_event_channel", false,
        FunctionDescriptor.ofVoid(ADDRESS));
    private static final MethodHandle CREATE_ID = downcall("rdma_create_id", true,
        FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_INT));
    private static final MethodHandle DESTROY_ID = downcall("rdma_destroy_id", true,
        FunctionDescriptor.of(JAVA_INT, ADDRESS));
    private static final MethodHandle MIGRATE_ID = downcall("rdma_migrate_id", true,
        FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    private static final MethodHandle BIND_ADDR = downcall("rdma_bind_addr", true,
        FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    private static final MethodHandle LISTEN = downcall("rdma_listen", true,
        FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
    private static final MethodHandle RESOLVE_ADDR = downcall("rdma_resolve_addr", true,
        FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_INT));
    private static final MethodHandle RESOLVE_ROUTE = downcall("rdma_resolve_route", true,
        FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
    private static final MethodHandle GET_CM_EVENT = downcall("rdma_get_cm_event", true,
        FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    private static final MethodHandle ACK_CM_EVENT = downcall("rdma_ack_cm_event", true,
        FunctionDescriptor.of(JAVA_INT, ADDRESS));
    private static final MethodHandle EVENT_STR = downcall("rdma_event_str", false,
        FunctionDescriptor.of(ADDRESS, JAVA_INT));

    private LibRdmacm()
    {
    }

    /** @return the channel, or NULL with errno (no RDMA in the kernel, no rdma_cm module, no device) */
    public static MemorySegment rdmaCreateEventChannel(final MemorySegment state)
    {
        try
        {
            return (MemorySegment)CREATE_EVENT_CHANNEL.invokeExact(state);
        }
        catch (final Throwable t)
        {
            throw rethrow(t);
        }
    }

    /** Closes the channel's fd and frees it; every id on it must be destroyed first. */
    public static void rdmaDestroyEventChannel(final MemorySegment channel)
    {
        try
        {
            DESTROY_EVENT_CHANNEL.invokeExact(channel);
        }
        catch (final Throwable t)
        {
            throw rethrow(t);
        }
    }

    /** Stores the new {@code struct rdma_cm_id *} in {@code idOut}. @return 0, or -1 with errno */
    public static int rdmaCreateId(final MemorySegment state, final MemorySegment channel, final MemorySegment idOut, final MemorySegment context, final int portSpace)
    {
        try
        {
            return (int)CREATE_ID.invokeExact(state, channel, idOut, context, portSpace);
        }
        catch (final Throwable t)
        {
            throw rethrow(t);
        }
    }

    /** Blocks until every event reported for the id was acknowledged. @return 0, or -1 with errno */
    public static int rdmaDestroyId(final MemorySegment state, final MemorySegment id)
    {
        try
        {
            return (int)DESTROY_ID.invokeExact(state, id);
        }
        catch (final Throwable t)
        {
            throw rethrow(t);
        }
    }

    /** Moves the id's future events to {@code channel}; blocks until its events on the old one were acknowledged. @return 0, or -1 with errno */
    public static int rdmaMigrateId(final MemorySegment state, final MemorySegment id, final MemorySegment channel)
    {
        try
        {
            return (int)MIGRATE_ID.invokeExact(state, id, channel);
        }
        catch (final Throwable t)
        {
            throw rethrow(t);
        }
    }

    /** @return 0, or -1 with errno */
    public static int rdmaBindAddr(final MemorySegment state, final MemorySegment id, final MemorySegment sockaddr)
    {
        try
        {
            return (int)BIND_ADDR.invokeExact(state, id, sockaddr);
        }
        catch (final Throwable t)
        {
            throw rethrow(t);
        }
    }

    /** @return 0, or -1 with errno */
    public static int rdmaListen(final MemorySegment state, final MemorySegment id, final int backlog)
    {
        try
        {
            return (int)LISTEN.invokeExact(state, id, backlog);
        }
        catch (final Throwable t)
        {
            throw rethrow(t);
        }
    }

    /** Starts resolving; ADDR_RESOLVED or ADDR_ERROR follows on the channel. @return 0, or -1 with errno */
    public static int rdmaResolveAddr(final MemorySegment state, final MemorySegment id, final MemorySegment srcAddr, final MemorySegment dstAddr, final int timeoutMs)
    {
        try
        {
            return (int)RESOLVE_ADDR.invokeExact(state, id, srcAddr, dstAddr, timeoutMs);
        }
        catch (final Throwable t)
        {
            throw rethrow(t);
        }
    }

    /** Starts resolving; ROUTE_RESOLVED or ROUTE_ERROR follows on the channel. @return 0, or -1 with errno */
    public static int rdmaResolveRoute(final MemorySegment state, final MemorySegment id, final int timeoutMs)
    {
        try
        {
            return (int)RESOLVE_ROUTE.invokeExact(state, id, timeoutMs);
        }
        catch (final Throwable t)
        {
            throw rethrow(t);
        }
    }

    /** Stores the next {@code struct rdma_cm_event *} in {@code eventOut}; blocks unless the channel's fd is non-blocking (then EAGAIN). @return 0, or -1 with errno */
    public static int rdmaGetCmEvent(final MemorySegment state, final MemorySegment channel, final MemorySegment eventOut)
    {
        try
        {
            return (int)GET_CM_EVENT.invokeExact(state, channel, eventOut);
        }
        catch (final Throwable t)
        {
            throw rethrow(t);
        }
    }

    /** Frees the event (its private data with it). @return 0, or -1 with errno */
    public static int rdmaAckCmEvent(final MemorySegment state, final MemorySegment event)
    {
        try
        {
            return (int)ACK_CM_EVENT.invokeExact(state, event);
        }
        catch (final Throwable t)
        {
            throw rethrow(t);
        }
    }

    /** {@code rdma_event_str}: the library's name for an {@code enum rdma_cm_event_type} value. */
    public static String rdmaEventStr(final int event)
    {
        try
        {
            return ((MemorySegment)EVENT_STR.invokeExact(event)).reinterpret(64).getString(0);
        }
        catch (final Throwable t)
        {
            throw rethrow(t);
        }
    }

}
