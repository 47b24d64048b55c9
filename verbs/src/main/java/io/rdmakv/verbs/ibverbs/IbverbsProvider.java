package io.rdmakv.verbs.ibverbs;

import io.rdmakv.verbs.Context;
import io.rdmakv.verbs.ibverbs.bindings.CallState;
import io.rdmakv.verbs.ibverbs.bindings.IbvConstants;
import io.rdmakv.verbs.ibverbs.bindings.IbverbsLibrary;
import io.rdmakv.verbs.ibverbs.bindings.LibIbverbs;
import io.rdmakv.verbs.ibverbs.layout.IbvDeviceAttr;
import io.rdmakv.verbs.ibverbs.layout.IbvPortAttr;
import io.rdmakv.verbs.resource.Errno;
import io.rdmakv.verbs.Provider;
import io.rdmakv.verbs.VerbsConfig;
import io.rdmakv.verbs.resource.VerbsException;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * The {@code ibverbs} provider: hand-written Panama FFM bindings to {@code libibverbs.so.1}, no JNI and
 * no C shim. Needs {@code --enable-native-access=ALL-UNNAMED} (or the module's name).
 *
 * <p>System property {@code rdmakv.ibverbs.forkInit=true} calls {@code ibv_fork_init()} before the first
 * device is opened, for processes that fork while memory is registered (each registration then costs
 * an extra {@code madvise(MADV_DONTFORK)}).
 */
public final class IbverbsProvider implements Provider
{
    public static final IbverbsProvider INSTANCE = new IbverbsProvider();
    public static final String LIBRARY = IbverbsLibrary.NAME;
    public static final String FORK_INIT_PROPERTY = "rdmakv.ibverbs.forkInit";

    private static final AtomicBoolean FORK_INIT_DONE = new AtomicBoolean();

    private IbverbsProvider()
    {
    }

    @Override
    public String name()
    {
        return "ibverbs";
    }

    /** One port of one device, as {@link #probe} found it. */
    record PortStatus(String device, int port, int state, int linkLayer)
    {
        boolean active()
        {
            return state == IbvConstants.IBV_PORT_ACTIVE;
        }

        @Override
        public String toString()
        {
            return device + " port " + port + " " + IbvConstants.portStateName(state) + " (" +
                IbvConstants.linkLayerName(linkLayer) + ")";
        }
    }

    /**
     * Null when a device with an ACTIVE port exists; otherwise why not: the library is missing, the
     * kernel has no RDMA (ENOSYS), there is no device, or every port is down.
     */
    @Override
    public String unavailableReason()
    {
        if (IbverbsLibrary.LOAD_FAILURE != null)
        {
            return IbverbsLibrary.LOAD_FAILURE;
        }
        try
        {
            final List<PortStatus> ports = probe();
            if (ports.isEmpty())
            {
                return "no RDMA device found (ibv_get_device_list returned an empty list; load a driver, " +
                    "or create a software device: rdma link add rxe0 type rxe netdev eth0)";
            }
            for (final PortStatus p : ports)
            {
                if (p.active())
                {
                    return null;
                }
            }
            return "no RDMA port is ACTIVE: " + ports;
        }
        catch (final VerbsException e)
        {
            if (e.errno() == Errno.ENOSYS)
            {
                return "this kernel has no RDMA support (ibv_get_device_list: ENOSYS; the ib_uverbs module " +
                    "is not loaded or not built)";
            }
            return e.getMessage();
        }
        catch (final RuntimeException | LinkageError e)
        {
            return "probing " + LIBRARY + " failed: " + e;
        }
    }

    /** Every port of every device, with its state. Throws {@link VerbsException} when the device list fails. */
    static List<PortStatus> probe()
    {
        final List<PortStatus> ports = new ArrayList<>();
        withDevices((device, name) ->
        {
            try (Arena arena = Arena.ofConfined())
            {
                final MemorySegment state = CallState.allocate(arena);
                final MemorySegment context = LibIbverbs.ibvOpenDevice(state, device);
                if (context.address() == 0)
                {
                    ports.add(new PortStatus(name + " (ibv_open_device: " + Errno.name(CallState.errno(state)) + ")",
                        0, IbvConstants.IBV_PORT_NOP, 0));
                    return false;
                }
                try
                {
                    final MemorySegment deviceAttr = arena.allocate(IbvDeviceAttr.LAYOUT);
                    if (LibIbverbs.ibvQueryDevice(state, context, deviceAttr) != 0)
                    {
                        return false;
                    }
                    final int count = deviceAttr.get(JAVA_BYTE, IbvDeviceAttr.PHYS_PORT_CNT) & 0xff;
                    final MemorySegment portAttr = arena.allocate(IbvPortAttr.LAYOUT);
                    for (int port = 1; port <= count; port++)
                    {
                        portAttr.fill((byte)0);
                        if (LibIbverbs.ibvQueryPort(state, context, port, portAttr) == 0)
                        {
                            ports.add(new PortStatus(name, port, portAttr.get(JAVA_INT, IbvPortAttr.STATE),
                                portAttr.get(JAVA_BYTE, IbvPortAttr.LINK_LAYER) & 0xff));
                        }
                    }
                }
                finally
                {
                    LibIbverbs.ibvCloseDevice(state, context);
                }
            }
            return false;
        });
        return ports;
    }

    /** What {@link #withDevices} hands each device to; returns true to stop. */
    @FunctionalInterface
    interface DeviceVisitor
    {
        boolean visit(MemorySegment device, String name);
    }

    /** Calls {@code visitor} for each device of {@code ibv_get_device_list}, then frees the list. */
    static void withDevices(final DeviceVisitor visitor)
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment state = CallState.allocate(arena);
            final MemorySegment count = arena.allocate(JAVA_INT);
            final MemorySegment list = LibIbverbs.ibvGetDeviceList(state, count);
            if (list.address() == 0)
            {
                throw new VerbsException("ibv_get_device_list", CallState.errno(state), "listing RDMA devices");
            }
            try
            {
                final int n = count.get(JAVA_INT, 0);
                final MemorySegment devices = list.reinterpret(ADDRESS.byteSize() * (n + 1L));
                for (int i = 0; i < n; i++)
                {
                    final MemorySegment device = devices.getAtIndex(ADDRESS, i);
                    if (visitor.visit(device, LibIbverbs.ibvGetDeviceName(device)))
                    {
                        return;
                    }
                }
            }
            finally
            {
                LibIbverbs.ibvFreeDeviceList(list);
            }
        }
    }

    /**
     * Opens {@code config.device()} (or, when null, the first device whose port {@code config.port()} is
     * ACTIVE) and checks that the port is ACTIVE.
     */
    @Override
    public Context open(final VerbsConfig config)
    {
        if (IbverbsLibrary.LOAD_FAILURE != null)
        {
            throw new VerbsException("ibv_open_device", 0, IbverbsLibrary.LOAD_FAILURE);
        }
        forkInitIfAsked();
        final IbvContext[] opened = new IbvContext[1];
        final List<String> tried = new ArrayList<>();
        final RuntimeException[] lastFailure = new RuntimeException[1];
        try
        {
            withDevices((device, name) ->
            {
                if (config.device() != null && !config.device().equals(name))
                {
                    tried.add(name);
                    return false;
                }
                try (Arena arena = Arena.ofConfined())
                {
                    final MemorySegment state = CallState.allocate(arena);
                    final MemorySegment context = LibIbverbs.ibvOpenDevice(state, device);
                    if (context.address() == 0)
                    {
                        throw new VerbsException("ibv_open_device", CallState.errno(state), "device " + name);
                    }
                    opened[0] = new IbvContext(context, name, LibIbverbs.ibvGetDeviceGuid(device), config.port());
                    return true;
                }
                catch (final VerbsException e)
                {
                    if (config.device() != null)
                    {
                        throw e;
                    }
                    tried.add(name + " (" + e.getMessage() + ")");
                    lastFailure[0] = e;
                    return false;
                }
            });
        }
        catch (final VerbsException e)
        {
            if (e.errno() == Errno.ENOSYS)
            {
                throw new VerbsException(e.call(), e.errno(), "this kernel has no RDMA support");
            }
            throw e;
        }
        if (opened[0] != null)
        {
            return opened[0];
        }
        if (config.device() != null)
        {
            throw new VerbsException("ibv_open_device", Errno.ENODEV, "no RDMA device named " + config.device() +
                (tried.isEmpty() ? " (there is none at all)" : "; there are: " + String.join(", ", tried)));
        }
        if (tried.isEmpty())
        {
            throw new VerbsException("ibv_open_device", Errno.ENODEV, "no RDMA device found");
        }
        throw new VerbsException("ibv_open_device", lastFailure[0] instanceof VerbsException v ? v.errno() : 0,
            "no device has port " + config.port() + " ACTIVE: " + String.join("; ", tried));
    }

    private static void forkInitIfAsked()
    {
        if (Boolean.getBoolean(FORK_INIT_PROPERTY) && FORK_INIT_DONE.compareAndSet(false, true))
        {
            final int rc = LibIbverbs.ibvForkInit();
            if (rc != 0)
            {
                throw new VerbsException("ibv_fork_init", rc,
                    "fork protection must be enabled before the first memory registration");
            }
        }
    }

    /** {@code ibv_wc_status_str}: the library's text for a completion status. */
    public static String wcStatusString(final int status)
    {
        return LibIbverbs.ibvWcStatusStr(status);
    }

    /** The locked-memory limit of this process as text (for start-up logs). */
    public static String memlockLimit()
    {
        return MemlockLimit.describe();
    }
}
