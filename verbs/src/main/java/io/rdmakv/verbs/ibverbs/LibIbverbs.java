package io.rdmakv.verbs.ibverbs;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The functions {@code libibverbs.so.1} exports, bound once. Each is wrapped by a static method named
 * after the C function (in Java case) that takes the same arguments; calls that can fail take a
 * {@link CallState} segment first, where the linker captures {@code errno}.
 *
 * <p>Unversioned lookup finds the default ({@code @@IBVERBS_1.1}) symbol of each verb. Two traps from
 * {@code verbs.h}: {@code ibv_query_port} and {@code ibv_reg_mr} are macros there; this class binds
 * the exported {@code ibv_query_port} (the compatibility entry point: call it on a zeroed
 * {@link IbvPortAttr}-sized buffer) and {@code ibv_reg_mr_iova2} (what {@code ibv_reg_mr} calls).
 * The static inline verbs are in {@link InlineVerbs}.
 */
final class LibIbverbs
{
    private static final Linker LINKER = Linker.nativeLinker();

    private static final MethodHandle GET_DEVICE_LIST = bind("ibv_get_device_list", true,
        FunctionDescriptor.of(ADDRESS, ADDRESS));
    private static final MethodHandle FREE_DEVICE_LIST = bind("ibv_free_device_list", false,
        FunctionDescriptor.ofVoid(ADDRESS));
    private static final MethodHandle GET_DEVICE_NAME = bind("ibv_get_device_name", false,
        FunctionDescriptor.of(ADDRESS, ADDRESS));
    private static final MethodHandle GET_DEVICE_GUID = bind("ibv_get_device_guid", false,
        FunctionDescriptor.of(JAVA_LONG, ADDRESS));
    private static final MethodHandle OPEN_DEVICE = bind("ibv_open_device", true,
        FunctionDescriptor.of(ADDRESS, ADDRESS));
    private static final MethodHandle CLOSE_DEVICE = bind("ibv_close_device", true,
        FunctionDescriptor.of(JAVA_INT, ADDRESS));
    private static final MethodHandle QUERY_DEVICE = bind("ibv_query_device", true,
        FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    private static final MethodHandle QUERY_PORT = bind("ibv_query_port", true,
        FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_BYTE, ADDRESS));
    private static final MethodHandle QUERY_GID_EX = bind("_ibv_query_gid_ex", true,
        FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, JAVA_LONG));
    private static final MethodHandle QUERY_GID_TABLE = bind("_ibv_query_gid_table", true,
        FunctionDescriptor.of(JAVA_LONG, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_LONG));
    private static final MethodHandle ALLOC_PD = bind("ibv_alloc_pd", true,
        FunctionDescriptor.of(ADDRESS, ADDRESS));
    private static final MethodHandle DEALLOC_PD = bind("ibv_dealloc_pd", true,
        FunctionDescriptor.of(JAVA_INT, ADDRESS));
    private static final MethodHandle REG_MR_IOVA2 = bind("ibv_reg_mr_iova2", true,
        FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, JAVA_LONG, JAVA_INT));
    private static final MethodHandle DEREG_MR = bind("ibv_dereg_mr", true,
        FunctionDescriptor.of(JAVA_INT, ADDRESS));
    private static final MethodHandle CREATE_COMP_CHANNEL = bind("ibv_create_comp_channel", true,
        FunctionDescriptor.of(ADDRESS, ADDRESS));
    private static final MethodHandle DESTROY_COMP_CHANNEL = bind("ibv_destroy_comp_channel", true,
        FunctionDescriptor.of(JAVA_INT, ADDRESS));
    private static final MethodHandle CREATE_CQ = bind("ibv_create_cq", true,
        FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
    private static final MethodHandle DESTROY_CQ = bind("ibv_destroy_cq", true,
        FunctionDescriptor.of(JAVA_INT, ADDRESS));
    private static final MethodHandle GET_CQ_EVENT = bind("ibv_get_cq_event", true,
        FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
    private static final MethodHandle ACK_CQ_EVENTS = bind("ibv_ack_cq_events", false,
        FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT));
    private static final MethodHandle CREATE_QP = bind("ibv_create_qp", true,
        FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS));
    private static final MethodHandle MODIFY_QP = bind("ibv_modify_qp", true,
        FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
    private static final MethodHandle QUERY_QP = bind("ibv_query_qp", true,
        FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT, ADDRESS));
    private static final MethodHandle DESTROY_QP = bind("ibv_destroy_qp", true,
        FunctionDescriptor.of(JAVA_INT, ADDRESS));
    private static final MethodHandle GET_ASYNC_EVENT = bind("ibv_get_async_event", true,
        FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    private static final MethodHandle ACK_ASYNC_EVENT = bind("ibv_ack_async_event", false,
        FunctionDescriptor.ofVoid(ADDRESS));
    private static final MethodHandle FORK_INIT = bind("ibv_fork_init", false,
        FunctionDescriptor.of(JAVA_INT));
    private static final MethodHandle WC_STATUS_STR = bind("ibv_wc_status_str", false,
        FunctionDescriptor.of(ADDRESS, JAVA_INT));
    private static final MethodHandle EVENT_TYPE_STR = bind("ibv_event_type_str", false,
        FunctionDescriptor.of(ADDRESS, JAVA_INT));

    private LibIbverbs()
    {
    }

    private static MethodHandle bind(final String name, final boolean captureErrno, final FunctionDescriptor descriptor)
    {
        if (IbverbsLibrary.LOOKUP == null)
        {
            throw new IllegalStateException(IbverbsLibrary.LOAD_FAILURE);
        }
        final MemorySegment symbol = IbverbsLibrary.LOOKUP.find(name).orElseThrow(() -> new IllegalStateException(
            name + " is not exported by " + IbverbsLibrary.NAME + " (rdma-core older than 32?)"));
        return captureErrno ?
            LINKER.downcallHandle(symbol, descriptor, CallState.CAPTURE_ERRNO) :
            LINKER.downcallHandle(symbol, descriptor);
    }

    static RuntimeException rethrow(final Throwable t)
    {
        if (t instanceof RuntimeException r)
        {
            throw r;
        }
        if (t instanceof Error e)
        {
            throw e;
        }
        throw new IllegalStateException(t);
    }

    static MemorySegment ibvGetDeviceList(final MemorySegment state, final MemorySegment numDevices)
    {
        try
        {
            return (MemorySegment)GET_DEVICE_LIST.invokeExact(state, numDevices);
        }
        catch (final Throwable t)
        {
            throw rethrow(t);
        }
    }

    static void ibvFreeDeviceList(final MemorySegment list)
    {
        try
        {
            FREE_DEVICE_LIST.invokeExact(list);
        }
        catch (final Throwable t)
        {
            throw rethrow(t);
        }
    }

    static String ibvGetDeviceName(final MemorySegment device)
    {
        try
        {
            final MemorySegment name = (MemorySegment)GET_DEVICE_NAME.invokeExact(device);
            return name.address() == 0 ? null : name.reinterpret(256).getString(0);
        }
        catch (final Throwable t)
        {
            throw rethrow(t);
        }
    }

    /** The node GUID in host order ({@code ibv_get_device_guid} returns it big-endian). */
    static long ibvGetDeviceGuid(final MemorySegment device)
    {
        try
        {
            return Long.reverseBytes((long)GET_DEVICE_GUID.invokeExact(device));
        }
        catch (final Throwable t)
        {
            throw rethrow(t);
        }
    }

    static MemorySegment ibvOpenDevice(final MemorySegment state, final MemorySegment device)
    {
        try
        {
            return (MemorySegment)OPEN_DEVICE.invokeExact(state, device);
        }
        catch (final Throwable t)
        {
            throw rethrow(t);
        }
    }

    static int ibvCloseDevice(final MemorySegment state, final MemorySegment context)
    {
        try
        {
            return (int)CLOSE_DEVICE.invokeExact(state, context);
        }
        catch (final Throwable t)
        {
            throw rethrow(t);
        }
    }

    static int ibvQueryDevice(final MemorySegment state, final MemorySegment context, final MemorySegment attr)
    {
        try
        {
            return (int)QUERY_DEVICE.invokeExact(state, context, attr);
        }
        catch (final Throwable t)
        {
            throw rethrow(t);
        }
    }

    /** The exported compatibility {@code ibv_query_port}: zero {@code attr} (52 bytes) first; it fills 48. */
    static int ibvQueryPort(
        final MemorySegment state, final MemorySegment context, final int port, final MemorySegment attr)
    {
        try
        {
            return (int)QUERY_PORT.invokeExact(state, context, (byte)port, attr);
        }
        catch (final Throwable t)
        {
            throw rethrow(t);
        }
    }

    static int ibvQueryGidEx(
        final MemorySegment state, final MemorySegment context, final int port, final int index,
        final MemorySegment entry)
    {
        try
        {
            return (int)QUERY_GID_EX.invokeExact(state, context, port, index, entry, 0, (long)IbvGidEntry.SIZE);
        }
        catch (final Throwable t)
        {
            throw rethrow(t);
        }
    }

    /** Fills {@code entries} with the valid GID entries of every port. @return their count, or a negative errno */
    static long ibvQueryGidTable(
        final MemorySegment state, final MemorySegment context, final MemorySegment entries, final long maxEntries)
    {
        try
        {
            return (long)QUERY_GID_TABLE.invokeExact(state, context, entries, maxEntries, 0, (long)IbvGidEntry.SIZE);
        }
        catch (final Throwable t)
        {
            throw rethrow(t);
        }
    }

    static MemorySegment ibvAllocPd(final MemorySegment state, final MemorySegment context)
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

    static int ibvDeallocPd(final MemorySegment state, final MemorySegment pd)
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

    static MemorySegment ibvRegMrIova2(
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

    static int ibvDeregMr(final MemorySegment state, final MemorySegment mr)
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

    static MemorySegment ibvCreateCompChannel(final MemorySegment state, final MemorySegment context)
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

    static int ibvDestroyCompChannel(final MemorySegment state, final MemorySegment channel)
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

    static MemorySegment ibvCreateCq(
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

    static int ibvDestroyCq(final MemorySegment state, final MemorySegment cq)
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
    static int ibvGetCqEvent(
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

    static void ibvAckCqEvents(final MemorySegment cq, final int events)
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

    static MemorySegment ibvCreateQp(final MemorySegment state, final MemorySegment pd, final MemorySegment initAttr)
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

    static int ibvModifyQp(final MemorySegment state, final MemorySegment qp, final MemorySegment attr, final int mask)
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

    static int ibvQueryQp(
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

    static int ibvDestroyQp(final MemorySegment state, final MemorySegment qp)
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

    /** A {@code read()} on the context's async fd: blocks unless it is readable. @return 0, or -1 with errno */
    static int ibvGetAsyncEvent(final MemorySegment state, final MemorySegment context, final MemorySegment event)
    {
        try
        {
            return (int)GET_ASYNC_EVENT.invokeExact(state, context, event);
        }
        catch (final Throwable t)
        {
            throw rethrow(t);
        }
    }

    static void ibvAckAsyncEvent(final MemorySegment event)
    {
        try
        {
            ACK_ASYNC_EVENT.invokeExact(event);
        }
        catch (final Throwable t)
        {
            throw rethrow(t);
        }
    }

    static int ibvForkInit()
    {
        try
        {
            return (int)FORK_INIT.invokeExact();
        }
        catch (final Throwable t)
        {
            throw rethrow(t);
        }
    }

    static String ibvWcStatusStr(final int status)
    {
        try
        {
            return ((MemorySegment)WC_STATUS_STR.invokeExact(status)).reinterpret(256).getString(0);
        }
        catch (final Throwable t)
        {
            throw rethrow(t);
        }
    }

    static String ibvEventTypeStr(final int eventType)
    {
        try
        {
            return ((MemorySegment)EVENT_TYPE_STR.invokeExact(eventType)).reinterpret(256).getString(0);
        }
        catch (final Throwable t)
        {
            throw rethrow(t);
        }
    }
}
