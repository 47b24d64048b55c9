package io.rdmakv.verbs.ibverbs.bindings;

import io.rdmakv.verbs.ibverbs.layout.IbvGidEntry;
import io.rdmakv.verbs.ibverbs.layout.IbvPortAttr;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import static io.rdmakv.verbs.ibverbs.bindings.IbverbsLibrary.downcall;
import static io.rdmakv.verbs.ibverbs.bindings.IbverbsLibrary.rethrow;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The device and context functions {@code libibverbs.so.1} exports (device list, open/close, device,
 * port and GID queries, async events, {@code ibv_fork_init}, the status strings), bound once. Each is
 * wrapped by a static method named after the C function (in Java case) that takes the same arguments;
 * calls that can fail take a {@link CallState} segment first, where the linker captures {@code errno}.
 *
 * <p>The other verbs, by object, follow the same pattern: {@link LibIbverbsPd} (protection domains and
 * memory registration), {@link LibIbverbsCq} (completion channels and queues), {@link LibIbverbsQp}
 * (queue pairs). The static inline verbs are in {@link InlineVerbs}.
 *
 * <p>Unversioned lookup finds the default ({@code @@IBVERBS_1.1}) symbol of each verb. Two traps from
 * {@code verbs.h}: {@code ibv_query_port} and {@code ibv_reg_mr} are macros there; this class binds
 * the exported {@code ibv_query_port} (the compatibility entry point: call it on a zeroed
 * {@link IbvPortAttr}-sized buffer), {@link LibIbverbsPd} binds {@code ibv_reg_mr_iova2} (what
 * {@code ibv_reg_mr} calls).
 */
public final class LibIbverbs
{
    private static final MethodHandle GET_DEVICE_LIST = downcall("ibv_get_device_list", true,
        FunctionDescriptor.of(ADDRESS, ADDRESS));
    private static final MethodHandle FREE_DEVICE_LIST = downcall("ibv_free_device_list", false,
        FunctionDescriptor.ofVoid(ADDRESS));
    private static final MethodHandle GET_DEVICE_NAME = downcall("ibv_get_device_name", false,
        FunctionDescriptor.of(ADDRESS, ADDRESS));
    private static final MethodHandle GET_DEVICE_GUID = downcall("ibv_get_device_guid", false,
        FunctionDescriptor.of(JAVA_LONG, ADDRESS));
    private static final MethodHandle OPEN_DEVICE = downcall("ibv_open_device", true,
        FunctionDescriptor.of(ADDRESS, ADDRESS));
    private static final MethodHandle CLOSE_DEVICE = downcall("ibv_close_device", true,
        FunctionDescriptor.of(JAVA_INT, ADDRESS));
    private static final MethodHandle QUERY_DEVICE = downcall("ibv_query_device", true,
        FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    private static final MethodHandle QUERY_PORT = downcall("ibv_query_port", true,
        FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_BYTE, ADDRESS));
    private static final MethodHandle QUERY_GID_EX = downcall("_ibv_query_gid_ex", true,
        FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, JAVA_LONG));
    private static final MethodHandle QUERY_GID_TABLE = downcall("_ibv_query_gid_table", true,
        FunctionDescriptor.of(JAVA_LONG, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_LONG));
    private static final MethodHandle GET_ASYNC_EVENT = downcall("ibv_get_async_event", true,
        FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    private static final MethodHandle ACK_ASYNC_EVENT = downcall("ibv_ack_async_event", false,
        FunctionDescriptor.ofVoid(ADDRESS));
    private static final MethodHandle FORK_INIT = downcall("ibv_fork_init", false,
        FunctionDescriptor.of(JAVA_INT));
    private static final MethodHandle WC_STATUS_STR = downcall("ibv_wc_status_str", false,
        FunctionDescriptor.of(ADDRESS, JAVA_INT));
    private static final MethodHandle EVENT_TYPE_STR = downcall("ibv_event_type_str", false,
        FunctionDescriptor.of(ADDRESS, JAVA_INT));

    private LibIbverbs()
    {
    }


    public static MemorySegment ibvGetDeviceList(final MemorySegment state, final MemorySegment numDevices)
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

    public static void ibvFreeDeviceList(final MemorySegment list)
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

    public static String ibvGetDeviceName(final MemorySegment device)
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
    public static long ibvGetDeviceGuid(final MemorySegment device)
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

    public static MemorySegment ibvOpenDevice(final MemorySegment state, final MemorySegment device)
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

    public static int ibvCloseDevice(final MemorySegment state, final MemorySegment context)
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

    public static int ibvQueryDevice(final MemorySegment state, final MemorySegment context, final MemorySegment attr)
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
    public static int ibvQueryPort(
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

    public static int ibvQueryGidEx(
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
    public static long ibvQueryGidTable(
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

    /** A {@code read()} on the context's async fd: blocks unless it is readable. @return 0, or -1 with errno */
    public static int ibvGetAsyncEvent(
        final MemorySegment state, final MemorySegment context, final MemorySegment event)
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

    public static void ibvAckAsyncEvent(final MemorySegment event)
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

    public static int ibvForkInit()
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

    public static String ibvWcStatusStr(final int status)
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

    public static String ibvEventTypeStr(final int eventType)
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
